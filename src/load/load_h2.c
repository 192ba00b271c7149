/* load_h2: HTTP/2 for the load engine through libnghttp2 (see load_h2.h). */
#include "load/load_h2.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>

#include <http_parser.h>
#include <nghttp2/nghttp2.h>

#include "base/errbuf.h"
#include "load/load_finish.h"
#include "load/load_tls.h"
#include "load/load_vu.h"
#include "measure/clock.h"

#define H2_NV_MAX 24

/* The last request read back (submit): its bytes, and its headers
 * pointing into them. A scenario that sends the same bytes again (one
 * --path) is not parsed again: http_parser was 5% of the client's time. */
struct load_h2_last {
    char buf[LOAD_REQ_MAX];
    size_t len;
    nghttp2_nv nv[H2_NV_MAX + 4];
    char names[H2_NV_MAX][32];
    size_t nnv;
    uint32_t body, bodylen;   /* where the body is in buf */
};

int load_h2_init(struct load_vu *v)
{
    v->h2a = calloc((size_t)v->qcap, sizeof(*v->h2a));
    v->h2last = malloc(sizeof(*v->h2last));
    if (v->h2last)
        v->h2last->len = 0;
    return v->h2a && v->h2last ? 0 : -1;
}

void load_h2_free(struct load_vu *v)
{
    load_h2_close(v);
    for (int k = 0; v->h2a && k < v->qcap; k++)
        free(v->h2a[k].body);
    free(v->h2a);
    v->h2a = NULL;
    free(v->h2last);
    v->h2last = NULL;
}

/* ---- nghttp2's callbacks (user_data: the connection) ------------------ */

static struct load_h2_ans *ans_of(nghttp2_session *s, int32_t stream)
{
    return nghttp2_session_get_stream_user_data(s, stream);
}

static int on_header(nghttp2_session *s, const nghttp2_frame *fr, const uint8_t *name,
                     size_t namelen, const uint8_t *value, size_t valuelen, uint8_t flags,
                     void *user)
{
    (void)flags, (void)user;
    struct load_h2_ans *a = ans_of(s, fr->hd.stream_id);
    if (!a || fr->hd.type != NGHTTP2_HEADERS || namelen != 7 || memcmp(name, ":status", 7))
        return 0;
    int st = 0;
    for (size_t i = 0; i < valuelen && i < 4; i++)
        st = value[i] >= '0' && value[i] <= '9' ? st * 10 + (value[i] - '0') : -1000;
    /* 1xx is an interim answer: the final one follows */
    if (st >= 200 && st <= 599 && valuelen == 3)
        a->status = st;
    return 0;
}

static int on_data(nghttp2_session *s, uint8_t flags, int32_t stream, const uint8_t *data,
                   size_t len, void *user)
{
    (void)flags, (void)user;
    struct load_h2_ans *a = ans_of(s, stream);
    if (a)
        load_body_append(&a->body, &a->len, &a->cap, &a->overflow, (const char *)data, len);
    return 0;
}

static int on_close(nghttp2_session *s, int32_t stream, uint32_t code, void *user)
{
    (void)user;
    struct load_h2_ans *a = ans_of(s, stream);
    if (!a)
        return 0;
    a->done = 1;
    a->t1 = clock_now_ns();
    a->stream = 0;
    if (code == NGHTTP2_REFUSED_STREAM) {
        /* Not processed by the server (a GOAWAY's last stream is below it,
         * or it said so): the request may be sent again elsewhere. */
        a->fail = LOAD_FAIL_H2_REFUSED;
        snprintf(a->why, sizeof a->why, "stream refused by the server (not processed)");
    } else if (code != NGHTTP2_NO_ERROR) {
        a->fail = LOAD_FAIL_H2_RESET;
        snprintf(a->why, sizeof a->why, "stream reset by the server: %s",
                 nghttp2_http2_strerror(code));
    } else if (a->status == 0) {
        a->fail = LOAD_FAIL_H2_PROTOCOL;
        snprintf(a->why, sizeof a->why, "stream ended without a :status");
    }
    return 0;
}

/* Our GOAWAY with an error: the server broke the protocol (nghttp2 says
 * how in the frame's debug data); the connection ends, and the request at
 * the head fails as h2_protocol (load_conn.c). */
static int on_frame_sent(nghttp2_session *s, const nghttp2_frame *fr, void *user)
{
    (void)s;
    struct load_vu *v = user;
    if (fr->hd.type != NGHTTP2_GOAWAY || fr->goaway.error_code == NGHTTP2_NO_ERROR)
        return 0;
    if (!v->h2_broken && !(v->h2_broken = malloc(160)))
        return 0;
    snprintf(v->h2_broken, 160, "the server broke HTTP/2: %s (%.*s)",
             nghttp2_http2_strerror(fr->goaway.error_code),
             (int)(fr->goaway.opaque_data_len < 100 ? fr->goaway.opaque_data_len : 100),
             (const char *)fr->goaway.opaque_data);
    return 0;
}

