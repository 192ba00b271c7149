#!/usr/bin/env python3
"""reconnect_probe.py: when a "kvtest shortener serve" worker tries its
PostgreSQL connection again, read from outside, against the schedule
src/shortener/store/links_pg.c and the manual promise: a connection that
failed is tried again at once, then after pauses of 100 ms doubling to
2 s; a connection made again starts the pauses over.

  reconnect_probe.py down HTTP_PORT ID ATTEMPTS LIMIT_S
  reconnect_probe.py up HTTP_PORT ID LIMIT_S

The service runs with --threads 1 (one connection to the primary). Over
one keep-alive HTTP connection, in turn about every 10 ms: GET /link/ID,
then GET /stats for store.reconnects (every attempt to connect counts
one, failed or not). A request whose reconnects went up by one made an
attempt. One line per request: its start and end (ms since the probe
began, time.monotonic: the service's CLOCK_MONOTONIC), its status and
the attempts it made, printed when a check fails.

down: the server was stopped after the connection was made, and no
request came since. Until ATTEMPTS attempts or LIMIT_S seconds. Checks,
none of them on how fast the machine is (A_k: attempt k, P_k: the pause
before it, min(100 * 2^(k-1), 2000) ms; S_i, E_i: request i's start and
end; J_k: the request that made A_k):
  - every answer is 503, no request makes two attempts;
  - the first request makes A_0 (at once: the failed statement's retry);
  - not early: A_k cannot come before A_(k-1) failed plus P_k, so
    E_(J_k) - S_(J_(k-1)) >= P_k;
  - not late: the request just before J_k made no attempt, so it came
    before that time: S_(J_k - 1) - E_(J_(k-1)) < P_k (and after the last
    attempt, the last request came before the next one was due);
  - the count: at most 1 + max{k: P_1 + ... + P_k <= W} attempts in the
    window W from the first request's start to the last one's end.
A schedule without pauses fails the first "not early", a fixed 100 ms
the second, one without the 2 s cap the sixth "not late" (a pause of 3.2 s
where 2 s is due), one that does not retry at once the first request.

up: the server is back. Until the first 200 (at most LIMIT_S seconds):
no attempt before it, and exactly one (the one that connected) with it;
it came no later than the longest pause allows (the request before it
started within 2 s of the probe's start); then 5 more 200s without an
attempt (the connection is kept).

Exit 0 when everything holds, 1 (with the reason) when not, 2 on bad
usage."""
import http.client
import json
import sys
import time

PAUSE_FIRST_MS = 100
PAUSE_MAX_MS = 2000


def pause(k):
    """The pause before attempt k >= 1, in ms."""
    return min(PAUSE_FIRST_MS * 2 ** (k - 1), PAUSE_MAX_MS)


class Probe:
    def __init__(self, port, ident):
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self.path = "/link/" + ident
        self.t0 = time.monotonic()
        self.rec = self.reconnects()
        self.rows = []   # (start_ms, end_ms, status, attempts)

    def now(self):
        return (time.monotonic() - self.t0) * 1000.0

    def get(self, path):
        self.conn.request("GET", path)
        r = self.conn.getresponse()
        return r.status, r.read()

    def reconnects(self):
        status, body = self.get("/stats")
        if status != 200:
            raise SystemExit("GET /stats: status %d" % status)
        return int(json.loads(body)["store"]["reconnects"])

    def step(self):
        s = self.now()
        status, _ = self.get(self.path)
        rec = self.reconnects()
        e = self.now()
        self.rows.append((s, e, status, rec - self.rec))
        self.rec = rec
        time.sleep(0.01)
        return self.rows[-1]

    def show(self):
        for s, e, status, n in self.rows:
            print("%9.1f %9.1f %d %d" % (s, e, status, n))


