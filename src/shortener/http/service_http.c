/* service_http: libmicrohttpd glue of the shortener. See service_http.h.
 *
 * A pool beats thread-per-connection here: slow or idle keep-alive clients
 * cost no thread, and a worker count independent of the client count keeps
 * SQLite's writer contention bounded. */
#include "shortener/http/service_http.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>

#include "measure/clock.h"
#include "shortener/service/request.h"

struct service_http {
    struct MHD_Daemon *d;
    struct service *s;
    unsigned idle_s;
    atomic_long inflight;     /* requests begun and not completed */
    int nobody_marker;        /* req_cls of requests without a body */
};

/* Per-request upload state for POST /link. */
#define DRAIN_MAX (16u << 20)   /* bytes of an oversized body we drain */

struct upload {
    size_t len;
    size_t drained;   /* bytes discarded past the limit */
    int too_large;
    char buf[REQUEST_BODY_MAX];
};

/* The worker this pool thread claimed. Per-thread by design; tagged with
 * the service so a second service in one process never shares it. */
static _Thread_local struct {
    struct service *s;
    struct service_worker *w;
} tl_worker;

static struct service_worker *thread_worker(struct service *s)
{
    if (tl_worker.s == s)
        return tl_worker.w;
    struct service_worker *w = service_claim_worker(s);
    if (!w)
        return NULL;   /* more pool threads than workers: cannot happen */
    tl_worker.s = s;
    tl_worker.w = w;
    return w;
}

static enum MHD_Result send_reply(struct MHD_Connection *conn, struct service_reply *r)
{
    struct MHD_Response *resp;
    if (r->body) {
        resp = MHD_create_response_from_buffer(r->len, r->body, MHD_RESPMEM_MUST_FREE);
        if (resp)
            r->body = NULL;   /* MHD frees it now (cJSON uses malloc) */
    } else {
        static const char oom[] = "{\"error\":\"out of memory\"}";
        resp = MHD_create_response_from_buffer(sizeof oom - 1, (void *)oom,
                                               MHD_RESPMEM_PERSISTENT);
    }
    service_reply_free(r);
    if (!resp)
        return MHD_NO;
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, "application/json");
    if (r->allow)
        MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, r->allow);
    enum MHD_Result ret = MHD_queue_response(conn, (unsigned int)r->status, resp);
    MHD_destroy_response(resp);
    return ret;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn,
                                  const char *url, const char *method,
                                  const char *version, const char *upload_data,
                                  size_t *upload_data_size, void **req_cls)
{
    (void)version;
    struct service_http *h = cls;
    struct service *s = h->s;
    struct service_reply r;
    struct service_worker *w = thread_worker(s);

    if (*req_cls == NULL) {   /* headers received, body (if any) not yet */
        atomic_fetch_add(&h->inflight, 1);
        *req_cls = &h->nobody_marker;
        /* The headers came in time: from now on the connection may idle
         * for the (longer) keep-alive timeout. */
        MHD_set_connection_option(conn, MHD_CONNECTION_OPTION_TIMEOUT, h->idle_s);
        if (!w)
            return MHD_NO;
        struct request_match m;
        request_match(method, url, &m);
        if (m.route != ROUTE_CREATE || !m.method_ok)
            /* No body wanted. Answer on the next call: a response queued
             * this early makes MHD close the connection, which would cost
             * keep-alive clients a reconnect per request. */
            return MHD_YES;
        const char *cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
                                                     MHD_HTTP_HEADER_CONTENT_LENGTH);
        if (cl) {
            char *end;
            errno = 0;
            unsigned long long n = strtoull(cl, &end, 10);
            if (errno == ERANGE || n > REQUEST_BODY_MAX) {
                /* Refuse before reading (and close): a 1 GB upload costs
                 * us nothing. */
                service_handle(s, w, method, url, NULL, 0, 1, &r);
                return send_reply(conn, &r);
            }
        }
        struct upload *up = malloc(sizeof *up);
        if (!up)
            return MHD_NO;
        up->len = 0;
        up->drained = 0;
        up->too_large = 0;
        *req_cls = up;
        return MHD_YES;
    }
    if (*req_cls == &h->nobody_marker) {
        if (*upload_data_size > 0)   /* a stray body: discard it */
            return (*upload_data_size = 0, MHD_YES);
        service_handle(s, w, method, url, NULL, 0, 0, &r);
        return send_reply(conn, &r);
    }

    struct upload *up = *req_cls;
    if (*upload_data_size > 0) {
        size_t n = *upload_data_size;
        *upload_data_size = 0;
        if (!up->too_large && n <= REQUEST_BODY_MAX - up->len) {
            memcpy(up->buf + up->len, upload_data, n);
            up->len += n;
            return MHD_YES;
        }
        /* A chunked body past the limit. Drain it and answer 413 at the
         * end (replying early makes the client see a reset instead of the
         * 413), but cut a connection that streams on past DRAIN_MAX. */
        up->too_large = 1;
        up->drained += n;
        if (up->drained > DRAIN_MAX) {
            service_handle(s, w, method, url, NULL, 0, 1, &r);   /* count it */
            service_reply_free(&r);
            return MHD_NO;
        }
        return MHD_YES;
    }
    service_handle(s, w, method, url, up->buf, up->len, up->too_large, &r);
    return send_reply(conn, &r);
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **req_cls,
                         enum MHD_RequestTerminationCode toe)
{
    (void)conn;
    (void)toe;
    struct service_http *h = cls;
    if (*req_cls == NULL)
        return;
    if (*req_cls != &h->nobody_marker)
        free(*req_cls);
    *req_cls = NULL;
    atomic_fetch_sub(&h->inflight, 1);
}

struct service_http *service_http_start(struct service *s, int lfd,
                                        const struct service_http_opts *o)
{
    struct service_http *h = calloc(1, sizeof *h);
    if (!h) {
        close(lfd);
        return NULL;
    }
    h->s = s;
    h->idle_s = o->idle_s;
    /* MHD's connection timeout is an inactivity timeout. It starts as the
     * header timeout, so a client that opens a connection and stalls
     * before its headers are complete is dropped within header_s; the
     * first call of on_request raises it to idle_s. */
    unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ITC;
    h->d = MHD_start_daemon(
        flags, 0, NULL, NULL, on_request, h,
        MHD_OPTION_LISTEN_SOCKET, (MHD_socket)lfd,
        MHD_OPTION_THREAD_POOL_SIZE, o->threads,
        MHD_OPTION_CONNECTION_LIMIT, o->conn_limit,
        MHD_OPTION_CONNECTION_TIMEOUT, o->header_s,
        MHD_OPTION_NOTIFY_COMPLETED, on_completed, h,
        MHD_OPTION_END);
    if (!h->d) {
        close(lfd);
        free(h);
        return NULL;
    }
    return h;
}

void service_http_stop(struct service_http *h)
{
    MHD_socket q = MHD_quiesce_daemon(h->d);
    if (q != MHD_INVALID_SOCKET)
        close(q);
    uint64_t deadline = clock_now_ns() + 5000000000ull;
    while (atomic_load(&h->inflight) > 0 && clock_now_ns() < deadline) {
        struct timespec ts = {0, 5000000};
        nanosleep(&ts, NULL);
    }
    MHD_stop_daemon(h->d);
    free(h);
}
