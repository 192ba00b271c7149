#!/usr/bin/env python3
"""pipeline_probe.py PORT N: does the shortener service answer pipelined
HTTP/1.1 requests in order? A raw socket client, the way a pipelining
load generator talks to it.

On one connection it writes N POST /link requests (distinct URLs) in one
write, then reads N answers and takes each one's id; then it writes, in one
write, N GETs of those ids with a GET of an id that does not exist after
every other one, and reads the answers: the i-th must be the i-th
request's (the right URL, or 404 for the missing id). Answers are parsed by
http.client, reading one after another off the same buffered stream.

Prints "ok N" and exits 0, or prints the first mismatch and exits 1.
--reverse expects the GET answers in reverse order (to see the check
fail). Binds nothing; talks to 127.0.0.1 only; 10 s socket timeout.
"""
import argparse
import http.client
import io
import json
import socket
import sys


class KeepOpen(io.BufferedReader):
    """The connection's one read buffer: http.client closes its file when
    an answer is read, which would lose the bytes of the next answers."""

    def close(self):
        pass


class OneFile:
    """What http.client.HTTPResponse wants of a socket: makefile(), here
    always the same buffered stream."""

    def __init__(self, f):
        self.f = f

    def makefile(self, *args, **kwargs):
        return self.f


def answers(sock, f, n):
    out = []
    for _ in range(n):
        r = http.client.HTTPResponse(OneFile(f))
        r.begin()
        out.append((r.status, r.read()))
    return out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("port", type=int)
    p.add_argument("n", type=int)
    p.add_argument("--reverse", action="store_true")
    a = p.parse_args()
    host = "127.0.0.1:%d" % a.port
    sock = socket.create_connection(("127.0.0.1", a.port), timeout=10)
    f = KeepOpen(socket.SocketIO(sock, "rb"))

    urls = ["https://example.org/pipeline/%d/%s" % (i, "x" * (i % 7)) for i in range(a.n)]
    reqs = []
    for u in urls:
        body = json.dumps({"url": u}).encode()
        reqs.append(b"POST /link HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\n"
                    b"Content-Length: %d\r\n\r\n%s" % (host.encode(), len(body), body))
    sock.sendall(b"".join(reqs))
    ids = []
    for i, (status, body) in enumerate(answers(sock, f, a.n)):
        if status != 201:
            print("POST %d: HTTP %d %r" % (i, status, body[:80]))
            return 1
        ids.append(json.loads(body)["short_link"])

    # GETs: each created id, and after every other one an id that is not there.
    gets, want = [], []
    for i, lid in enumerate(ids):
        gets.append(lid)
        want.append((200, urls[i]))
        if i % 2 == 1:
            gets.append("zzzzzz%d" % i)
            want.append((404, None))
    sock.sendall(b"".join(b"GET /link/%s HTTP/1.1\r\nHost: %s\r\n\r\n" % (g.encode(), host.encode())
                          for g in gets))
    got = answers(sock, f, len(gets))
    if a.reverse:
        got.reverse()
    for i, ((status, body), (wstatus, wurl)) in enumerate(zip(got, want)):
        link = json.loads(body).get("link") if status == 200 else None
        if status != wstatus or link != wurl:
            print("answer %d of %d: HTTP %d link %r, expected HTTP %d link %r"
                  % (i, len(gets), status, link, wstatus, wurl))
            return 1
    sock.close()
    print("ok %d" % len(gets))
    return 0


if __name__ == "__main__":
    sys.exit(main())
