#!/usr/bin/env python3
"""procs_probe.py: does a link created through one process of
"kvtest shortener serve --processes N" resolve through every other one at
once?

  procs_probe.py HTTP_PORT NPROCS ROUNDS

Opens keep-alive connections (at most 64) until it holds one answered by
each process 0..NPROCS-1 (GET /stats says "process"; a keep-alive
connection stays with the process that accepted it). Then ROUNDS times,
for every ordered pair (a, b) of processes, a != b: POST a new link on
a's connection and GET it on b's straight after the 201: it must be 200
with the same URL. Finally each connection must still be answered by its
process. Prints "pairs N" (checked pairs) and exits 0; on any failure one
line on stderr and exit 1."""
import http.client
import json
import sys


def call(conn, method, path, body=None):
    headers = {"Content-Type": "application/json"} if body is not None else {}
    conn.request(method, path, body=body, headers=headers)
    r = conn.getresponse()
    return r.status, json.loads(r.read() or b"{}")


def process_of(conn):
    status, j = call(conn, "GET", "/stats")
    if status != 200 or "process" not in j:
        sys.exit("procs_probe: /stats: %d %s" % (status, j))
    return j["process"]


def main():
    port, nprocs, rounds = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
    conns = {}
    spare = []
    for _ in range(64):
        if len(conns) == nprocs:
            break
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        k = process_of(c)
        if k in conns:
            spare.append(c)   # kept open: the next one is a new connection
        else:
            conns[k] = c
    if sorted(conns) != list(range(nprocs)):
        sys.exit("procs_probe: 64 connections reached processes %s only" % sorted(conns))
    pairs = 0
    for r in range(rounds):
        for a in range(nprocs):
            for b in range(nprocs):
                if a == b:
                    continue
                url = "https://procs.example/%d/%d/%d" % (r, a, b)
                status, j = call(conns[a], "POST", "/link", json.dumps({"url": url}))
                if status != 201:
                    sys.exit("procs_probe: POST on process %d: %d %s" % (a, status, j))
                ident = j["short_link"]
                status, j = call(conns[b], "GET", "/link/" + ident)
                if status != 200 or j.get("link") != url:
                    sys.exit("procs_probe: link %s made by process %d, GET on process %d: %d %s"
                             % (ident, a, b, status, j))
                pairs += 1
    for k, c in conns.items():
        if process_of(c) != k:
            sys.exit("procs_probe: a connection moved away from process %d" % k)
    for c in list(conns.values()) + spare:
        c.close()
    print("pairs %d" % pairs)


main()
