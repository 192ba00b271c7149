#!/usr/bin/python3
"""h2_server.py PORT [options]: a stand-in shortener service over HTTP/2
(h2c, prior knowledge, through the h2 library: Debian's python3-h2, hence
/usr/bin/python3), for testing "kvtest shortener load --http2" against a
server that answers out of order or misbehaves on purpose.

  POST /link {"url": U} -> 201 {"short_link": ID}
  GET /link/ID          -> 200 {"link": U}, or 404
  any other GET         -> 200 "ok"

Options:
  --reverse K      hold complete requests until K are waiting on the
                   connection (or 50 ms passed with fewer), then answer them
                   newest first (answers out of the order the requests were
                   sent)
  --reset-every N  reset every N-th stream of a connection (RST_STREAM,
                   INTERNAL_ERROR) instead of answering it
  --goaway-after N after a connection's N-th answer, send GOAWAY whose last
                   stream is that one (the streams above it are refused),
                   then close once nothing is left to write
  --broken-after N after a connection's N-th answer, send a frame no
                   HTTP/2 peer accepts (HEADERS on stream 0)
  --seconds S      exit after S seconds (default 60)

Prints "ready" when listening. Binds 127.0.0.1; a thread per connection.
"""
import argparse
import json
import socket
import threading
import time

import h2.config
import h2.connection
import h2.errors
import h2.events

LINKS = {}
LOCK = threading.Lock()


def answer(method, path, body):
    if method == "POST" and path == "/link":
        url = json.loads(body or b"{}").get("url", "")
        with LOCK:
            sid = "h2id%06d" % len(LINKS)
            LINKS[sid] = url
        return 201, json.dumps({"short_link": sid}).encode()
    if method == "GET" and path.startswith("/link/"):
        with LOCK:
            url = LINKS.get(path[6:])
        if url is None:
            return 404, b'{"error":"not found"}'
        return 200, json.dumps({"link": url}).encode()
    return 200, b"ok"


def serve_conn(sock, a):
    conn = h2.connection.H2Connection(h2.config.H2Configuration(client_side=False))
    conn.initiate_connection()
    sock.sendall(conn.data_to_send())
    reqs, waiting = {}, []
    answered = streams = 0
    closing = False

    def respond(sid):
        nonlocal answered, closing
        method, path, body = reqs.pop(sid)
        status, out = answer(method, path, body)
        conn.send_headers(sid, [(":status", str(status)), ("content-length", str(len(out))),
                                ("content-type", "application/json")])
        conn.send_data(sid, out, end_stream=True)
        answered += 1
        if a.goaway_after and answered == a.goaway_after:
            conn.close_connection(last_stream_id=sid)
            closing = True
        sock.sendall(conn.data_to_send())
        if a.broken_after and answered == a.broken_after:
            sock.sendall(b"\x00\x00\x00\x01\x05\x00\x00\x00\x00")   # HEADERS, stream 0

    def flush_waiting():
        nonlocal waiting
        for sid in reversed(waiting):
            respond(sid)
        waiting = []

    sock.settimeout(0.05)
    while True:
        try:
            data = sock.recv(65536)
        except socket.timeout:
            # fewer than K came within 50 ms: answer those (reversed too)
            if waiting:
                flush_waiting()
                sock.sendall(conn.data_to_send())
            continue
        except OSError:
            return
        if not data:
            return
        try:
            events = conn.receive_data(data)
        except Exception:   # the h2 library refused the client's bytes
            return
        for ev in events:
            if isinstance(ev, h2.events.RequestReceived):
                h = dict((k.decode() if isinstance(k, bytes) else k,
                          v.decode() if isinstance(v, bytes) else v) for k, v in ev.headers)
                reqs[ev.stream_id] = (h[":method"], h[":path"], b"")
            elif isinstance(ev, h2.events.DataReceived):
                m, p, b = reqs[ev.stream_id]
                reqs[ev.stream_id] = (m, p, b + ev.data)
                conn.acknowledge_received_data(len(ev.data), ev.stream_id)
            elif isinstance(ev, h2.events.StreamEnded):
                if closing:
                    continue
                streams += 1
                if a.reset_every and streams % a.reset_every == 0:
                    reqs.pop(ev.stream_id, None)
                    conn.reset_stream(ev.stream_id, h2.errors.ErrorCodes.INTERNAL_ERROR)
                    continue
                waiting.append(ev.stream_id)
                if len(waiting) >= max(a.reverse, 1):
                    flush_waiting()
        sock.sendall(conn.data_to_send())
        if closing and not waiting:
            time.sleep(0.05)
            return


def main():
    p = argparse.ArgumentParser()
    p.add_argument("port", type=int)
    p.add_argument("--reverse", type=int, default=0)
    p.add_argument("--reset-every", type=int, default=0)
    p.add_argument("--goaway-after", type=int, default=0)
    p.add_argument("--broken-after", type=int, default=0)
    p.add_argument("--seconds", type=float, default=60)
    a = p.parse_args()
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind(("127.0.0.1", a.port))
    ls.listen(64)
    ls.settimeout(0.2)   # (accepted sockets are set apart: serve_conn)
    print("ready", flush=True)
    end = time.monotonic() + a.seconds
    while time.monotonic() < end:
        try:
            s, _ = ls.accept()
        except socket.timeout:
            continue
        s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

        def run(sock=s):
            try:
                serve_conn(sock, a)
            finally:
                sock.close()
        threading.Thread(target=run, daemon=True).start()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
