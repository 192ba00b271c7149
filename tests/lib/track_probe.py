#!/usr/bin/env python3
"""track_probe.py: how soon a change in Valkey stops being served from a
"kvtest shortener serve --cache valkey+track://" process's memory.

  track_probe.py MODE VALKEY_PORT HTTP_PORT STORE TTL_S ID...

MODE: del (DEL the key), set (overwrite it), expire (the service's own
--cache-ttl TTL_S runs out). VALKEY_PORT may be any node of a Valkey
Cluster: commands follow -MOVED to the key's owner. One trial per ID, over one keep-alive HTTP
connection: make the service cache the link, change the URL in the store
(an SQLite file, or a postgres:// URL changed through psql), so a cached
answer is recognisably stale, check the stale URL is still
served, make the change in Valkey, then poll GET /link/ID about every
millisecond until the answer changes (at most 3 s). The latency is from
just before the change (for expire: from just before the request that
stored the key, plus TTL_S) to the first changed answer. Prints one line
per trial and "median_ms X"; exit 1 when a trial never changed or the
cache was not serving the stale URL."""
import http.client
import json
import socket
import sqlite3
import statistics
import subprocess
import sys
import time

PREFIX = "kvtest:link:"


def resp(port, *args):
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    out = b"*%d\r\n" % len(args)
    for a in args:
        a = a.encode()
        out += b"$%d\r\n%s\r\n" % (len(a), a)
    s.sendall(out)
    reply = s.recv(65536)
    s.close()
    # A Valkey Cluster node that does not own the key names the one that does.
    if reply.startswith(b"-MOVED "):
        return resp(int(reply.split()[2].rsplit(b":", 1)[1]), *args)
    return reply


def get(conn, ident):
    conn.request("GET", "/link/" + ident)
    r = conn.getresponse()
    body = r.read()
    if r.status != 200:
        raise SystemExit("GET /link/%s: status %d %r" % (ident, r.status, body))
    return json.loads(body)["link"]


def quote(text):
    return "'" + text.replace("'", "''") + "'"


def store_sql(db, sql, params):
    """Run sql (with ? placeholders) on the store; the first column of the
    first row, or None."""
    if db.startswith(("postgres://", "postgresql://")):
        parts = sql.split("?")   # the values may hold "?" themselves
        sql = parts[0] + "".join(quote(p) + rest for p, rest in zip(params, parts[1:]))
        out = subprocess.run(["psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1",
                              "-d", db, "-c", sql], check=True, capture_output=True,
                             text=True).stdout
        return out.rstrip("\n") or None
    c = sqlite3.connect(db[len("sqlite:"):] if db.startswith("sqlite:") else db, timeout=10)
    row = c.execute(sql, params).fetchone()
    c.commit()
    c.close()
    return row[0] if row else None


def set_url(db, ident, url):
    store_sql(db, "UPDATE links SET link_target=? WHERE link_hash=?", (url, ident))


def trial(mode, vport, conn, db, ttl, ident):
    key = PREFIX + ident
    resp(vport, "DEL", key)
    orig = store_sql(db, "SELECT link_target FROM links WHERE link_hash=?", (ident,))
    t_fill = time.monotonic()
    if get(conn, ident) != orig:      # miss: SQLite, SET (EX ttl), local fill
        raise SystemExit("first lookup of %s did not return its URL" % ident)
    for _ in range(3):
        get(conn, ident)
    fresh = orig + "?v=store"
    set_url(db, ident, fresh)
    try:
        if get(conn, ident) != orig:
            raise SystemExit("%s: the cached URL was not served (no caching?)" % ident)
        want = fresh
        if mode == "del":
            t_change = time.monotonic()
            resp(vport, "DEL", key)
        elif mode == "set":
            want = orig + "?v=valkey"
            t_change = time.monotonic()
            resp(vport, "SET", key, want)
        else:
            t_change = t_fill + ttl
        deadline = time.monotonic() + 3 + (ttl if mode == "expire" else 0)
        while time.monotonic() < deadline:
            got = get(conn, ident)
            if got != orig:
                seen = time.monotonic()
                if got != want:
                    raise SystemExit("%s: changed to %r, expected %r" % (ident, got, want))
                return (seen - t_change) * 1000
            time.sleep(0.001)
        raise SystemExit("%s: still served the old URL 3 s after the %s" % (ident, mode))
    finally:
        set_url(db, ident, orig)
        resp(vport, "DEL", key)


def main():
    mode, vport, hport, db, ttl = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], float(sys.argv[5])
    conn = http.client.HTTPConnection("127.0.0.1", hport, timeout=10)
    lat = []
    for ident in sys.argv[6:]:
        ms = trial(mode, vport, conn, db, ttl, ident)
        print("%s %s %.2f ms" % (mode, ident, ms))
        lat.append(ms)
    print("median_ms %.2f" % statistics.median(lat))


if __name__ == "__main__":
    main()
