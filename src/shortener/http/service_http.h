/* service_http: libmicrohttpd around the service's request handler.
 *
 * Threads: libmicrohttpd's internal thread pool (epoll), one per worker.
 * Each pool thread claims one worker on its first request and keeps it, so
 * a SQLite or Valkey connection is only ever used by one thread. */
#ifndef KVTEST_SHORTENER_SERVICE_HTTP_H
#define KVTEST_SHORTENER_SERVICE_HTTP_H

#include "shortener/service/service.h"

struct service_http_opts {
    unsigned threads;        /* pool threads = the service's workers */
    unsigned conn_limit;     /* most connections open at once */
    unsigned header_s;       /* a new connection must deliver its first
                                request's headers before this many seconds
                                without progress */
    unsigned idle_s;         /* then: close after this long idle */
};

struct service_http;

/* Serve s on the listening socket lfd (taken over). NULL if libmicrohttpd
 * would not start (lfd is then closed). */
struct service_http *service_http_start(struct service *s, int lfd,
                                        const struct service_http_opts *o);
/* Stop accepting, give in-flight requests up to 5 s, stop the threads. */
void service_http_stop(struct service_http *h);

#endif
