#!/usr/bin/env python3
"""stall_server.py PORT [options]: a minimal stand-in for the shortener
service, for testing "kvtest shortener load" against a server that
misbehaves on purpose.

It serves the two calls the load generator makes, over keep-alive HTTP/1.1:
  POST /link {"url": U}  -> 201 {"short_link": ID}
  GET /link/ID           -> 200 {"link": U}, or 404
and, once every --every-ms, stops reading every socket for --stall-ms (a
server stalled by a GC pause, a checkpoint, a full queue): requests sent
meanwhile wait in the kernel.

Options:
  --stall-ms MS     length of each stall (default 200; 0: never stalls)
  --every-ms MS     one stall per period (default 1000)
  --wrong get|post  answer with a wrong body: GET returns another link than
                    the one created, POST an id that is not one
  --close-every N   close a connection, without warning, after its N-th
                    answer (as a server with a keep-alive limit does)
  --seconds S       exit after S seconds (default 120), so a test that
                    forgets it cannot leave it behind
  --log-connections print "connection N" on stdout as the N-th connection
                    is accepted (how many a client opened)

Binds 127.0.0.1 only. Single-threaded, so a stall stops everything at once.
"""
import argparse
import json
import selectors
import socket
import time


def parse_args():
    p = argparse.ArgumentParser()
    p.add_argument("port", type=int)
    p.add_argument("--stall-ms", type=int, default=200)
    p.add_argument("--every-ms", type=int, default=1000)
    p.add_argument("--wrong", choices=["get", "post"])
    p.add_argument("--close-every", type=int, default=0)
    p.add_argument("--seconds", type=float, default=120)
    p.add_argument("--log-connections", action="store_true")
    return p.parse_args()


class Service:
    def __init__(self, wrong):
        self.links = {}
        self.wrong = wrong

    def answer(self, method, path, body):
        if method == "POST" and path == "/link":
            try:
                url = json.loads(body)["url"]
            except (ValueError, KeyError, TypeError):
                return 400, {"error": "bad request"}
            lid = "s%d" % len(self.links)
            self.links[lid] = url
            if self.wrong == "post":
                return 201, {"short_link": "not/an-id"}
            return 201, {"short_link": lid}
        if method == "GET" and path.startswith("/link/"):
            url = self.links.get(path[len("/link/"):])
            if url is None:
                return 404, {"error": "not found"}
            if self.wrong == "get":
                url += "-other"
            return 200, {"link": url}
        return 404, {"error": "not found"}


def response(status, obj):
    reason = {200: "OK", 201: "Created", 400: "Bad Request", 404: "Not Found"}[status]
    body = json.dumps(obj).encode()
    head = "HTTP/1.1 %d %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n" % (
        status, reason, len(body))
    return head.encode() + body


def take_request(buf):
    """(method, path, body, rest) for the first whole request in buf, or None."""
    end = buf.find(b"\r\n\r\n")
    if end < 0:
        return None
    lines = buf[:end].decode("latin-1").split("\r\n")
    method, path = lines[0].split(" ")[:2]
    length = 0
    for line in lines[1:]:
        name, _, value = line.partition(":")
        if name.strip().lower() == "content-length":
            length = int(value.strip())
    if len(buf) < end + 4 + length:
        return None
    body = buf[end + 4:end + 4 + length]
    return method, path, body, buf[end + 4 + length:]


class Conn:
    def __init__(self, sock):
        self.sock = sock
        self.buf = b""
        self.answers = 0


# The socket plumbing of this server and of delay_server.py: a listening
# socket registered with data None, clients registered with their Conn.

def listen(sel, port):
    """A non-blocking socket listening on 127.0.0.1:port, in sel."""
    lsock = socket.socket()
    lsock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    lsock.bind(("127.0.0.1", port))
    lsock.listen(256)
    lsock.setblocking(False)
    sel.register(lsock, selectors.EVENT_READ, None)
    return lsock


def accept(sel, lsock, conn_class):
    """One waiting client, non-blocking and without Nagle, in sel with
    conn_class(sock) as its data; whether one was there."""
    try:
        s, _ = lsock.accept()
    except BlockingIOError:
        return False
    s.setblocking(False)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    sel.register(s, selectors.EVENT_READ, conn_class(s))
    return True


def receive(sel, c):
    """What c's socket has, added to c.buf: True if anything came; a
    connection the client closed leaves sel and is closed."""
    try:
        data = c.sock.recv(65536)
    except (BlockingIOError, InterruptedError):
        return False
    except OSError:
        data = b""
    if not data:
        sel.unregister(c.sock)
        c.sock.close()
        return False
    c.buf += data
    return True


def serve(args):
    service = Service(args.wrong)
    sel = selectors.DefaultSelector()
    lsock = listen(sel, args.port)
    t0 = time.monotonic()
    period, stall = args.every_ms / 1000.0, args.stall_ms / 1000.0
    accepted = 0
    while time.monotonic() - t0 < args.seconds:
        phase = (time.monotonic() - t0) % period
        if stall > 0 and phase < stall:
            time.sleep(stall - phase)   # read nothing, answer nothing
            continue
        for key, _ in sel.select(timeout=0.01):
            if key.data is None:
                if accept(sel, lsock, Conn) and args.log_connections:
                    accepted += 1
                    print(f"connection {accepted}", flush=True)
                continue
            handle(sel, key.data, service, args.close_every)


def handle(sel, c, service, close_every):
    if not receive(sel, c):
        return
    while True:
        req = take_request(c.buf)
        if req is None:
            return
        method, path, body, c.buf = req
        status, obj = service.answer(method, path, body)
        c.sock.setblocking(True)
        c.sock.sendall(response(status, obj))
        c.sock.setblocking(False)
        c.answers += 1
        if close_every and c.answers % close_every == 0:
            sel.unregister(c.sock)
            c.sock.close()
            return


if __name__ == "__main__":
    serve(parse_args())
