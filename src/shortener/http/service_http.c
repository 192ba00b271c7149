/* service_http: libh2o glue of the shortener. See service_http.h.
 *
 * One h2o event loop per thread, each accepting on its own dup of the
 * listening socket: slow or idle keep-alive clients cost no thread, and a
 * loop count independent of the client count keeps SQLite's writer
 * contention bounded. The handler runs service_handle() synchronously in
 * the loop thread with the worker that thread claimed. */
#include "shortener/http/service_http.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

/* Debian's libh2o-evloop is built for epoll; its headers need told so
 * (otherwise they expect libuv's). */
#define H2O_USE_EPOLL 1
#include <h2o.h>
#include <h2o/http1.h>
#include <h2o/http2.h>

#include "measure/clock.h"
#include "shortener/service/request.h"

struct loop_thread {
    struct service_http *h;
    pthread_t tid;
    int inited;
    int started;
    h2o_evloop_t *loop;
    h2o_context_t ctx;
    h2o_accept_ctx_t actx;
    h2o_socket_t *listener;
    h2o_timeout_t header_timeout;
    h2o_linklist_t conns;          /* struct conn of this loop */
    struct service_worker *w;      /* claimed once, used by this thread only */
};

struct service_http {
    h2o_globalconf_t conf;
    h2o_hostconf_t *host;
    struct service *s;
    unsigned nthreads;
    unsigned conn_limit;
    struct ssl_ctx_st *tls;        /* borrowed; NULL: plain HTTP */
    atomic_uint nconns;            /* open connections, all loops */
    atomic_int stopping;
    uint64_t stop_deadline_ns;     /* written before stopping is set */
    struct loop_thread *t;
};

/* One accepted connection, for the header timeout, the connection count
 * and the orderly stop. Freed when h2o closes the socket (on_close). */
struct conn {
    h2o_linklist_t link;
    h2o_timeout_entry_t header_to; /* linked until the first request */
    h2o_socket_t *sock;
    struct loop_thread *t;
    size_t seen;                   /* sock->input->size at the last check */
};

struct handler {
    h2o_handler_t super;
    struct service_http *h;
};

static struct loop_thread *thread_of(h2o_req_t *req)
{
    return H2O_STRUCT_FROM_MEMBER(struct loop_thread, ctx, req->conn->ctx);
}

static const char *reason(int status)
{
    switch (status) {
    case 200: return "OK";
    case 201: return "Created";
    case 400: return "Bad Request";
    case 404: return "Not Found";
    case 405: return "Method Not Allowed";
    case 413: return "Payload Too Large";
    case 414: return "URI Too Long";
    case 431: return "Request Header Fields Too Large";
    case 500: return "Internal Server Error";
    case 503: return "Service Unavailable";
    default: return "Unknown";
    }
}

/* The request's method and path as NUL-terminated strings in the request
 * pool (h2o_strdup adds the NUL), the path as request_decode_path() gives
 * it, so request_match() sees what it always saw. */
static void request_strings(h2o_req_t *req, const char **method, const char **path)
{
    h2o_iovec_t p = req->input.path;
    *method = h2o_strdup(&req->pool, req->input.method.base, req->input.method.len).base;
    char *ps = h2o_strdup(&req->pool, p.base, p.len).base;
    request_decode_path(ps, p.len, ps);   /* in place: decoding only shrinks */
    *path = ps;
}

static void send_json(h2o_req_t *req, int status, const char *body, size_t len,
                      const char *allow)
{
    req->res.status = status;
    req->res.reason = reason(status);
    req->res.content_length = len;
    h2o_add_header(&req->pool, &req->res.headers, H2O_TOKEN_CONTENT_TYPE, "Content-Type",
                   H2O_STRLIT("application/json"));
    if (allow)
        h2o_add_header(&req->pool, &req->res.headers, H2O_TOKEN_ALLOW, "Allow", allow,
                       strlen(allow));
    h2o_send_inline(req, body, len);   /* copies the body; no body for HEAD */
}

static void send_reply(h2o_req_t *req, struct service_reply *r)
{
    static const char oom[] = "{\"error\":\"out of memory\"}";
    if (r->body)
        send_json(req, r->status, r->body, r->len, r->allow);
    else
        send_json(req, r->status, oom, sizeof oom - 1, r->allow);
    service_reply_free(r);
}

/* Request heads over this many bytes get 431, as under libmicrohttpd
 * (whose 32 KiB connection buffer set the limit). h2o itself reads up to
 * H2O_MAX_REQLEN (408 KiB) and answers 400 beyond that. */
#define HEAD_MAX 32768
/* A request target over this many bytes gets 414: no route of ours is
 * longer than /link/ and a 64-character id, and 8 KiB is what proxies
 * commonly pass (nginx's large_client_header_buffers). */
#define TARGET_MAX 8192