/* ---- requests: the scenario's HTTP/1.1 bytes as HTTP/2 ----------------- */

/* What http_parser found in one request: its target, headers and body,
 * pointing into the request's buffer. */
struct h2_req {
    const char *url;
    size_t urllen;
    const char *hname[H2_NV_MAX], *hval[H2_NV_MAX];
    size_t hnlen[H2_NV_MAX], hvlen[H2_NV_MAX];
    int nh;
    const char *body;
    size_t bodylen;
    int complete;
};

static int rq_url(http_parser *p, const char *at, size_t n)
{
    struct h2_req *q = p->data;
    if (!q->url)
        q->url = at;
    q->urllen += n;   /* one buffer: the pieces are contiguous */
    return 0;
}

static int rq_field(http_parser *p, const char *at, size_t n)
{
    struct h2_req *q = p->data;
    if (q->nh >= H2_NV_MAX)
        return 1;
    q->hname[q->nh] = at;
    q->hnlen[q->nh] = n;
    q->hval[q->nh] = "";
    q->hvlen[q->nh] = 0;
    q->nh++;
    return 0;
}

static int rq_value(http_parser *p, const char *at, size_t n)
{
    struct h2_req *q = p->data;
    if (q->nh == 0)
        return 1;
    if (q->hvlen[q->nh - 1] == 0)
        q->hval[q->nh - 1] = at;
    q->hvlen[q->nh - 1] += n;
    return 0;
}

static int rq_body(http_parser *p, const char *at, size_t n)
{
    struct h2_req *q = p->data;
    if (!q->body)
        q->body = at;
    q->bodylen += n;
    return 0;
}

static int rq_done(http_parser *p)
{
    ((struct h2_req *)p->data)->complete = 1;
    return 0;
}

static const http_parser_settings rq_settings = {
    .on_url = rq_url,
    .on_header_field = rq_field,
    .on_header_value = rq_value,
    .on_body = rq_body,
    .on_message_complete = rq_done,
};

/* The body of a request with one (POST): read by nghttp2 as it sends. */
static ssize_t body_read(nghttp2_session *s, int32_t stream, uint8_t *buf, size_t len,
                         uint32_t *flags, nghttp2_data_source *src, void *user)
{
    (void)s, (void)stream, (void)user;
    struct load_req *r = src->ptr;
    size_t blen = r->h2_bodylen, left = blen - r->h2_bodyoff;
    size_t n = left < len ? left : len;
    memcpy(buf, r->buf + r->h2_body + r->h2_bodyoff, n);
    r->h2_bodyoff += n;
    if (r->h2_bodyoff == blen)
        *flags |= NGHTTP2_DATA_FLAG_EOF;
    return (ssize_t)n;
}

/* Lower case, as HTTP/2 requires of header names (into out[cap]). */
static size_t lower(const char *s, size_t n, char *out, size_t cap)
{
    size_t i = 0;
    for (; i < n && i < cap; i++)
        out[i] = s[i] >= 'A' && s[i] <= 'Z' ? (char)(s[i] + 32) : s[i];
    return i;
}

static int is_hop_by_hop(const char *n, size_t len)
{
    static const char *const hop[] = {"host", "connection", "keep-alive", "proxy-connection",
                                      "transfer-encoding", "upgrade", NULL};
    for (int i = 0; hop[i]; i++)
        if (strlen(hop[i]) == len && memcmp(hop[i], n, len) == 0)
            return 1;
    return 0;
}

/* Read request r's bytes back into v->h2last: HTTP/2 headers pointing
 * into its copy of them, and where the body is. 0, or -1: they are not
 * one whole HTTP/1.1 request. */
