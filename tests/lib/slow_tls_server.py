#!/usr/bin/env python3
"""slow_tls_server.py PORT CERT KEY [--delay S] [--seconds S] [--hangup]: an
HTTPS server whose TLS handshake cannot finish before --delay seconds: each
accepted connection waits that long before the server reads the client's
hello. Then every GET on the keep-alive connection is answered at once
(200, body "ok"). So a client's handshake time is at least --delay, and its
requests' latencies are far below it: a client that counted the handshake
in a request's latency is caught.

--hangup: after the wait the server reads the client's hello and closes
the connection instead of answering it (a handshake cut off midway).

Binds 127.0.0.1 only; a thread per connection; exits after --seconds
(default 60), so a test that forgets it cannot leave it behind.
"""
import argparse
import http.server
import ssl
import sys
import threading
import time


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):  # noqa: N802 (http.server's name)
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")

    def log_message(self, fmt, *args):
        pass


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, port, ctx, delay, hangup):
        super().__init__(("127.0.0.1", port), Handler)
        self.ctx = ctx
        self.delay = delay
        self.hangup = hangup

    def finish_request(self, request, client_address):
        # In the connection's own thread: the wait, then the handshake.
        time.sleep(self.delay)
        if self.hangup:
            request.recv(5)   # the record header of the client's hello
            return            # the server closes the socket
        try:
            tls = self.ctx.wrap_socket(request, server_side=True)
        except (ssl.SSLError, OSError):
            return
        super().finish_request(tls, client_address)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("port", type=int)
    p.add_argument("cert")
    p.add_argument("key")
    p.add_argument("--delay", type=float, default=1.0)
    p.add_argument("--seconds", type=float, default=60)
    p.add_argument("--hangup", action="store_true")
    a = p.parse_args()
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(a.cert, a.key)
    srv = Server(a.port, ctx, a.delay, a.hangup)
    threading.Timer(a.seconds, srv.shutdown).start()
    print("ready", flush=True)
    srv.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