static size_t head_size(const h2o_req_t *req)
{
    size_t n = req->input.method.len + req->input.path.len + req->input.authority.len;
    for (size_t i = 0; i < req->headers.size; i++)
        n += req->headers.entries[i].name->len + req->headers.entries[i].value.len + 4;
    return n;
}

static int on_req(h2o_handler_t *self, h2o_req_t *req)
{
    struct service_http *h = ((struct handler *)self)->h;
    struct loop_thread *t = thread_of(req);
    struct conn *c = req->conn->callbacks->get_socket(req->conn)->on_close.data;
    if (h2o_timeout_is_linked(&c->header_to))   /* headers in: idle_s from now */
        h2o_timeout_unlink(&c->header_to);
    if (head_size(req) > HEAD_MAX) {
        static const char big[] = "{\"error\":\"request header fields too large\"}";
        req->http1_is_persistent = 0;
        send_json(req, 431, big, sizeof big - 1, NULL);
        return 0;
    }
    if (req->input.path.len > TARGET_MAX) {
        static const char big[] = "{\"error\":\"request target longer than 8192 bytes\"}";
        req->http1_is_persistent = 0;
        send_json(req, 414, big, sizeof big - 1, NULL);
        return 0;
    }
    const char *method, *path;
    request_strings(req, &method, &path);
    /* service_handle reads the body (and too_large) for a create only, as
     * before; h2o reads at most REQUEST_BODY_MAX + 1 bytes (h2o_conf):
     * one more than the limit means too large. */
    const char *body = req->entity.base;
    size_t len = req->entity.len;
    int too_large = len > REQUEST_BODY_MAX;
    /* The Host (HTTP/1.1) or :authority (HTTP/2): what a link back to
     * this service would name (request_is_self_link). Only a create reads
     * it: a lookup, the hot path, does not pay for the copy. */
    const char *authority = NULL;
    if (h2o_memis(req->method.base, req->method.len, H2O_STRLIT("POST")))
        authority = h2o_strdup(&req->pool, req->authority.base, req->authority.len).base;
    struct service_reply r;
    service_handle(h->s, t->w, method, path, authority, too_large ? NULL : body,
                   too_large ? 0 : len, too_large, &r);
    send_reply(req, &r);
    return 0;
}

/* h2o answers some requests itself (400 for a broken Content-Length or
 * chunk, 413 past the body limit, 417) through the host's fallback path.
 * This filter gives those answers a JSON body; a too-large create goes to
 * service_handle, which counts it and words it as always. */
struct json_ostream {
    h2o_ostream_t super;
    char *body;
    size_t len;
};

static void json_do_send(h2o_ostream_t *self, h2o_req_t *req, h2o_iovec_t *bufs,
                         size_t bufcnt, h2o_send_state_t state)
{
    struct json_ostream *o = (struct json_ostream *)self;
    h2o_iovec_t b = h2o_iovec_init(o->body, o->len);
    if (o->body == NULL) {   /* h2o's own text, e.g. "broken content-length header" */
        char txt[128] = "error";
        if (bufcnt > 0 && bufs[0].len < sizeof txt && !memchr(bufs[0].base, '"', bufs[0].len)) {
            memcpy(txt, bufs[0].base, bufs[0].len);
            txt[bufs[0].len] = '\0';
        }
        char *j = h2o_mem_alloc_pool(&req->pool, sizeof txt + 16);
        b = h2o_iovec_init(j, (size_t)snprintf(j, sizeof txt + 16, "{\"error\":\"%s\"}", txt));
    }
    int head = h2o_memis(req->input.method.base, req->input.method.len, H2O_STRLIT("HEAD"));
    /* A HEAD's Content-Length may only be the GET's (RFC 9110 8.6), and
     * h2o gives a HEAD no text to word it from: none is sent. */
    req->res.content_length = head ? SIZE_MAX : b.len;
    h2o_ostream_send_next(self, req, &b, head ? 0 : 1, state);
}

static void on_setup_error(h2o_filter_t *self, h2o_req_t *req, h2o_ostream_t **slot)
{
    struct service_http *h = *(struct service_http **)(self + 1);
    struct json_ostream *o = (void *)h2o_add_ostream(req, sizeof *o, slot);
    o->super.do_send = json_do_send;
    o->body = NULL;
    const char *method, *path;
    request_strings(req, &method, &path);
    struct request_match m;
    request_match(method, path, &m);
    if (req->res.status == 413 && m.route == ROUTE_CREATE && m.method_ok) {
        struct service_reply r;
        service_handle(h->s, thread_of(req)->w, method, path, NULL, NULL, 0, 1, &r);
        if (r.body) {
            o->body = h2o_strdup(&req->pool, r.body, r.len).base;
            o->len = r.len;
        }
        service_reply_free(&r);
    }
    h2o_set_header(&req->pool, &req->res.headers, H2O_TOKEN_CONTENT_TYPE,
                   H2O_STRLIT("application/json"), 1);
    slot = &o->super.next;
    h2o_setup_next_ostream(req, slot);
}

