/* run_loop: one pass of "kvtest run" -- T workers drive their own stores
 * over the key sequence (see run_int.h).
 *
 * Every store is driven by the same key sequence: asc/desc come from one
 * shared index (so T threads together visit exactly the keys one thread
 * would), random and zipf from measure/keys/order.h with one stream per thread.
 * The whole-run timer spans open to close, as in SQLite's kvtest; the
 * per-access timer brackets only the store call. */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands/run/run_int.h"
#include "base/cli.h"
#include "measure/clock.h"
#include "measure/keys/order.h"
#include "measure/keys/rng.h"
#ifdef KVTEST_INJECT
#include "measure/inject.h"
#endif
#include "stores/blobsum.h"
#include "stores/store.h"

struct ctx {
    const struct run_opts *o;
    const struct run_pass *ps;
    int64_t max_id, start;
    int verify;
    int latency;
    int timeline;               /* record each access in the worker's timeline */
    int update;
    int64_t threads;
    /* Written by every thread: a cache line of its own, claimed in chunks,
     * so concurrent readers do not bounce it on every access. */
    _Alignas(64) atomic_llong next;   /* shared index of the key sequence */
    _Alignas(64) atomic_llong limit;  /* count + extra cycles for misses */
    atomic_llong misses;
    atomic_int failed;
    int64_t *keys;
    uint64_t content_seed;
};

struct run_worker {
    struct ctx *c;
    int index;
    struct hist *h;
    struct timeline tl;         /* --timeline: this pass's, of this thread */
    int64_t count, misses, bytes, checked, unverifiable;
    uint64_t t_end;
    struct sql_stats stats;
    char jmode[32];             /* journal mode in effect during the run */
    char err[1024];
    int failed;
};

struct run_workers {
    int64_t threads;
    struct run_worker w[];
};

struct run_workers *run_workers_new(int64_t threads, int latency)
{
    struct run_workers *ws = calloc(1, sizeof *ws + (size_t)threads * sizeof ws->w[0]);
    if (!ws)
        return NULL;
    ws->threads = threads;
    for (int64_t t = 0; t < threads && latency; t++)
        if (!(ws->w[t].h = hist_new())) {
            run_workers_free(ws);
            return NULL;
        }
    return ws;
}

void run_workers_free(struct run_workers *ws)
{
    if (!ws)
        return;
    for (int64_t t = 0; t < ws->threads; t++) {
        hist_free(ws->w[t].h);
        timeline_free(&ws->w[t].tl);
    }
    free(ws);
}

/* --verify of one blob read. 0, or -1 with the reason in w->err. */
static int verify_one(struct run_worker *w, int64_t key, const void *data, int64_t n)
{
    int v = blobsum_check(data, (size_t)n);
    if (v == 1) {
        w->checked++;
    } else if (v < 0 || w->c->verify == 2) {
        w->unverifiable++;
    } else {
        snprintf(w->err, sizeof w->err,
                 "content mismatch at key %" PRId64 " of %s: checksum does not match", key,
                 w->c->o->path);
        return -1;
    }
    return 0;
}