static int parse(struct load_vu *v, const struct load_req *r)
{
    struct load_h2_last *l = v->h2last;
    l->len = 0;   /* nothing cached unless this one succeeds */
    memcpy(l->buf, r->buf, r->len);
    struct h2_req q;
    memset(&q, 0, sizeof q);
    http_parser p;
    http_parser_init(&p, HTTP_REQUEST);
    p.data = &q;
    size_t used = http_parser_execute(&p, &rq_settings, l->buf, r->len);
    if (!q.complete || used != r->len || HTTP_PARSER_ERRNO(&p) != HPE_OK)
        return -1;
    const struct load_url *u = v->w->s->o->url;
    const char *method = http_method_str((enum http_method)p.method);
    const char *authority = u->hostport;
    size_t alen = strlen(u->hostport), n = 0;
    for (int i = 0; i < q.nh; i++)
        if (q.hnlen[i] == 4 && strncasecmp(q.hname[i], "host", 4) == 0)
            authority = q.hval[i], alen = q.hvlen[i];
#define NV(N, NL, V, VL) \
    l->nv[n++] = (nghttp2_nv){(uint8_t *)(N), (uint8_t *)(V), (NL), (VL), NGHTTP2_NV_FLAG_NONE}
    NV(":method", 7, method, strlen(method));
    NV(":scheme", 7, u->tls ? "https" : "http", u->tls ? 5u : 4u);
    NV(":authority", 10, authority, alen);
    NV(":path", 5, q.url, q.urllen);
    for (int i = 0; i < q.nh; i++) {
        size_t nl = lower(q.hname[i], q.hnlen[i], l->names[i], sizeof l->names[i]);
        if (nl < q.hnlen[i] || is_hop_by_hop(l->names[i], nl))
            continue;
        NV(l->names[i], nl, q.hval[i], q.hvlen[i]);
    }
#undef NV
    l->nnv = n;
    l->body = q.body ? (uint32_t)(q.body - l->buf) : 0;
    l->bodylen = (uint32_t)q.bodylen;
    l->len = r->len;
    return 0;
}

/* Submit request r as a stream whose answer goes to a. The stream id, or
 * a negative nghttp2 error (-1000: the scenario's bytes are not one whole
 * HTTP/1.1 request). */
static int32_t submit(struct load_vu *v, struct load_req *r, struct load_h2_ans *a)
{
    const struct load_h2_last *l = v->h2last;
    if ((l->len != r->len || memcmp(l->buf, r->buf, r->len) != 0) && parse(v, r) != 0)
        return -1000;
    /* the body is sent from the request's own buffer (the same bytes) */
    r->h2_body = l->body;
    r->h2_bodylen = l->bodylen;
    r->h2_bodyoff = 0;
    nghttp2_data_provider dp = {.source = {.ptr = r}, .read_callback = body_read};
    /* nghttp2 copies the headers: the cache may change under the next one */
    return nghttp2_submit_request(v->h2s, NULL, l->nv, l->nnv, l->bodylen ? &dp : NULL, a);
}

/* ---- the session ------------------------------------------------------- */

int load_h2_open(struct load_vu *v, char *why, size_t whycap)
{
    nghttp2_session_callbacks *cb;
    if (nghttp2_session_callbacks_new(&cb) != 0) {
        errbuf_say(why, whycap, "out of memory");
        return -1;
    }
    nghttp2_session_callbacks_set_on_header_callback(cb, on_header);
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cb, on_data);
    nghttp2_session_callbacks_set_on_stream_close_callback(cb, on_close);
    nghttp2_session_callbacks_set_on_frame_send_callback(cb, on_frame_sent);
    int rc = nghttp2_session_client_new(&v->h2s, cb, v);
    nghttp2_session_callbacks_del(cb);
    if (rc == 0 && !v->h2buf && !(v->h2buf = malloc(LOAD_WBUF)))
        rc = NGHTTP2_ERR_NOMEM;
    v->h2len = v->h2off = v->h2restlen = 0;
    if (rc != 0) {
        if (v->h2s)
            nghttp2_session_del(v->h2s);
        v->h2s = NULL;
        errbuf_say(why, whycap, "cannot start an HTTP/2 session: %s", nghttp2_strerror(rc));
        return -1;
    }
    /* No server push. (The server's own limit of concurrent streams
     * holds back any of --streams beyond it: nghttp2 sends them as
     * others end.) */
    nghttp2_settings_entry set[] = {{NGHTTP2_SETTINGS_ENABLE_PUSH, 0}};
    nghttp2_submit_settings(v->h2s, NGHTTP2_FLAG_NONE, set, 1);
    return 0;
}

void load_h2_close(struct load_vu *v)
{
    if (v->h2s)
        nghttp2_session_del(v->h2s);   /* no callbacks: answers not done stay so */
    v->h2s = NULL;
    free(v->h2_broken);
    v->h2_broken = NULL;
    free(v->h2buf);
    v->h2buf = NULL;
    for (int k = 0; v->h2a && k < v->qcap; k++)
        v->h2a[k].stream = 0;
}

int load_h2_alive(const struct load_vu *v)
{
    return v->h2s && (nghttp2_session_want_read(v->h2s) || nghttp2_session_want_write(v->h2s) ||
                      v->h2off < v->h2len);
}

/* Gather what the session has to send into h2buf, frames after frames,
 * up to its size (a frame that does not fit waits in h2rest: nghttp2 keeps
 * it until the next call). 0, or a negative nghttp2 error. */
