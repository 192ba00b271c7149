/* load_conn: one worker's epoll loop and the state machine of its
 * connections (virtual users), see load_engine.h and load_conn.h.
 *
 * A connection's socket stays registered for input for its whole life;
 * output interest is added only while a connect or a write is blocked, so
 * a keep-alive request costs one send() and one or two recv() calls and no
 * epoll_ctl. Like wrk, the loop reads every ready answer of an epoll batch
 * before it sends the next requests in one go: sending each one at once
 * made the client and the server ping-pong on the CPUs. Requests that
 * become ready inside a batch (answers, failures, reconnects) go on the
 * worker's pending list, so no socket is opened or closed while events for
 * the batch are still being handled. */
#include "load/load_conn.h"

#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "measure/clock.h"

#define SCAN_NS 10000000u   /* how often expired requests are looked for */

static void vu_next(struct load_vu *v);

static void note_error(struct load_worker *w, struct load_vu *v, enum load_fail f, const char *why)
{
    if (w->c.nerr >= LOAD_NERR_KEEP)
        return;
    /* The target, rebuilt from the request line: "METHOD PATH HTTP/1.1". */
    const char *p = memchr(v->buf, ' ', v->len);
    const char *e = p ? memchr(p + 1, ' ', v->len - (size_t)(p + 1 - v->buf)) : NULL;
    int plen = p && e ? (int)(e - p - 1) : 0;
    struct load_err *er = &w->c.err[w->c.nerr++];
    er->t = clock_now_ns();
    snprintf(er->msg, sizeof(er->msg), "%s http://%s%.*s: %s: %s", w->s->sc->kinds[v->kind],
             w->s->o->url->hostport, plen, p ? p + 1 : "", load_fail_name(f), why);
}

/* Ask the scenario for the VU's next request, built in v->buf; 0 if the VU
 * is done (the run is interrupted or over, or the scenario says so). */
static int vu_choose(struct load_vu *v, uint64_t now)
{
    const struct load_shared *s = v->w->s;
    if (load_interrupted || (s->o->duration > 0 && now >= s->t_end_ns))
        return 0;
    int kind = s->sc->ops->next(v->sc, now, v->buf, sizeof(v->buf), &v->len);
    if (kind == LOAD_NEXT_DONE)
        return 0;
    v->kind = kind;
    return 1;
}

static void pend_push(struct load_worker *w, struct load_vu *v)
{
    v->st = LOAD_VU_PENDING;
    v->next = NULL;
    *w->pend_tail = v;
    w->pend_tail = &v->next;
}

static void vu_close(struct load_vu *v)
{
    if (v->fd >= 0)
        close(v->fd);   /* also leaves the epoll set: nothing dup()s it */
    v->fd = -1;
    v->out_armed = 0;
    v->reused = 0;
}

static void vu_arm_out(struct load_vu *v, int on)
{
    struct epoll_event ev;
    memset(&ev, 0, sizeof(ev));
    ev.events = EPOLLIN | (on ? EPOLLOUT : 0u);
    ev.data.ptr = v;
    epoll_ctl(v->w->ep, EPOLL_CTL_MOD, v->fd, &ev);
    v->out_armed = on;
}

/* Count a finished request (f: LOAD_OK or why it failed) and go on. */
static void vu_finish(struct load_vu *v, enum load_fail f, const char *why)
{
    struct load_worker *w = v->w;
    atomic_fetch_add_explicit(&w->requests_done, 1, memory_order_relaxed);
    if (f == LOAD_OK) {
        w->c.ok[v->kind]++;
    } else {
        w->c.fail[v->kind][f]++;
        note_error(w, v, f, why);
    }
    if (w->s->sc->ops->finished(v->sc, v->kind, f)) {
        if (f == LOAD_OK)
            w->c.tasks_ok++;
        else
            w->c.tasks_failed++;
        atomic_fetch_add_explicit(&w->tasks_done, 1, memory_order_relaxed);
    }
    v->st = LOAD_VU_IDLE;
    vu_next(v);
}

/* A transport failure. A keep-alive connection the server closed while it
 * was idle fails the first write or read of the next request without a
 * byte of answer: that request is sent again, once, on a new connection
 * (as browsers and curl do) rather than counted as a failure. */