/* The measured loop of one worker. 0, or -1 with the reason in w->err. */
static int worker_loop(struct run_worker *w, struct store *s, struct order *ord, rng_t *content)
{
    struct ctx *c = w->c;
    int shared = c->o->order == ORDER_ASC || c->o->order == ORDER_DESC;
    /* One clock read per access: each interval starts where the previous
     * one ended, so it also holds the loop's own bookkeeping (a shared
     * counter and the next key, tens of ns) but halves the timer's cost on
     * a microsecond-scale access. With --verify the checksum must not count
     * as access time, so each access then gets its own start stamp. */
    int chain = c->latency && !c->verify;
    uint64_t t_prev = c->latency ? clock_now_ns() : 0;
    /* One thread takes indices one at a time (so --keys-out and the miss
     * accounting match upstream exactly); several take chunks. */
    const int64_t chunk = c->threads > 1 ? 32 : 1;
    int64_t i = 0, chunk_end = 0;
    for (;;) {
        if (i >= chunk_end) {
            i = atomic_fetch_add_explicit(&c->next, chunk, memory_order_relaxed);
            chunk_end = i + chunk;
        }
        if (atomic_load_explicit(&c->failed, memory_order_relaxed) ||
            i >= atomic_load_explicit(&c->limit, memory_order_relaxed))
            break;
        int64_t idx = i++;
        int64_t key = shared ? order_at(ord, (uint64_t)idx) : order_next(ord);
        if (c->keys)
            c->keys[idx] = key;
        const void *data = NULL;
        int64_t n = 0;
        int rc;
        uint64_t t0 = chain ? t_prev : c->latency ? clock_now_ns() : 0;
        if (c->update)
            rc = store_update(s, key, content, &n, w->err, sizeof w->err);
        else
            rc = store_read(s, key, &data, &n, w->err, sizeof w->err);
#ifdef KVTEST_INJECT
        inject_op();
#endif
        if (c->latency) {
            t_prev = clock_now_ns();
            hist_record(w->h, t_prev - t0);
            if (c->timeline)
                timeline_record(&w->tl, t_prev, t_prev - t0, 0);
        }
        if (rc < 0)
            return -1;
        if (rc == 0) {
            w->misses++;
            /* As SQLite's kvtest: a miss costs an extra cycle, so --count
             * blobs are really accessed; bounded so a range with no data
             * cannot loop forever. */
            if (atomic_fetch_add(&c->misses, 1) < c->o->count)
                atomic_fetch_add(&c->limit, 1);
            continue;
        }
        w->count++;
        w->bytes += n;
        if (c->verify && verify_one(w, key, data, n) != 0)
            return -1;
    }
    return 0;
}

/* Commit and close; the end stamp is taken before close with
 * --nocheckpoint (so the checkpoint does not count), after it otherwise.
 * 0, or -1 with the reason in w->err (the store is closed either way). */
static int worker_finish(struct run_worker *w, struct store *s)
{
    struct store_desc d;
    store_describe(s, &d, w->index == 0 && w->c->o->stats);
    snprintf(w->jmode, sizeof w->jmode, "%s", d.jmode);
    w->stats = d.stats;
    if (store_commit(s, w->err, sizeof w->err) != 0) {
        char dummy[64];
        store_close(s, dummy, sizeof dummy);
        return -1;
    }
    if (w->c->o->nocheckpoint)
        w->t_end = clock_now_ns();
    int rc = store_close(s, w->err, sizeof w->err);
    if (!w->c->o->nocheckpoint)
        w->t_end = clock_now_ns();
    return rc;
}

static void *worker_main(void *arg)
{
    struct run_worker *w = arg;
    struct ctx *c = w->c;
    const struct run_opts *o = c->o;
    struct store *s = NULL;
    struct order ord;
    rng_t content;
    rng_seed(&content, rng_mix(c->content_seed, (uint64_t)w->index));
    if (order_init(&ord, o->order, c->max_id, c->start, o->seed, (uint64_t)w->index,
                              o->zipf) != 0) {
        snprintf(w->err, sizeof w->err, "bad order parameters");
        goto fail;
    }
    if (store_open(&s, &c->ps->so, w->err, sizeof w->err) != 0)
        goto fail;
    if (worker_loop(w, s, &ord, &content) != 0)
        goto fail;
    if (worker_finish(w, s) != 0)
        goto failed;
    return NULL;
fail:
    if (s) {
        char dummy[64];
        store_close(s, dummy, sizeof dummy);
    }
failed:
    w->failed = 1;
    w->t_end = clock_now_ns();
    atomic_store(&c->failed, 1);
    return NULL;
}

/* Fresh content per run, so an update really changes the bytes. */
static uint64_t content_nonce(void)
{
    uint64_t v;
    if (rng_os_bytes(&v, sizeof v) != 0)
        v = clock_now_ns();
    return v;
}

