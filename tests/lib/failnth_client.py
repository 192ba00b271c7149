#!/usr/bin/env python3
"""failnth_client.py PORT N ACKED: the load of failnth.bats's service sweep.

Sends N rounds of POST /link and GET /link/ID (of the link just made),
then GET /stats (none for N = 0: a start and a stop, counted by the
sweep to find where the load's allocations begin), over one keep-alive
connection (a new one after the service
closed it), and checks every answer: a status the API documents (201,
200, 503/500 for a failure it took; never a 404 for a link just made) and
a JSON body, with "error" in every 4xx/5xx. Writes each acknowledged link as
"ID URL" to ACKED (nothing acknowledged may be lost). Prints one line per
kind of answer ("POST 201 N" ...) and exits 0; on a bad answer, one line
naming it and exit 1; when the service stops answering (it died), exit 3.
"""
import http.client
import json
import sys

port, rounds, acked_path = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
ALLOWED = {"POST": {201, 500, 503}, "GET": {200, 500, 503}}   # a 404 would be a lost link
seen = {}
conn = None


def ask(method, path, body=None):
    """One request; (status, parsed JSON body), or exit 3 when nobody answers."""
    global conn
    for attempt in (1, 2):
        if conn is None:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        try:
            conn.request(method, path, body=body,
                         headers={"Content-Type": "application/json"} if body else {})
            r = conn.getresponse()
            raw = r.read()
            if r.getheader("Connection", "").lower() == "close":
                conn.close()
                conn = None
            break
        except (ConnectionError, http.client.HTTPException, OSError) as e:
            conn = None
            if attempt == 2:
                print(f"{method} {path}: no answer ({e})")
                sys.exit(3)
    try:
        doc = json.loads(raw)
    except ValueError:
        print(f"{method} {path}: {r.status} with a body that is not JSON: {raw[:200]!r}")
        sys.exit(1)
    if r.status not in ALLOWED[method] and not (method == "GET" and path == "/stats"
                                                and r.status == 200):
        print(f"{method} {path}: status {r.status} ({raw[:200]!r})")
        sys.exit(1)
    if r.status >= 400 and (not isinstance(doc, dict) or "error" not in doc):
        print(f"{method} {path}: {r.status} without an error: {raw[:200]!r}")
        sys.exit(1)
    key = f"{method} {r.status}"
    seen[key] = seen.get(key, 0) + 1
    return r.status, doc


with open(acked_path, "w") as acked:
    for i in range(rounds):
        url = f"https://example.org/failnth/{i}"
        st, doc = ask("POST", "/link", json.dumps({"url": url}))
        if st == 201:
            link = doc.get("short_link", "")
            ident = link.rsplit("/", 1)[-1]
            if not ident:
                print(f"POST /link: 201 without a short_link: {doc}")
                sys.exit(1)
            acked.write(f"{ident} {url}\n")
            acked.flush()
            st, got = ask("GET", f"/link/{ident}")
            if st == 200 and got.get("link") != url:
                print(f"GET /link/{ident}: {got} for {url}")
                sys.exit(1)
    if rounds:
        ask("GET", "/stats")
for key in sorted(seen):
    print(key, seen[key])
