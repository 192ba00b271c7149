/* load_engine: set-up, worker threads and progress of the load engine (the
 * event loop itself is in load_conn.c; see load_engine.h). */
#include "load/load_engine.h"

#include <errno.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "measure/clock.h"
#include "load/load_conn.h"
#include "load/load_h2.h"
#include "load/load_tls.h"
#include "load/load_vu.h"

volatile sig_atomic_t load_interrupted;

static int cmp_err(const void *a, const void *b)
{
    const struct load_err *x = a, *y = b;
    return (x->t > y->t) - (x->t < y->t);
}

void load_counts_add(struct load_counts *dst, const struct load_counts *src)
{
    for (int r = 0; r < src->nkinds; r++) {
        hist_merge(dst->h[r], src->h[r]);
        dst->ok[r] += src->ok[r];
        for (int f = 0; f < LOAD_NFAIL; f++)
            dst->fail[r][f] += src->fail[r][f];
    }
    if (dst->tl && src->tl)
        timeline_merge(dst->tl, src->tl);
    if (dst->sent && src->sent)
        hist_merge(dst->sent, src->sent);
    if (dst->hs && src->hs)
        hist_merge(dst->hs, src->hs);
    dst->http2 |= src->http2;
    dst->hs_n += src->hs_n;
    dst->hs_resumed += src->hs_resumed;
    for (int k = 0; k < LOAD_CLASSES; k++) {
        hist_merge(dst->cls[k], src->cls[k]);
        dst->cls_fail[k] += src->cls_fail[k];
    }
    dst->tasks_ok += src->tasks_ok;
    dst->tasks_failed += src->tasks_failed;
    for (int e = 0; e < src->nerr; e++) {
        if (dst->nerr < LOAD_NERR_KEEP)
            dst->err[dst->nerr++] = src->err[e];
        else if (src->err[e].t < dst->err[LOAD_NERR_KEEP - 1].t)
            dst->err[LOAD_NERR_KEEP - 1] = src->err[e];
        qsort(dst->err, (size_t)dst->nerr, sizeof(dst->err[0]), cmp_err);
    }
}

/* Resolved once: a failure becomes every request's connect failure, as a
 * host that cannot be resolved was when libcurl resolved per connection. */
static void resolve(struct load_shared *s)
{
    struct addrinfo hints, *res = NULL;
    memset(&hints, 0, sizeof(hints));
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = AI_ADDRCONFIG;
    const struct load_url *u = s->o->url;
    int rc = getaddrinfo(u->host, u->port, &hints, &res);
    if (rc != 0 || !res || res->ai_addrlen > sizeof(s->addr)) {
        snprintf(s->resolve_err, sizeof(s->resolve_err), "could not resolve host '%s': %s",
                 u->host, rc ? gai_strerror(rc) : "no address");
    } else {
        memcpy(&s->addr, res->ai_addr, res->ai_addrlen);
        s->addrlen = (socklen_t)res->ai_addrlen;
    }
    if (res)
        freeaddrinfo(res);
}

static int worker_setup(struct load_worker *w, uint64_t first_vu)
{
    const struct load_opts *o = w->s->o;
    const struct load_scenario *sc = w->s->sc;
    w->ep = epoll_create1(EPOLL_CLOEXEC);
    w->c.nkinds = sc->nkinds;
    w->c.http2 = (int)o->http2;
    for (int r = 0; r < sc->nkinds; r++)
        if (!(w->c.h[r] = hist_new()))
            return -1;
    for (int k = 0; k < LOAD_CLASSES; k++)
        if (!(w->c.cls[k] = hist_new()))
            return -1;
    if (o->timeline_ns && !(w->c.tl = calloc(1, sizeof(*w->c.tl))))
        return -1;
    if (o->rate > 0 && !(w->c.sent = hist_new()))
        return -1;
    if (o->tls && (!(w->c.hs = hist_new()) ||
                   (o->pipeline > 1 && !(w->wbuf = malloc(LOAD_WBUF)))))
        return -1;
    w->vus = calloc((size_t)w->nvu, sizeof(*w->vus));
    w->rbuf = malloc(LOAD_RBUF);
    w->sc = sc->ops->worker_new(sc->state, w->index, (uint64_t)o->seed);
    if (w->ep < 0 || !w->vus || !w->rbuf || !w->sc)
        return -1;
    for (int64_t i = 0; i < w->nvu; i++) {
        struct load_vu *v = &w->vus[i];
        v->w = w;
        v->fd = -1;
        v->index = first_vu + (uint64_t)i;
        v->qcap = o->pipeline > 1 ? (int)o->pipeline : 1;
        v->q = malloc((size_t)v->qcap * sizeof(*v->q));
        if (!v->q || load_resp_init(&v->resp) != 0 || (o->http2 && load_h2_init(v) != 0) ||
            !(v->sc = sc->ops->conn_new(w->sc, v->index)))
            return -1;
    }
    return 0;
}