/* Start the workers (the caller's thread is the only worker when T = 1)
 * and wait for them. */
static void run_workers(struct ctx *c, struct run_worker *w, int64_t threads)
{
    if (threads == 1) {
        worker_main(&w[0]);
        return;
    }
    pthread_t th[256];
    int64_t started = 0;
    for (int64_t t = 0; t < threads; t++) {
        if (pthread_create(&th[t], NULL, worker_main, &w[t]) != 0) {
            snprintf(w[t].err, sizeof w[t].err, "cannot start a thread: %s", strerror(errno));
            w[t].failed = 1;
            atomic_store(&c->failed, 1);
            break;
        }
        started++;
    }
    for (int64_t t = 0; t < started; t++)
        pthread_join(th[t], NULL);
}

/* Sum the workers' figures into f. */
static void collect(const struct ctx *c, struct run_worker *w, int64_t threads, struct hist *merged, struct run_fig *f)
{
    for (int64_t t = 0; t < threads; t++) {
        f->count += w[t].count;
        f->misses += w[t].misses;
        f->bytes += w[t].bytes;
        f->checked += w[t].checked;
        f->unverifiable += w[t].unverifiable;
        if (merged && w[t].h)
            hist_merge(merged, w[t].h);
    }
    if (c->timeline)
        for (int64_t t = 0; t < threads; t++)
            timeline_merge(c->ps->timeline, &w[t].tl);
    f->stats = w[0].stats;
    memcpy(f->jmode, w[0].jmode, sizeof f->jmode);
}

int run_pass_once(const struct run_pass *ps, struct run_workers *ws, struct hist *merged,
                  struct run_fig *f, const char *cmd)
{
    struct ctx c;
    memset(&c, 0, sizeof c);
    c.o = ps->o;
    c.ps = ps;
    c.max_id = ps->max_id;
    c.start = ps->o->start;
    c.verify = ps->verify;
    c.latency = ps->latency;
    c.timeline = ps->latency && ps->timeline;
    c.update = ps->so.update;
    c.threads = ps->threads;
    c.keys = ps->keys;
    atomic_store(&c.next, 0);
    atomic_store(&c.limit, ps->o->count);
    atomic_store(&c.misses, 0);
    atomic_store(&c.failed, 0);
    c.content_seed = content_nonce();
    struct run_worker *w = ws->w;
    for (int64_t t = 0; t < ps->threads; t++) {
        struct hist *h = w[t].h;
        timeline_free(&w[t].tl);
        memset(&w[t], 0, sizeof w[t]);
        w[t].c = &c;
        w[t].index = (int)t;
        w[t].h = h;
        if (h)
            hist_reset(h);
    }
    struct io_counters io0, io1;
    runstats_io_read(&io0);
    if (c.timeline)
        timeline_free(ps->timeline);
    uint64_t t0 = clock_now_ns();
    if (c.timeline) {   /* interval 0 starts with the pass */
        timeline_init(ps->timeline, t0, ps->o->timeline_ns);
        for (int64_t t = 0; t < ps->threads; t++)
            timeline_init(&w[t].tl, t0, ps->o->timeline_ns);
    }
    run_workers(&c, w, ps->threads);
    uint64_t t1 = t0;
    for (int64_t t = 0; t < ps->threads; t++)
        if (w[t].t_end > t1)
            t1 = w[t].t_end;
    runstats_io_read(&io1);
    for (int64_t t = 0; t < ps->threads; t++)
        if (w[t].failed)
            return cli_fail(cmd, "%s", w[t].err);
    memset(f, 0, sizeof *f);
    f->seconds = (double)(t1 - t0) / 1e9;
    collect(&c, w, ps->threads, merged, f);
    if (io0.ok && io1.ok) {
        f->io_delta.ok = 1;
        for (int i = 0; i < 7; i++)
            f->io_delta.v[i] = io1.v[i] - io0.v[i];
        f->io_read = f->io_delta.v[4];
        f->io_write = f->io_delta.v[5];
    }
    return 0;
}
