/* load_conn: one worker's epoll loop and the state machine of its
 * connections (virtual users), see load_engine.h and load_vu.h; what a
 * connection sends next is load_fill.c, how a request ends load_finish.c.
 *
 * A connection's socket stays registered for input for its whole life;
 * output interest is added only while a connect or a write is blocked, so
 * a keep-alive request costs one send() and one or two recv() calls and no
 * epoll_ctl. Like wrk, the loop reads every ready answer of an epoll batch
 * before it sends the next requests in one go: sending each one at once
 * made the client and the server ping-pong on the CPUs. Requests that
 * become ready inside a batch (answers, failures, reconnects) go on the
 * worker's pending list, so no socket is opened or closed while events for
 * the batch are still being handled.
 *
 * Pipelining (--pipeline N): a connection keeps up to N requests in flight
 * in a FIFO ring (load_vu.h); the answers come in the order the requests
 * were sent (HTTP/1.1 gives no other way to match them), so each answer
 * taken off the stream belongs to the ring's head. When the connection is
 * lost, answers already complete stay counted; the head (the first request
 * without a full answer) is handled as with one request in flight (sent
 * again once if the connection had carried an answer and the head has no
 * byte of its own, else failed), and the requests behind it, which got no
 * byte of answer, are sent again on a new connection. A timeout fails the
 * head alone, the same way. With N = 1 this is the one-request engine. */
#include "load/load_conn.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "load/load_fill.h"
#include "load/load_finish.h"
#include "load/load_h2.h"
#include "load/load_tls.h"
#include "load/load_wait.h"
#include "measure/clock.h"

#define SCAN_NS 10000000u   /* how often expired requests are looked for */

/* --http2: the ring's new requests become streams, and the session
 * writes what it has: load_h2_write's result, a failure counted. */
static int h2_write(struct load_vu *v)
{
    int f = LOAD_FAIL_IO;
    char why[200];
    int rc = load_h2_write(v, &f, why, sizeof(why));
    if (rc < 0)
        load_vu_failed(v, (enum load_fail)f, why);
    return rc;
}

static void vu_write_h2(struct load_vu *v)
{
    int rc = h2_write(v);
    if (rc < 0)
        return;
    if (rc == 1) {
        if (!v->out_armed)
            load_vu_arm_out(v, 1);
        v->st = LOAD_VU_WRITING;
        return;
    }
    if (v->out_armed)
        load_vu_arm_out(v, 0);
    v->st = v->staged ? LOAD_VU_WAITING : LOAD_VU_READING;
}

static void vu_write(struct load_vu *v)
{
    if (v->h2s) {
        vu_write_h2(v);
        return;
    }
    int nw;
    while ((nw = v->qn - v->staged - v->qsent) > 0) {
        ssize_t n;
        if (nw == 1) {
            /* One request (always so without pipelining): one send(), no
             * iovec, as before pipelining came; written whole, it is the
             * last to write. */
            const struct load_req *r = load_vu_req(v, v->qsent);
            size_t left = r->len - v->off;
            n = v->ssl ? load_tls_send(v, r->buf + v->off, left)
                       : send(v->fd, r->buf + v->off, left, MSG_NOSIGNAL);
            if (n == (ssize_t)left) {
                v->off = 0;
                v->qsent++;
                break;
            }
        } else {
            n = load_vu_send_some(v, nw);
        }
        if (n > 0) {
            load_vu_wrote(v, (size_t)n);
        } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
            if (!v->out_armed)
                load_vu_arm_out(v, 1);
            v->st = LOAD_VU_WRITING;
            return;
        } else if (errno == EPROTO && v->ssl) {
            load_vu_failed(v, LOAD_FAIL_TLS, v->w->tls_why);
            return;
        } else if (errno != EINTR) {
            load_vu_failed(v, LOAD_FAIL_IO, strerror(errno));
            return;
        }
    }
    if (v->out_armed)
        load_vu_arm_out(v, 0);
    v->st = v->staged ? LOAD_VU_WAITING : LOAD_VU_READING;
}