static void vu_transport_fail(struct load_vu *v, enum load_fail f, const char *why)
{
    int retry = f == LOAD_FAIL_IO && v->reused && !v->retried && v->resp.seen == 0;
    vu_close(v);
    if (retry) {
        v->retried = 1;
        pend_push(v->w, v);
        return;
    }
    if (v->w->c.tl)   /* no answer, so no latency: counted when it failed */
        timeline_record(v->w->c.tl, clock_now_ns(), TIMELINE_NO_LATENCY, 1);
    vu_finish(v, f, why);
}

static void vu_answered(struct load_vu *v, uint64_t t1)
{
    struct load_worker *w = v->w;
    struct load_resp *r = &v->resp;
    uint64_t t0 = w->s->o->rate > 0 ? v->t_sched : v->t_sent, lat = t1 > t0 ? t1 - t0 : 0;
    hist_record(w->c.h[v->kind], lat);
    char why[256] = "";
    enum load_fail f;
    if (r->overflow) {
        f = LOAD_FAIL_BODY;
        snprintf(why, sizeof(why), "HTTP %d with a body over %d bytes (or out of memory)",
                 r->status, LOAD_BODY_MAX);
    } else {
        f = w->s->sc->ops->check(v->sc, v->kind, r->status, r->body, r->len, why, sizeof(why));
    }
    if (w->c.tl)
        timeline_record(w->c.tl, t1, lat, f != LOAD_OK);
    if (r->keep_alive)
        v->reused = 1;
    else
        vu_close(v);
    vu_finish(v, f, why);
}

static void vu_write(struct load_vu *v)
{
    while (v->off < v->len) {
        ssize_t n = send(v->fd, v->buf + v->off, v->len - v->off, MSG_NOSIGNAL);
        if (n > 0) {
            v->off += (size_t)n;
        } else if (errno == EAGAIN || errno == EWOULDBLOCK) {
            if (!v->out_armed)
                vu_arm_out(v, 1);
            v->st = LOAD_VU_WRITING;
            return;
        } else if (errno != EINTR) {
            vu_transport_fail(v, LOAD_FAIL_IO, strerror(errno));
            return;
        }
    }
    if (v->out_armed)
        vu_arm_out(v, 0);
    v->st = LOAD_VU_READING;
}

/* Open a connection; 0 when connecting or connected, -1 after failing. */
static int vu_connect(struct load_vu *v)
{
    struct load_shared *s = v->w->s;
    if (s->resolve_err[0]) {
        vu_transport_fail(v, LOAD_FAIL_CONNECT, s->resolve_err);
        return -1;
    }
    int fd = socket(s->addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        vu_transport_fail(v, LOAD_FAIL_CONNECT, strerror(errno));
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
        vu_transport_fail(v, LOAD_FAIL_CONNECT, strerror(errno));
        return -1;
    }
    v->st = LOAD_VU_CONNECTING;
    if (connect(fd, (const struct sockaddr *)&s->addr, s->addrlen) != 0 && errno != EINPROGRESS) {
        vu_transport_fail(v, LOAD_FAIL_CONNECT, strerror(errno));
        return -1;
    }
    return 0;   /* writable once connected: the loop goes on from there */
}

static void vu_connected(struct load_vu *v)
{
    int err = 0;
    socklen_t len = sizeof(err);
    if (getsockopt(v->fd, SOL_SOCKET, SO_ERROR, &err, &len) != 0)
        err = errno;
    if (err) {
        vu_transport_fail(v, LOAD_FAIL_CONNECT, strerror(err));
        return;
    }
    v->t_sent = clock_now_ns();
    vu_write(v);
}

/* Send the request in v->buf (the pending list's entries). */
static void vu_send(struct load_vu *v)
{
    uint64_t now = clock_now_ns();
    load_resp_begin(&v->resp);
    v->off = 0;
    v->deadline = now + (uint64_t)v->w->s->o->timeout_ms * 1000000u;
    if (v->fd < 0) {
        vu_connect(v);
        return;
    }
    v->t_sent = now;
    vu_write(v);
}

