/* load_finish: how a request of the load engine ends (see
 * load_finish.h): counted as answered or failed, its answer checked by the
 * scenario, the failure noted, a stale keep-alive connection's request
 * sent again once; then the connection's next request is chosen. */
#include "load/load_finish.h"

#include <stdio.h>
#include <string.h>

#include "load/load_fill.h"
#include "measure/clock.h"

/* Keep the note of a failed request r (the first LOAD_NERR_KEEP of them). */
static void note_error(struct load_worker *w, const struct load_req *r, enum load_fail f,
                       const char *why)
{
    if (w->c.nerr >= LOAD_NERR_KEEP)
        return;
    /* The target, rebuilt from the request line: "METHOD PATH HTTP/1.1". */
    const char *p = memchr(r->buf, ' ', r->len);
    const char *e = p ? memchr(p + 1, ' ', r->len - (size_t)(p + 1 - r->buf)) : NULL;
    int plen = p && e ? (int)(e - p - 1) : 0;
    struct load_err *er = &w->c.err[w->c.nerr++];
    er->t = clock_now_ns();
    snprintf(er->msg, sizeof(er->msg), "%s %s://%s%.*s: %s: %s", w->s->sc->kinds[r->kind],
             w->s->o->url->tls ? "https" : "http", w->s->o->url->hostport, plen, p ? p + 1 : "", load_fail_name(f), why);
}

/* Count the head request as finished (f: LOAD_OK or why it failed), take
 * it off the ring and go on; now: the caller's clock reading, for the
 * next request's choice (one clock read less per request). */
static void vu_finish(struct load_vu *v, enum load_fail f, const char *why, uint64_t now)
{
    struct load_worker *w = v->w;
    struct load_req *r = load_vu_head(v);
    int kind = r->kind;
    atomic_fetch_add_explicit(&w->requests_done, 1, memory_order_relaxed);
    if (f == LOAD_OK) {
        w->c.ok[kind]++;
    } else {
        w->c.fail[kind][f]++;
        note_error(w, r, f, why);
    }
    if (--v->qn == 0) {   /* always so at depth 1: no wrap to compute */
        v->qsent = v->qhead = 0;
        if (v->st == LOAD_VU_READING)
            v->st = LOAD_VU_IDLE;
    } else {
        v->qhead = v->qhead + 1 == v->qcap ? 0 : v->qhead + 1;
        if (v->qsent > 0)
            v->qsent--;
        if (v->st == LOAD_VU_READING && v->qsent == 0)
            v->st = LOAD_VU_IDLE;
    }
    if (w->ops->finished(v->sc, kind, f)) {
        if (f == LOAD_OK)
            w->c.tasks_ok++;
        else
            w->c.tasks_failed++;
        atomic_fetch_add_explicit(&w->tasks_done, 1, memory_order_relaxed);
    }
    load_vu_fill(v, now);
}

/* The connection is gone: what is left goes again on a new one. (A VU
 * already on the pending list stays there, once.) */
void load_vu_lost(struct load_vu *v)
{
    load_vu_close(v);
    v->qsent = 0;
    v->off = 0;
    if (v->st != LOAD_VU_PENDING)
        v->st = LOAD_VU_IDLE;
}

/* A transport failure. A keep-alive connection the server closed while it
 * was idle fails the first write or read of the next request without a
 * byte of answer: that request is sent again, once, on a new connection
 * (as browsers and curl do) rather than counted as a failure. */
void load_vu_failed(struct load_vu *v, enum load_fail f, const char *why)
{
    struct load_req *h = load_vu_head(v);
    int retry = f == LOAD_FAIL_IO && v->reused && !h->retried && v->resp.seen == 0;
    load_vu_lost(v);
    if (retry) {
        h->retried = 1;
        if (v->st != LOAD_VU_PENDING)
            load_pend_push(v->w, v);
        return;
    }
    uint64_t now = clock_now_ns();
    if (v->w->c.tl)   /* no answer, so no latency: counted when it failed */
        timeline_record(v->w->c.tl, now, TIMELINE_NO_LATENCY, 1);
    vu_finish(v, f, why, now);
}

void load_vu_stream_failed(struct load_vu *v, enum load_fail f, const char *why, uint64_t t1)
{
    if (v->w->c.tl)
        timeline_record(v->w->c.tl, t1, TIMELINE_NO_LATENCY, 1);
    vu_finish(v, f, why, t1);
}

/* The head request's answer is complete in v->resp. */
void load_vu_answered(struct load_vu *v, uint64_t t1)
{
    struct load_worker *w = v->w;
    struct load_resp *r = &v->resp;
    const struct load_req *q = load_vu_head(v);
    uint64_t t0 = w->rated ? q->t_sched : q->t_sent, lat = t1 > t0 ? t1 - t0 : 0;
    hist_record(w->c.h[q->kind], lat);
    if (w->c.sent)
        hist_record(w->c.sent, t1 > q->t_sent ? t1 - q->t_sent : 0);
    char why[256];
    why[0] = '\0';   /* a string for vu_finish, without zeroing 256 bytes per answer */
    enum load_fail f;
    if (r->overflow) {
        f = LOAD_FAIL_BODY;
        snprintf(why, sizeof(why), "HTTP %d with a body over %d bytes (or out of memory)",
                 r->status, LOAD_BODY_MAX);
    } else {
        f = w->ops->check(v->sc, q->kind, r->status, r->body, r->len, why, sizeof(why));
    }
    unsigned cls = (unsigned)r->status / 100u - 2u;   /* 1xx wraps: not a class */
    if (cls < LOAD_CLASSES) {
        hist_record(w->c.cls[cls], lat);
        w->c.cls_fail[cls] += f != LOAD_OK;
    }
    if (w->c.tl)
        timeline_record(w->c.tl, t1, lat, f != LOAD_OK);
    if (r->keep_alive && !w->s->o->reconnect) {
        v->reused = 1;
    } else {
        /* --reconnect: closed by us after each answer, as by a server
         * that does not keep connections alive */
        load_vu_lost(v);   /* the requests behind go again on a new connection */
    }
    load_resp_begin(r);
    vu_finish(v, f, why, t1);   /* the answer's time: no second clock read */
}