/* Open a connection; 0 when connecting or connected, -1 after failing. */
static int vu_connect(struct load_vu *v)
{
    struct load_shared *s = v->w->s;
    if (s->resolve_err[0]) {
        load_vu_failed(v, LOAD_FAIL_CONNECT, s->resolve_err);
        return -1;
    }
    int fd = socket(s->addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        load_vu_failed(v, LOAD_FAIL_CONNECT, strerror(errno));
        return -1;
    }
    int one = 1;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
    v->fd = fd;
    v->reused = 0;
    load_resp_reset_conn(&v->resp);
    struct epoll_event ev;
    memset(&ev, 0, sizeof(ev));
    ev.events = EPOLLIN | EPOLLOUT;
    ev.data.ptr = v;
    v->out_armed = 1;
    if (epoll_ctl(v->w->ep, EPOLL_CTL_ADD, fd, &ev) != 0) {
        load_vu_failed(v, LOAD_FAIL_CONNECT, strerror(errno));
        return -1;
    }
    v->st = LOAD_VU_CONNECTING;
    if (connect(fd, (const struct sockaddr *)&s->addr, s->addrlen) != 0 && errno != EINPROGRESS) {
        load_vu_failed(v, LOAD_FAIL_CONNECT, strerror(errno));
        return -1;
    }
    return 0;   /* writable once connected: the loop goes on from there */
}

/* The connection is ready for requests (TCP connected, and over https the
 * handshake done): the time waiting for it is not the requests' (as wrk
 * times them; with --rate they are timed from their schedule anyway),
 * except with --reconnect, whose point is what a new connection costs a
 * request: timed from the connect, as vu_send stamped it. */
static void vu_ready(struct load_vu *v)
{
    if (v->w->s->o->http2) {
        char why[200];
        if (v->ssl && !load_tls_alpn_h2(v)) {
            load_vu_failed(v, LOAD_FAIL_H2_PROTOCOL, "ALPN: the server did not choose h2 "
                           "(it may speak HTTP/1.1 only)");
            return;
        }
        if (load_h2_open(v, why, sizeof(why)) != 0) {
            load_vu_failed(v, LOAD_FAIL_IO, why);
            return;
        }
    }
    if (!v->w->s->o->reconnect) {
        uint64_t now = clock_now_ns();
        for (int i = 0; i < v->qn - v->staged; i++)
            load_vu_req(v, i)->t_sent = now;
    }
    vu_write(v);
}

/* https: go on with the handshake; timed apart, and counted as resumed or
 * not, when it is done. */
static void vu_handshake(struct load_vu *v)
{
    char why[300];
    int rc = load_tls_handshake(v, why, sizeof(why));
    if (rc < 0) {
        load_vu_failed(v, LOAD_FAIL_TLS, why);
        return;
    }
    if (rc == 0)
        return;
    struct load_worker *w = v->w;
    uint64_t now = clock_now_ns();
    hist_record(w->c.hs, now > v->t_hs ? now - v->t_hs : 0);
    w->c.hs_n++;
    w->c.hs_resumed += (uint64_t)load_tls_resumed(v);
    vu_ready(v);
}