/* The VU is free: pick its next request and its send time. */
static void vu_next(struct load_vu *v)
{
    struct load_worker *w = v->w;
    struct load_shared *s = w->s;
    const struct load_opts *o = s->o;
    uint64_t now = clock_now_ns(), t = 0;
    if (o->rate > 0) {
        double slot = (double)v->index + (double)v->nsent * (double)o->connections;
        t = s->t_start + (uint64_t)(slot * 1e9 / o->rate);
    }
    if ((o->rate > 0 && o->duration > 0 && t >= s->t_end_ns) || !vu_choose(v, now)) {
        v->st = LOAD_VU_DONE;
        w->active--;
        vu_close(v);
        return;
    }
    v->nsent++;
    v->retried = 0;
    v->t_sched = t;
    if (t > now) {
        v->st = LOAD_VU_WAITING;
        if (t < w->next_wake)
            w->next_wake = t;
        return;
    }
    pend_push(w, v);
}

static void vu_readable(struct load_vu *v)
{
    char why[160];
    for (;;) {
        ssize_t n = recv(v->fd, v->w->rbuf, LOAD_RBUF, 0);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;
        if (v->st != LOAD_VU_READING) {
            /* An idle keep-alive connection: closed by the server, or
             * unsolicited bytes. Either way the next request reconnects. */
            vu_close(v);
            return;
        }
        if (n < 0) {
            vu_transport_fail(v, LOAD_FAIL_IO, strerror(errno));
            return;
        }
        if (n == 0 && v->resp.seen == 0) {
            vu_transport_fail(v, LOAD_FAIL_IO, "connection closed without an answer");
            return;
        }
        if (load_resp_feed(&v->resp, v->w->rbuf, (size_t)n, why, sizeof(why)) != 0) {
            vu_transport_fail(v, LOAD_FAIL_IO, why);
            return;
        }
        if (v->resp.complete) {
            vu_answered(v, clock_now_ns());
            return;
        }
        if (n == 0 || (size_t)n < LOAD_RBUF)
            return;   /* level-triggered: epoll says when there is more */
    }
}

static void vu_event(struct load_vu *v, uint32_t events)
{
    if (v->fd < 0)
        return;
    if (v->st == LOAD_VU_CONNECTING) {
        if (events & (EPOLLOUT | EPOLLERR | EPOLLHUP))
            vu_connected(v);
    } else if (v->st == LOAD_VU_WRITING) {
        if (events & (EPOLLOUT | EPOLLERR | EPOLLHUP))
            vu_write(v);
    } else if (events & (EPOLLIN | EPOLLERR | EPOLLHUP)) {
        vu_readable(v);
    }
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
        if (v->st == LOAD_VU_WAITING) {
            if (load_interrupted) {
                v->st = LOAD_VU_DONE;
                w->active--;
                vu_close(v);
            } else if (v->t_sched <= now) {
                pend_push(w, v);
            } else if (v->t_sched < w->next_wake) {
                w->next_wake = v->t_sched;
            }
        } else if (timeouts && now >= v->deadline &&
                   (v->st == LOAD_VU_CONNECTING || v->st == LOAD_VU_WRITING ||
                    v->st == LOAD_VU_READING)) {
            vu_transport_fail(v, LOAD_FAIL_TIMEOUT, why);
        }
    }
}

static int wait_ms(const struct load_worker *w)
{
    if (w->pend_head)
        return 0;
    uint64_t now = clock_now_ns();
    uint64_t t = w->next_wake < w->next_scan ? w->next_wake : w->next_scan;
    return t <= now ? 0 : (int)((t - now + 999999) / 1000000);
}

void *load_worker_main(void *arg)
{
    struct load_worker *w = arg;
    w->active = w->nvu;
    w->pend_head = NULL;
    w->pend_tail = &w->pend_head;
    w->next_wake = UINT64_MAX;
    w->next_scan = clock_now_ns() + SCAN_NS;
    if (w->c.tl)
        timeline_init(w->c.tl, w->s->t_start, w->s->o->timeline_ns);
    for (int64_t i = 0; i < w->nvu; i++)
        vu_next(&w->vus[i]);
    struct epoll_event ev[256];
    while (w->active > 0) {
        flush_pending(w);
        if (w->active == 0)
            break;
        int n = epoll_wait(w->ep, ev, 256, wait_ms(w));
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
