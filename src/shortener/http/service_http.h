/* service_http: libh2o (Debian's libh2o-evloop) around the service's
 * request handler.
 *
 * Threads: one h2o event loop (epoll) per worker, each accepting on its own
 * copy of the listening socket. Each loop claims one worker at start and
 * keeps it, so a SQLite or Valkey connection is only ever used by one
 * thread. */
#ifndef KVTEST_SHORTENER_SERVICE_HTTP_H
#define KVTEST_SHORTENER_SERVICE_HTTP_H

#include "shortener/service/service.h"

struct ssl_ctx_st;

struct service_http_opts {
    unsigned threads;        /* event loops = the service's workers */
    unsigned conn_limit;     /* most connections open at once (all loops);
                                more are accepted and closed at once */
    unsigned header_s;       /* a new connection must deliver its first
                                request before this many seconds without a
                                byte from it */
    unsigned idle_s;         /* then: the next request must arrive (headers
                                and body) within this long */
    struct ssl_ctx_st *tls;  /* NULL: plain HTTP/1.1; else TLS with ALPN
                                (service_tls.h), h2 or HTTP/1.1 (borrowed) */
};

struct service_http;

/* Serve s on the listening socket lfd (taken over). NULL if the loops
 * would not start (lfd is then closed). */
struct service_http *service_http_start(struct service *s, int lfd,
                                        const struct service_http_opts *o);
/* Stop accepting, give in-flight requests up to 5 s (HTTP/2 connections
 * are sent GOAWAY), stop the threads. */
void service_http_stop(struct service_http *h);

#endif
