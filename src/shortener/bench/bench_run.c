/* bench_run: one timed run of one "shortener bench" configuration over
 * its threads, through cache_lookup(), the service's own lookup path. */
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "measure/clock.h"
#include "shortener/bench/bench_run.h"

#define MISS_ID_LEN (LINKS_ID_LEN + 1)   /* longer than any id we create */

static void slot_run(const struct bench *b, struct bench_slot *s)
{
    char url[LINKS_URL_MAX + 1];
    static const char alnum[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    char miss_id[MISS_ID_LEN + 1];
    s->t0 = clock_now_ns();
    for (int64_t i = 0; i < s->n; i++) {
        const char *id;
        size_t idlen;
        int want_miss = b->o->miss > 0 && rng_double(&s->rng) < b->o->miss;
        if (want_miss) {
            for (int k = 0; k < MISS_ID_LEN; k++)
                miss_id[k] = alnum[rng_below(&s->rng, sizeof(alnum) - 1)];
            miss_id[MISS_ID_LEN] = '\0';
            id = miss_id;
            idlen = MISS_ID_LEN;
        } else {
            id = b->ids + keypick_next(&b->pick, &s->rng) * (LINKS_ID_MAX + 1);
            idlen = strlen(id);
        }
        size_t ulen;
        uint64_t a = clock_now_ns();
        enum links_rc rc = cache_lookup(s->c, s->l, id, idlen, url, sizeof(url), &ulen);
        uint64_t z = clock_now_ns();
        if (s->measure)
            hist_record(s->h, z - a);
        if (rc == LINKS_ERROR) {
            if (s->errors++ == 0)
                snprintf(s->first_problem, sizeof(s->first_problem), "lookup of %s: %s", id,
                         links_errmsg(s->l));
        } else if ((rc == LINKS_OK) == want_miss) {
            if (s->wrong++ == 0)
                snprintf(s->first_problem, sizeof(s->first_problem), "lookup of %s id %s: %s",
                         want_miss ? "missing" : "existing", id,
                         rc == LINKS_OK ? "found" : "not found");
        }
    }
    s->t1 = clock_now_ns();
}

/* Threads start together on a gate, so the wall time of a run spans the
 * lookups, not thread creation. */
struct gate {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int open;
};

struct thread_arg {
    const struct bench *b;
    struct bench_slot *s;
    struct gate *g;
};

static void *thread_main(void *p)
{
    struct thread_arg *a = p;
    pthread_mutex_lock(&a->g->mu);
    while (!a->g->open)
        pthread_cond_wait(&a->g->cv, &a->g->mu);
    pthread_mutex_unlock(&a->g->mu);
    slot_run(a->b, a->s);
    return NULL;
}

double bench_conf_run(const struct bench *b, struct bench_slot *slots, int measure)
{
    int64_t T = b->o->threads;
    for (int64_t t = 0; t < T; t++) {
        slots[t].n = b->o->lookups / T + (t < b->o->lookups % T ? 1 : 0);
        slots[t].measure = measure;
    }
    if (T == 1) {
        slot_run(b, &slots[0]);
        return (double)(slots[0].t1 - slots[0].t0) / 1e9;
    }
    pthread_t th[T];
    struct thread_arg args[T];
    struct gate g = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0};
    int64_t made = 0;
    for (; made < T; made++) {
        args[made] = (struct thread_arg){b, &slots[made], &g};
        if (pthread_create(&th[made], NULL, thread_main, &args[made]) != 0)
            break;
    }
    if (made < T)   /* the started ones run no lookups and are joined */
        for (int64_t t = 0; t < T; t++)
            slots[t].n = 0;
    pthread_mutex_lock(&g.mu);
    g.open = 1;
    pthread_cond_broadcast(&g.cv);
    pthread_mutex_unlock(&g.mu);
    for (int64_t t = 0; t < made; t++)
        pthread_join(th[t], NULL);
    if (made < T)
        return -1;
    uint64_t t0 = slots[0].t0, t1 = slots[0].t1;
    for (int64_t t = 1; t < T; t++) {
        if (slots[t].t0 < t0)
            t0 = slots[t].t0;
        if (slots[t].t1 > t1)
            t1 = slots[t].t1;
    }
    return (double)(t1 - t0) / 1e9;
}

int bench_slot_open(const struct bench *b, int conf, struct bench_slot *s, char *err, size_t errcap)
{
    const struct bench_opts *o = b->o;
    /* The second store is its own, without replicas (its opts are the
     * defaults); the row decides SQLite's page cache. */
    struct links_store st = conf == BENCH_CONF_COMPARE ? o->compare : o->store;
    st.opts.sqlite_cache = bench_conf_sqlite_cache(conf);
    s->l = links_open_store(&st, err, errcap);
    if (!s->l)
        return -1;
    if (bench_conf_valkey(conf) && !s->c) {
        s->c = cache_open(bench_conf_track(conf) ? &b->tcfg : &b->ccfg);
        if (!s->c) {
            snprintf(err, errcap, "out of memory");
            return -1;
        }
    }
    return 0;
}