static void worker_cleanup(struct load_worker *w)
{
    if (!w->s)   /* never set up */
        return;
    const struct load_scenario *sc = w->s->sc;
    for (int64_t i = 0; w->vus && i < w->nvu; i++) {
        load_h2_free(&w->vus[i]);
        load_tls_close(&w->vus[i]);
        load_tls_forget(&w->vus[i]);
        if (w->vus[i].fd >= 0)
            close(w->vus[i].fd);
        load_resp_free(&w->vus[i].resp);
        free(w->vus[i].q);
        if (w->vus[i].sc)
            sc->ops->conn_free(w->vus[i].sc);
    }
    free(w->vus);
    free(w->rbuf);
    free(w->wbuf);
    if (w->ep >= 0)
        close(w->ep);
    if (w->sc)
        sc->ops->worker_free(w->sc);
    for (int r = 0; r < sc->nkinds; r++)
        hist_free(w->c.h[r]);
    if (w->c.tl)
        timeline_free(w->c.tl);
    free(w->c.tl);
    hist_free(w->c.sent);
    hist_free(w->c.hs);
    for (int k = 0; k < LOAD_CLASSES; k++)
        hist_free(w->c.cls[k]);
}

static void poll_progress(const struct load_shared *s, const struct load_worker *w, int64_t nw,
                          struct load_progress *p)
{
    p->tasks_done = p->requests_done = 0;
    for (int64_t i = 0; i < nw; i++) {
        p->tasks_done += atomic_load_explicit(&w[i].tasks_done, memory_order_relaxed);
        p->requests_done += atomic_load_explicit(&w[i].requests_done, memory_order_relaxed);
    }
    p->elapsed = (double)(clock_now_ns() - s->t_start) / 1e9;
}

/* Progress every 10% of tasks, or every second with --duration, until the
 * workers are done. */
static void watch(const struct load_shared *s, const struct load_worker *w, int64_t started,
                  load_progress_fn progress)
{
    const struct load_opts *o = s->o;
    long long step = o->tasks / 10 > 0 ? o->tasks / 10 : 1, next_mark = step, printed = -1;
    uint64_t next_tick = s->t_start + 1000000000u;
    struct load_progress p;
    while (atomic_load(&s->workers_done) < started) {
        if (o->progress && progress) {
            poll_progress(s, w, started, &p);
            uint64_t now = clock_now_ns();
            if (o->duration > 0 && now >= next_tick && now < s->t_end_ns) {
                progress(o, &p, 0);
                next_tick += 1000000000u;
            } else if (o->duration == 0 && p.tasks_done >= next_mark) {
                progress(o, &p, 0);
                printed = p.tasks_done;
                while (next_mark <= p.tasks_done)
                    next_mark += step;
            }
        }
        usleep(20000);
    }
    if (o->progress && progress && o->duration == 0) {
        poll_progress(s, w, started, &p);
        if (p.tasks_done != printed)
            progress(o, &p, 1);
    }
}

int load_engine_run(const struct load_opts *o, const struct load_scenario *sc,
                    load_progress_fn progress, struct load_counts *total, double *secs,
                    char *err, size_t errcap)
{
    struct load_shared s;
    memset(&s, 0, sizeof(s));
    s.o = o;
    s.sc = sc;
    resolve(&s);

    int rc = 0;
    struct load_worker *w = calloc((size_t)o->workers, sizeof(*w));
    if (!w) {
        snprintf(err, errcap, "out of memory");
        return -1;
    }
    uint64_t first = 0;
    for (int64_t i = 0; i < o->workers; i++) {
        w[i].s = &s;
        w[i].index = (int)i;
        w[i].ep = -1;
        w[i].nvu = o->connections / o->workers + (i < o->connections % o->workers ? 1 : 0);
        if (worker_setup(&w[i], first) != 0) {
            snprintf(err, errcap, "cannot set up %lld connections: out of memory or file "
                     "descriptors", (long long)o->connections);
            rc = -1;
            goto out;
        }
        first += (uint64_t)w[i].nvu;
    }

    s.t_start = clock_now_ns();
    s.t_end_ns = s.t_start + (uint64_t)(o->duration * 1e9);
    int64_t started = 0;
    for (; started < o->workers; started++)
        if (pthread_create(&w[started].thread, NULL, load_worker_main, &w[started]) != 0)
            break;
    if (started < o->workers) {
        /* Stop the ones that did start by ending their work early. */
        load_interrupted = 1;
        snprintf(err, errcap, "cannot start worker thread");
        rc = -1;
    }
    watch(&s, w, started, rc ? NULL : progress);
    for (int64_t i = 0; i < started; i++)
        pthread_join(w[i].thread, NULL);
    *secs = (double)(clock_now_ns() - s.t_start) / 1e9;
    for (int64_t i = 0; rc == 0 && i < o->workers; i++)
        load_counts_add(total, &w[i].c);
out:
    for (int64_t i = 0; i < o->workers; i++)
        worker_cleanup(&w[i]);
    free(w);
    return rc;
}

const char *load_fail_name(enum load_fail f)
{
    static const char *const names[LOAD_NFAIL] = {
        "ok", "connect", "timeout", "io", "http_status", "bad_body", "tls",
        "h2_refused", "h2_reset", "h2_protocol",
    };
    return (unsigned)f < LOAD_NFAIL ? names[f] : "?";
}