static void on_conn_close(void *data)
{
    struct conn *c = data;
    if (h2o_timeout_is_linked(&c->header_to))
        h2o_timeout_unlink(&c->header_to);
    h2o_linklist_unlink(&c->link);
    atomic_fetch_sub(&c->t->h->nconns, 1);
    free(c);
}

/* A connection that has not finished its first request's headers: closed
 * when header_s pass without a byte from it. Progress is the size of the
 * unparsed head in sock->input, which HTTP/1 keeps whole until the head is
 * complete: h2o 2.2's sock->bytes_read holds the last read's size, not a
 * running total, so equal pieces looked like none. shutdown() makes
 * h2o's own read fail, so h2o frees the connection its usual way. */
static void on_header_timeout(h2o_timeout_entry_t *e)
{
    struct conn *c = H2O_STRUCT_FROM_MEMBER(struct conn, header_to, e);
    if (c->sock->input->size != c->seen) {
        c->seen = c->sock->input->size;
        h2o_timeout_link(c->t->loop, &c->t->header_timeout, &c->header_to);
        return;
    }
    shutdown(h2o_socket_get_fd(c->sock), SHUT_RDWR);
}

static void on_accept(h2o_socket_t *listener, const char *err)
{
    struct loop_thread *t = listener->data;
    struct service_http *h = t->h;
    if (err != NULL)
        return;
    for (int i = 0; i < 16; i++) {   /* a burst, then let the other loops take some */
        h2o_socket_t *sock = h2o_evloop_socket_accept(listener);
        if (sock == NULL)
            return;
        struct conn *c;
        if (atomic_fetch_add(&h->nconns, 1) >= h->conn_limit || !(c = calloc(1, sizeof *c))) {
            /* over the limit: accept and close, as libmicrohttpd did */
            atomic_fetch_sub(&h->nconns, 1);
            h2o_socket_close(sock);
            continue;
        }
        c->sock = sock;
        c->t = t;
        c->header_to.cb = on_header_timeout;
        h2o_linklist_insert(&t->conns, &c->link);
        h2o_timeout_link(t->loop, &t->header_timeout, &c->header_to);
        sock->on_close.cb = on_conn_close;
        sock->on_close.data = c;
        h2o_accept(&t->actx, sock);
    }
}

static int req_busy(h2o_req_t *req, void *cbdata)
{
    (void)cbdata;
    return req->version != 0;   /* headers parsed, response not yet sent */
}

static int loop_busy(struct loop_thread *t)
{
    return H2O_HTTP1_CALLBACKS.foreach_request(&t->ctx, req_busy, NULL) ||
           H2O_HTTP2_CALLBACKS.foreach_request(&t->ctx, req_busy, NULL);
}

/* The orderly stop of one loop: no more accepts, requests in flight get
 * until the deadline, then every connection is closed and freed. */
static void loop_stop(struct loop_thread *t)
{
    struct service_http *h = t->h;
    h2o_socket_read_stop(t->listener);
    h2o_socket_close(t->listener);
    /* HTTP/1.1 answers from now on close; HTTP/2 connections get GOAWAY */
    h2o_context_request_shutdown(&t->ctx);
    while (loop_busy(t) && clock_now_ns() < h->stop_deadline_ns)
        h2o_evloop_run(t->loop, 10);
    for (h2o_linklist_t *n = t->conns.next; n != &t->conns; n = n->next) {
        struct conn *c = H2O_STRUCT_FROM_MEMBER(struct conn, link, n);
        shutdown(h2o_socket_get_fd(c->sock), SHUT_RDWR);
    }
    uint64_t end = clock_now_ns() + 1000000000ull;
    while (!h2o_linklist_is_empty(&t->conns) && clock_now_ns() < end)
        h2o_evloop_run(t->loop, 10);
    if (!h2o_linklist_is_empty(&t->conns))
        return;   /* a connection h2o would not let go: leave the loop be */
    h2o_evloop_run(t->loop, 0);   /* the closes h2o deferred */
    /* h2o_context_request_shutdown left a one-second timer to resend
     * GOAWAY; with every connection gone it has nothing to do, and
     * h2o_context_dispose asserts that no timer is left. */
    if (h2o_timeout_is_linked(&t->ctx.http2._graceful_shutdown_timeout))
        h2o_timeout_unlink(&t->ctx.http2._graceful_shutdown_timeout);
    h2o_timeout_dispose(t->loop, &t->header_timeout);
    h2o_context_dispose(&t->ctx);
    free(t->ctx.queue);   /* h2o 2.2.5's dispose forgets it (fixed upstream later) */
    h2o_evloop_destroy(t->loop);
    /* Socket buffers h2o keeps for reuse in a thread-local list: this
     * thread ends, so they would leak. */
    h2o_mem_recycle_t *a = &h2o_socket_buffer_prototype.allocator;
    while (a->cnt > 0)
        free(h2o_mem_alloc_recycle(a, 0));
}