def down(p, want, limit_ms):
    attempts = 0
    while attempts < want and p.now() < limit_ms:
        attempts += p.step()[3]
    rows = p.rows
    bad = []
    j = [i for i, r in enumerate(rows) if r[3] > 0]
    for i, (s, e, status, n) in enumerate(rows):
        if status != 503:
            bad.append("request %d (at %.1f ms) answered %d, not 503" % (i, s, status))
        if n > 1:
            bad.append("request %d (at %.1f ms) made %d attempts" % (i, s, n))
    if not j or j[0] != 0:
        bad.append("the first request after the stop made no attempt: no retry at once")
    for k in range(1, len(j)):
        early = rows[j[k]][1] - rows[j[k - 1]][0]
        late = rows[j[k] - 1][0] - rows[j[k - 1]][1]
        print("attempt %d: pause %d ms; it came %.1f to %.1f ms after attempt %d"
              % (k, pause(k), max(late, 0.0), early, k - 1))
        if early < pause(k):
            bad.append("attempt %d came within %.1f ms of attempt %d, before its pause of %d ms"
                       % (k, early, k - 1, pause(k)))
        if late >= pause(k):
            bad.append("attempt %d: a request %.1f ms after attempt %d made none, though the "
                       "pause was %d ms" % (k, late, k - 1, pause(k)))
    if j and j[-1] != len(rows) - 1:
        k = len(j)
        late = rows[-1][0] - rows[j[-1]][1]
        if late >= pause(k):
            bad.append("no attempt %d: the last request, %.1f ms after attempt %d, made none, "
                       "though the pause was %d ms" % (k, late, k - 1, pause(k)))
    window = rows[-1][1] - rows[0][0] if rows else 0.0
    most, total = 1, pause(1)
    while total <= window:
        most += 1
        total += pause(most)
    print("%d attempts in %d requests over %.0f ms; the schedule allows at most %d"
          % (len(j), len(rows), window, most))
    if len(j) > most:
        bad.append("%d attempts in %.0f ms, more than the schedule's %d" % (len(j), window, most))
    if len(j) < want:
        bad.append("only %d attempts in %.0f ms, wanted %d" % (len(j), window, want))
    return bad


def up(p, limit_ms):
    while p.now() < limit_ms:
        if p.step()[2] == 200:
            break
    for _ in range(5):
        p.step()
    rows = p.rows
    bad = []
    first = next((i for i, r in enumerate(rows) if r[2] == 200), None)
    if first is None:
        return ["no 200 in %.0f ms" % rows[-1][1]]
    print("first 200 after %.1f ms, request %d" % (rows[first][1], first))
    for i, (s, e, status, n) in enumerate(rows):
        if i != first and n:
            bad.append("request %d (at %.1f ms, %d) made %d attempts" % (i, s, status, n))
        if i > first and status != 200:
            bad.append("request %d (at %.1f ms) answered %d after a 200" % (i, s, status))
    if rows[first][3] != 1:
        bad.append("the first 200 came with %d attempts, not 1" % rows[first][3])
    if first > 0 and rows[first - 1][0] >= PAUSE_MAX_MS:
        bad.append("a request %.1f ms after the start still found the connection down, past "
                   "the longest pause (%d ms)" % (rows[first - 1][0], PAUSE_MAX_MS))
    return bad


def main(argv):
    try:
        if len(argv) == 6 and argv[1] == "down":
            p = Probe(int(argv[2]), argv[3])
            bad = down(p, int(argv[4]), float(argv[5]) * 1000)
        elif len(argv) == 5 and argv[1] == "up":
            p = Probe(int(argv[2]), argv[3])
            bad = up(p, float(argv[4]) * 1000)
        else:
            raise ValueError
    except ValueError:
        sys.stderr.write("usage: reconnect_probe.py down PORT ID ATTEMPTS LIMIT_S | "
                         "up PORT ID LIMIT_S\n")
        return 2
    if bad:   # every request, then what is wrong
        print("start_ms end_ms status attempts")
        p.show()
    for b in bad:
        print("FAIL: " + b)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
