#!/usr/bin/env python3
"""delay_server.py PORT --plan PLAN [options]: a stand-in server that
answers each request after a delay drawn from a known distribution, so that
the latency percentiles a client reports can be checked against it.

PLAN is "COUNTxMS,COUNTxMS,...": COUNT requests delayed by MS milliseconds
each (e.g. "900x0,800x4,270x20"). The delays are shuffled once (--seed) and
handed out in the order the requests arrive; once they are used up, answers
go out at once and count as extras. A delay is a minimum: the client sees
it plus the time to send, parse and answer.

Protocols:
  http  the two calls of "kvtest shortener load" over keep-alive HTTP/1.1
        (POST /link, GET /link/ID: tests/lib/stall_server.py's service);
        every request is delayed
  resp  enough of Valkey's protocol for "kvtest shortener bench --cache
        valkey://": PING, SELECT, GET, SET (XX too), PTTL; only GETs are
        delayed, and not the start's probe of kvtest:link:~probe
        (bench times one GET per lookup, plus a SET after a miss)

Options:
  --protocol http|resp   (default http)
  --seed N               shuffle seed (default 1)
  --seconds S            exit after S seconds (default 60), so a test that
                         forgets it cannot leave it behind

On exit (SIGTERM or --seconds) prints one line "delayed N extra M" on
stdout. Binds 127.0.0.1 only; one thread; answers are queued by due time,
so one slow answer does not hold up the others (each connection's answers
still leave in request order).
"""
import argparse
import heapq
import os
import random
import selectors
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import stall_server  # noqa: E402  (its HTTP service, request parser, sockets)


def parse_plan(text):
    delays = []
    for part in text.split(","):
        count, _, ms = part.partition("x")
        delays += [float(ms) / 1000.0] * int(count)
    return delays


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("port", type=int)
    p.add_argument("--plan", required=True)
    p.add_argument("--protocol", choices=["http", "resp"], default="http")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--seconds", type=float, default=60)
    return p.parse_args()


def take_resp(buf):
    """(args, rest) for the first whole RESP command in buf, or None."""
    if not buf.startswith(b"*"):
        end = buf.find(b"\r\n")   # an inline command (typed by hand)
        return None if end < 0 else (buf[:end].split(), buf[end + 2:])
    end = buf.find(b"\r\n")
    if end < 0:
        return None
    n, pos, args = int(buf[1:end]), end + 2, []
    for _ in range(n):
        end = buf.find(b"\r\n", pos)
        if end < 0:
            return None
        size = int(buf[pos + 1:end])
        if len(buf) < end + 2 + size + 2:
            return None
        args.append(buf[end + 2:end + 2 + size])
        pos = end + 2 + size + 2
    return args, buf[pos:]


def bulk(v):
    return b"$-1\r\n" if v is None else b"$%d\r\n%s\r\n" % (len(v), v)


class Resp:
    """(reply, delayed?) per command; SET values are kept, so a GET after a
    miss and a fill is a hit, as with Valkey."""
    def __init__(self):
        self.kv = {}

    def take(self, buf):
        return take_resp(buf)

    def answer(self, args):
        cmd = args[0].upper() if args else b""
        if cmd == b"PING":
            return b"+PONG\r\n", False
        if cmd == b"SELECT":
            return b"+OK\r\n", False
        if cmd == b"GET" and len(args) == 2:
            # the start's permission probe (src/shortener/cache/
            # cache_access.c) is no lookup: answered at once, not counted
            return bulk(self.kv.get(args[1])), not args[1].endswith(b"~probe")
        if cmd == b"SET" and len(args) >= 3:
            if b"XX" in (a.upper() for a in args[3:]) and args[1] not in self.kv:
                return b"$-1\r\n", False
            self.kv[args[1]] = args[2]
            return b"+OK\r\n", False
        if cmd == b"PTTL" and len(args) == 2:
            return b":-1\r\n", False
        return b"-ERR unknown command\r\n", False


class Http:
    def __init__(self):
        self.service = stall_server.Service(None)

    def take(self, buf):
        req = stall_server.take_request(buf)
        return None if req is None else (req[:3], req[3])

    def answer(self, req):
        method, path, body = req
        return stall_server.response(*self.service.answer(method, path, body)), True


class Conn:
    def __init__(self, sock):
        self.sock = sock
        self.buf = b""
        self.last_due = 0.0   # answers leave in request order


class Server:
    def __init__(self, args):
        self.proto = Resp() if args.protocol == "resp" else Http()
        self.delays = parse_plan(args.plan)
        random.Random(args.seed).shuffle(self.delays)
        self.delayed = self.extra = 0
        self.queue = []   # (due, seq, conn, reply)
        self.seq = 0
        self.sel = selectors.DefaultSelector()

    def delay(self):
        if self.delayed < len(self.delays):
            self.delayed += 1
            return self.delays[self.delayed - 1]
        self.extra += 1
        return 0.0

    def receive(self, c):
        if not stall_server.receive(self.sel, c):
            return
        while True:
            got = self.proto.take(c.buf)
            if got is None:
                return
            req, c.buf = got
            reply, delayed = self.proto.answer(req)
            due = time.monotonic() + (self.delay() if delayed else 0.0)
            c.last_due = max(due, c.last_due)
            self.seq += 1
            heapq.heappush(self.queue, (c.last_due, self.seq, c, reply))

    def send_due(self):
        now = time.monotonic()
        while self.queue and self.queue[0][0] <= now:
            _, _, c, reply = heapq.heappop(self.queue)
            try:
                c.sock.setblocking(True)
                c.sock.sendall(reply)
                c.sock.setblocking(False)
            except OSError:
                pass   # the client went away; its connection closes on read

    def serve(self, port, seconds):
        lsock = stall_server.listen(self.sel, port)
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            wait = 0.05
            if self.queue:
                wait = min(wait, max(0.0, self.queue[0][0] - time.monotonic()))
            for key, _ in self.sel.select(timeout=wait):
                if key.data is not None:
                    self.receive(key.data)
                    continue
                stall_server.accept(self.sel, lsock, Conn)
            self.send_due()


def main():
    args = parse_args()
    server = Server(args)

    def report(*_):
        print("delayed %d extra %d" % (server.delayed, server.extra), flush=True)
        sys.exit(0)
    signal.signal(signal.SIGTERM, report)
    server.serve(args.port, args.seconds)
    report()


if __name__ == "__main__":
    main()