static void *loop_main(void *arg)
{
    struct loop_thread *t = arg;
    /* Polls the stop flag every 100 ms: simpler than a wake-up pipe. */
    while (!atomic_load(&t->h->stopping))
        h2o_evloop_run(t->loop, 100);
    loop_stop(t);
    return NULL;
}

/* Loop i accepting on fd (taken over). -1 when it cannot be set up. */
static int loop_init(struct service_http *h, unsigned i, int fd, unsigned header_s)
{
    struct loop_thread *t = &h->t[i];
    t->h = h;
    t->w = service_claim_worker(h->s);
    if (t->w == NULL || (t->loop = h2o_evloop_create()) == NULL) {
        close(fd);
        return -1;
    }
    h2o_context_init(&t->ctx, t->loop, &h->conf);
    t->actx.ctx = &t->ctx;
    t->actx.hosts = h->conf.hosts;
    t->actx.ssl_ctx = h->tls;
    h2o_linklist_init_anchor(&t->conns);
    h2o_timeout_init(t->loop, &t->header_timeout, (uint64_t)header_s * 1000);
    t->listener = h2o_evloop_socket_create(t->loop, fd, H2O_SOCKET_FLAG_DONT_READ);
    t->listener->data = t;
    h2o_socket_read_start(t->listener, on_accept);
    t->inited = 1;
    return 0;
}

static void h2o_conf(struct service_http *h, const struct service_http_opts *o)
{
    h2o_config_init(&h->conf);
    h->conf.server_name = h2o_iovec_init(H2O_STRLIT(""));   /* no Server header */
    h->conf.max_request_entity_size = REQUEST_BODY_MAX + 1;   /* see on_req */
    /* h2o's request timeout runs from the moment a connection waits for a
     * request until that request is read: the keep-alive idle limit (and a
     * bound on a slow first request, whose header timeout is our own). */
    h->conf.http1.req_timeout = (uint64_t)o->idle_s * 1000;
    h->conf.http1.upgrade_to_http2 = 0;
    h->conf.http2.idle_timeout = (uint64_t)o->idle_s * 1000;   /* as HTTP/1.1's */
    h->host = h2o_config_register_host(&h->conf, h2o_iovec_init(H2O_STRLIT("default")), 65535);
    h2o_pathconf_t *p = h2o_config_register_path(h->host, "/", 0);
    struct handler *hd = (void *)h2o_create_handler(p, sizeof *hd);
    hd->super.on_req = on_req;
    hd->h = h;
    h2o_filter_t *f = h2o_create_filter(&h->host->fallback_path,
                                        sizeof *f + sizeof(struct service_http *));
    f->on_setup_ostream = on_setup_error;
    *(struct service_http **)(f + 1) = h;
}

struct service_http *service_http_start(struct service *s, int lfd,
                                        const struct service_http_opts *o)
{
    struct service_http *h = calloc(1, sizeof *h);
    struct loop_thread *t = o->threads ? calloc(o->threads, sizeof *t) : NULL;
    if (!h || !t) {
        free(h);
        free(t);
        close(lfd);
        return NULL;
    }
    h->s = s;
    h->t = t;
    h->nthreads = o->threads;
    h->conn_limit = o->conn_limit;
    h->tls = o->tls;
    h2o_conf(h, o);
    int ok = 1;
    unsigned i;
    for (i = 0; i < o->threads && ok; i++) {   /* the last loop takes lfd itself */
        int fd = i + 1 < o->threads ? dup(lfd) : lfd;
        ok = fd >= 0 && loop_init(h, i, fd, o->header_s) == 0;
    }
    if (!ok && i < o->threads)
        close(lfd);   /* a loop failed before the last one took it */
    for (i = 0; i < o->threads && ok; i++)
        t[i].started = ok = pthread_create(&t[i].tid, NULL, loop_main, &t[i]) == 0;
    if (!ok) {
        service_http_stop(h);
        return NULL;
    }
    return h;
}

void service_http_stop(struct service_http *h)
{
    h->stop_deadline_ns = clock_now_ns() + 5000000000ull;
    atomic_store(&h->stopping, 1);
    for (unsigned i = 0; i < h->nthreads; i++) {
        if (h->t[i].started)
            pthread_join(h->t[i].tid, NULL);
        else if (h->t[i].inited)   /* start failed: stop it from here */
            loop_stop(&h->t[i]);
    }
    h2o_config_dispose(&h->conf);
    free(h->t);
    free(h);
}