static void vu_connected(struct load_vu *v)
{
    int err = 0;
    socklen_t len = sizeof(err);
    if (getsockopt(v->fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0)
        err = errno;
    if (err) {
        load_vu_failed(v, LOAD_FAIL_CONNECT, strerror(err));
        return;
    }
    if (v->w->s->o->tls) {
        v->st = LOAD_VU_HANDSHAKE;
        v->t_hs = clock_now_ns();
        vu_handshake(v);
        return;
    }
    vu_ready(v);
}

/* Send the requests still to write (the pending list's entries). */
static void vu_send(struct load_vu *v)
{
    if (v->st != LOAD_VU_PENDING)
        return;   /* done since it was queued */
    /* flush_pending took it off the list: a connect that fails at once
     * must put the next request back on it, which PENDING would stop (an
     * unresolvable host hung the run). */
    v->st = LOAD_VU_IDLE;   /* off the pending list */
    uint64_t now = clock_now_ns();
    uint64_t deadline = now + v->w->timeout_ns;
    /* The first to write (the only one at depth 1), then the others. */
    struct load_req *r = load_vu_req(v, v->qsent);
    r->t_sent = now;
    r->deadline = deadline;
    for (int i = v->qsent + 1; v->qcap > 1 && i < v->qn - v->staged; i++) {
        r = load_vu_req(v, i);
        r->t_sent = now;
        r->deadline = deadline;
    }
    if (v->fd < 0) {
        v->off = 0;
        vu_connect(v);
        return;
    }
    vu_write(v);
}

/* Take the answers in rbuf[0..n) off the stream, each for the ring's
 * head; 0 when answers are still to come on the open connection (read
 * on), 1 when not (nothing in flight, or the connection is gone). */
static int vu_take(struct load_vu *v, size_t n)
{
    char why[160];
    const char *b = v->w->rbuf;
    size_t at = 0;
    for (;;) {
        ssize_t used = load_resp_take(&v->resp, b + at, n - at, why, sizeof(why));
        if (used < 0) {
            load_vu_failed(v, LOAD_FAIL_IO, why);
            return 1;
        }
        if (!v->resp.complete)
            return 0;
        at += (size_t)used;
        load_vu_answered(v, clock_now_ns());
        if (v->fd < 0)
            return 1;
        if (v->qsent == 0) {   /* always so at depth 1 */
            if (at < n)
                load_vu_close(v);   /* bytes nobody asked for: the next request reconnects */
            return 1;
        }
        if (at == n)
            return 0;
    }
}

/* --http2: a read that ends the connection (n: 0 closed, -1 errno), or
 * a protocol error (f, why): answers complete before it count, the rest
 * as after a lost HTTP/1.1 connection. */
static void vu_h2_end(struct load_vu *v, enum load_fail f, const char *why)
{
    load_h2_drain(v);
    if (v->fd < 0)
        return;
    if (v->qn == 0 || v->qsent == 0) {
        load_vu_close(v);   /* nothing in flight: the next request reconnects */
        return;
    }
    load_vu_failed(v, f, why);
    load_h2_drain(v);
}

/* One read into the worker's buffer, through TLS or not, EINTR retried:
 * recv()'s result. */
static ssize_t vu_recv(struct load_vu *v)
{
    ssize_t n;
    do
        n = v->ssl ? load_tls_recv(v, v->w->rbuf, LOAD_RBUF) : recv(v->fd, v->w->rbuf, LOAD_RBUF, 0);
    while (n < 0 && errno == EINTR);
    return n;
}

static void vu_readable_h2(struct load_vu *v)
{
    for (;;) {
        ssize_t n = vu_recv(v);
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            break;
        if (n <= 0) {
            vu_h2_end(v, n < 0 && errno == EPROTO && v->ssl ? LOAD_FAIL_TLS : LOAD_FAIL_IO,
                      n == 0 ? "connection closed without an answer"
                      : errno == EPROTO && v->ssl ? v->w->tls_why : strerror(errno));
            return;
        }
        int f = LOAD_FAIL_IO;
        char why[200];
        if (load_h2_read(v, v->w->rbuf, (size_t)n, &f, why, sizeof(why)) != 0) {
            vu_h2_end(v, (enum load_fail)f, why);
            return;
        }
        load_h2_drain(v);
        if (v->fd < 0)
            return;
        if ((size_t)n < LOAD_RBUF && !(v->ssl && load_tls_pending(v)))
            break;
    }
    if (!load_h2_alive(v)) {
        if (v->h2_broken) {   /* a protocol error of the server's */
            char why[160];
            snprintf(why, sizeof(why), "%s", v->h2_broken);
            vu_h2_end(v, LOAD_FAIL_H2_PROTOCOL, why);
            if (v->fd >= 0)
                load_vu_close(v);
            return;
        }
        /* After a GOAWAY, with its streams over: requests still to send go
         * on a new connection. */
        load_h2_drain(v);
        if (v->fd < 0)
            return;
        load_vu_lost(v);
        if (v->qn - v->staged > 0 && v->st != LOAD_VU_PENDING)
            load_pend_push(v->w, v);
    }
}

static void vu_readable(struct load_vu *v)
{
    if (v->h2s) {
        vu_readable_h2(v);
        return;
    }
    for (;;) {
        ssize_t n = vu_recv(v);
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        if (v->qsent == 0) {
            /* An idle keep-alive connection: closed by the server, or
             * unsolicited bytes. Either way the next request reconnects. */
            load_vu_close(v);
            return;
        }
        if (n < 0) {
            if (errno == EPROTO && v->ssl)
                load_vu_failed(v, LOAD_FAIL_TLS, v->w->tls_why);
            else
                load_vu_failed(v, LOAD_FAIL_IO, strerror(errno));
            return;
        }
        if (n == 0 && v->resp.seen == 0) {
            load_vu_failed(v, LOAD_FAIL_IO, "connection closed without an answer");
            return;
        }
        if (vu_take(v, (size_t)n) != 0)
            return;
        /* Level-triggered: epoll says when the socket has more; bytes
         * OpenSSL has already decrypted it cannot see. */
        if (n == 0 || ((size_t)n < LOAD_RBUF && !(v->ssl && load_tls_pending(v))))
            return;
    }
}

static void vu_event(struct load_vu *v, uint32_t events)
{
    if (v->fd < 0)
        return;
    if (v->st == LOAD_VU_CONNECTING) {
        if (events & (EPOLLOUT | EPOLLERR | EPOLLHUP))
            vu_connected(v);
        return;
    }
    if (v->st == LOAD_VU_HANDSHAKE) {
        vu_handshake(v);
        return;
    }
    /* --http2: the session may want to write (acknowledgements, window
     * updates) with nothing of ours to send. */
    if (v->h2s && (events & EPOLLOUT) && v->st != LOAD_VU_WRITING &&
        v->st != LOAD_VU_PENDING) {
        int rc = h2_write(v);
        if (rc < 0)
            return;
        if (rc == 0 && v->out_armed)
            load_vu_arm_out(v, 0);
    }
    int rd;
    if (v->st == LOAD_VU_WRITING) {
        if (events & (EPOLLOUT | EPOLLERR | EPOLLHUP)) {
            vu_write(v);
            return;
        }
        /* Pipelining: answers to the requests already written are read
         * while the rest waits for room, or both sides could block. */
        rd = (events & EPOLLIN) && v->qsent > 0;
    } else {
        rd = (events & (EPOLLIN | EPOLLERR | EPOLLHUP)) != 0;
    }
    if (rd)   /* one call site: the compiler inlines vu_readable */
        vu_readable(v);
}

static void flush_pending(struct load_worker *w)
{
    struct load_vu *v = w->pend_head;
    w->pend_head = NULL;
    w->pend_tail = &w->pend_head;
    while (v) {
        struct load_vu *next = v->next;
        vu_send(v);
        v = next;
    }
}

/* Requests past --timeout fail; with --rate, waiting VUs whose time has
 * come are sent (or dropped when the run was interrupted). */
static void scan(struct load_worker *w, uint64_t now, int timeouts)
{
    char why[64];
    snprintf(why, sizeof(why), "no answer within %lld ms", (long long)w->s->o->timeout_ms);
    w->next_wake = UINT64_MAX;
    for (int64_t i = 0; i < w->nvu; i++) {
        struct load_vu *v = &w->vus[i];
        if (v->staged)
            load_scan_staged(w, v, now);
        if (timeouts && v->qn > 0 && now >= load_vu_head(v)->deadline &&
            (v->st == LOAD_VU_CONNECTING || v->st == LOAD_VU_HANDSHAKE ||
             v->st == LOAD_VU_WRITING ||
             v->st == LOAD_VU_READING || (v->st == LOAD_VU_WAITING && v->qsent > 0)))
            load_vu_failed(v, LOAD_FAIL_TIMEOUT, why);
    }
}

void *load_worker_main(void *arg)
{
    struct load_worker *w = arg;
    w->active = w->nvu;
    w->pend_head = NULL;
    w->pend_tail = &w->pend_head;
    w->next_wake = UINT64_MAX;
    w->next_scan = clock_now_ns() + SCAN_NS;
    w->ops = w->s->sc->ops;
    w->timeout_ns = (uint64_t)w->s->o->timeout_ms * 1000000u;
    w->rated = w->s->o->rate > 0;
    if (w->c.tl)
        timeline_init(w->c.tl, w->s->t_start, w->s->o->timeline_ns);
    for (int64_t i = 0; i < w->nvu; i++)
        load_vu_fill(&w->vus[i], clock_now_ns());
    struct epoll_event ev[256];
    while (w->active > 0) {
        flush_pending(w);
        if (w->active == 0)
            break;
        int n = load_wait_events(w, ev, 256);
        if (n < 0 && errno != EINTR)
            break;
        for (int i = 0; i < n; i++)
            vu_event(ev[i].data.ptr, ev[i].events);
        uint64_t now = clock_now_ns();
        int timeouts = now >= w->next_scan;
        if (timeouts || now >= w->next_wake || load_interrupted)
            scan(w, now, timeouts);
        if (timeouts)
            w->next_scan = now + SCAN_NS;
    }
    atomic_fetch_add(&w->s->workers_done, 1);
    return NULL;
}