static int gather(struct load_vu *v)
{
    for (;;) {
        if (v->h2restlen == 0) {
            ssize_t n = nghttp2_session_mem_send(v->h2s, &v->h2rest);
            if (n <= 0)
                return (int)n;
            v->h2restlen = (size_t)n;
        }
        size_t room = LOAD_WBUF - v->h2len, n = v->h2restlen < room ? v->h2restlen : room;
        memcpy(v->h2buf + v->h2len, v->h2rest, n);
        v->h2len += n;
        v->h2rest += n;
        v->h2restlen -= n;
        if (v->h2restlen > 0)
            return 0;   /* full */
    }
}

/* What the session has to write, written, in one write per LOAD_WBUF
 * bytes (a write per frame made a TLS record and a system call of each
 * stream's HEADERS); 0, 1 (the socket is full: the rest waits in h2buf),
 * or -1 with the kind and reason. */
static int flush(struct load_vu *v, int *f, char *why, size_t whycap)
{
    for (;;) {
        while (v->h2off < v->h2len) {
            const char *p = v->h2buf + v->h2off;
            size_t left = v->h2len - v->h2off;
            ssize_t n = v->ssl ? load_tls_send(v, p, left) : send(v->fd, p, left, MSG_NOSIGNAL);
            if (n > 0) {
                v->h2off += (size_t)n;
                continue;
            }
            if (n < 0 && errno == EINTR)
                continue;
            if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
                return 1;
            if (n < 0 && errno == EPROTO && v->ssl) {
                *f = LOAD_FAIL_TLS;
                errbuf_say(why, whycap, "%s", v->w->tls_why);
            } else {
                *f = LOAD_FAIL_IO;
                errbuf_say(why, whycap, "%s", n < 0 ? strerror(errno) : "wrote nothing");
            }
            return -1;
        }
        v->h2off = v->h2len = 0;
        int rc = gather(v);
        if (rc < 0) {
            *f = LOAD_FAIL_IO;
            errbuf_say(why, whycap, "cannot send HTTP/2: %s", nghttp2_strerror(rc));
            return -1;
        }
        if (v->h2len == 0)
            return 0;
    }
}

int load_h2_write(struct load_vu *v, int *f, char *why, size_t whycap)
{
    int end = v->qn - v->staged;
    for (int i = v->qsent; i < end; i++) {
        int k = v->qhead + i;
        k = k >= v->qcap ? k - v->qcap : k;
        struct load_h2_ans *a = &v->h2a[k];
        if (a->done || a->stream)
            continue;   /* answered before the connection was lost, or sent */
        a->status = 0;
        a->fail = LOAD_OK;
        a->overflow = 0;
        a->len = 0;
        int32_t id = submit(v, &v->q[k], a);
        if (id < 0) {
            *f = LOAD_FAIL_IO;
            errbuf_say(why, whycap, id == -1000 ? "the request is not one HTTP/1.1 request "
                       "to send as HTTP/2" : "cannot send as HTTP/2: %s",
                       nghttp2_strerror(id));
            return -1;
        }
        a->stream = id;
    }
    v->qsent = end;
    return flush(v, f, why, whycap);
}

int load_h2_read(struct load_vu *v, const char *buf, size_t n, int *f, char *why,
                 size_t whycap)
{
    ssize_t rc = nghttp2_session_mem_recv(v->h2s, (const uint8_t *)buf, n);
    if (rc < 0) {
        *f = LOAD_FAIL_H2_PROTOCOL;
        errbuf_say(why, whycap, "the server broke HTTP/2: %s", nghttp2_strerror((int)rc));
        return -1;
    }
    /* Acknowledgements (SETTINGS, PING) and window updates go out now. */
    int w = flush(v, f, why, whycap);
    if (w == 1 && !v->out_armed)
        load_vu_arm_out(v, 1);
    return w < 0 ? -1 : 0;
}

void load_h2_drain(struct load_vu *v)
{
    while (v->qn > 0 && v->h2a) {
        struct load_h2_ans *a = &v->h2a[v->qhead];
        if (!a->done)
            return;
        a->done = 0;
        if (a->fail != LOAD_OK) {
            load_vu_stream_failed(v, (enum load_fail)a->fail, a->why, a->t1);
            continue;
        }
        /* The answer into the engine's answer, buffers swapped: no copy
         * (an answer without a body has no buffer: the engine's stays). */
        struct load_resp *r = &v->resp;
        r->len = 0;
        if (a->body) {
            char *b = r->body;
            size_t cap = r->cap;
            r->body = a->body;
            r->cap = a->cap;
            r->len = a->len;
            a->body = b;
            a->cap = cap;
        }
        a->len = 0;
        r->status = a->status;
        r->overflow = a->overflow;
        r->complete = 1;
        r->keep_alive = 1;
        load_vu_answered(v, a->t1);
    }
}
