/* mix_scenario: the shortener's mix as a load scenario (see mix.h): what
 * each connection sends next, the pool of links created in --duration mode,
 * task mode's steps, and the answers' checks.
 *
 * With --pipeline N a connection has up to N requests in flight, checked
 * in the order they were built; in duration mode without --keys each
 * keeps what its answer must say in a ring of N expectations (task mode's
 * GETs all want the task's URL, --keys GETs any URL: no ring needed).
 * A task's GETs need the id its POST's answer gives, so task mode waits
 * (LOAD_NEXT_WAIT) for that answer, then pipelines the task's GETs, and
 * starts the next task once the last one is in; duration mode's requests
 * are independent and pipeline freely. */
#include "shortener/mix/mix.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "shortener/mix/mix_check.h"

struct mix_state {
    struct mix_opts o;
    const struct mix_keys *keys;    /* NULL: no --keys */
    const struct keypick *pick;
    struct mix_reqfmt fmt;
    atomic_llong tasks_claimed;     /* task mode's tasks; --walk's GETs */
};

struct pool_entry {
    char id[65];
    char *url;
};

/* One worker's: its random stream and the links its connections created. */
struct mix_worker {
    struct mix_state *s;
    rng_t rng;
    struct pool_entry *pool;
    size_t npool;
};

/* What the answer to one request in flight must say (duration mode
 * without --keys). */
struct mix_expect {
    const char *want;          /* GET: the URL it must return; NULL: any http(s) URL */
    char url[256];             /* duration mode: the URL a POST created, or a pooled
                                * id's URL a GET must return (copied: the pool may
                                * replace it while the GET is in flight) */
};

/* How a connection's requests go, each with its own bookkeeping: task
 * mode (inflight counts what the task has out, for LOAD_NEXT_WAIT); duration
 * mode with --keys (independent GETs of given ids, nothing to keep);
 * duration mode pooling the links it creates (the expectations ring); and
 * --walk (the --keys ids in file order, claimed from one counter that all
 * connections share, so the walk is done once over the whole run). */
enum conn_mode { MODE_TASK, MODE_KEYS, MODE_POOL, MODE_WALK };

/* One connection's: its task, and its requests in flight (a FIFO ring). */
struct mix_conn {
    struct mix_worker *w;
    uint64_t index, seq;
    int in_task;
    int64_t step;              /* task mode: requests of the task built */
    int64_t inflight;          /* built and not finished */
    char id[65];
    char url[256];             /* task mode: the URL of the task's POST */
    struct mix_expect *ex;
    int64_t excap, exhead;
    enum conn_mode mode;       /* kept here: read per request */
    const char *want;          /* the GETs' URL but in MODE_POOL: c->url (task
                                * mode) or NULL (--keys: any URL) */
};

static void *worker_new(void *state, int index, uint64_t seed)
{
    struct mix_state *s = state;
    struct mix_worker *w = calloc(1, sizeof(*w));
    if (!w)
        return NULL;
    w->s = s;
    rng_seed(&w->rng, rng_mix(seed, (uint64_t)index + 1));
    if (s->o.duration > 0 && !s->keys) {
        w->pool = calloc(MIX_POOL_MAX, sizeof(*w->pool));
        if (!w->pool) {
            free(w);
            return NULL;
        }
    }
    return w;
}

static void worker_free(void *wstate)
{
    struct mix_worker *w = wstate;
    for (size_t i = 0; i < w->npool; i++)
        free(w->pool[i].url);
    free(w->pool);
    free(w);
}

static void *conn_new(void *wstate, uint64_t vu)
{
    struct mix_worker *w = wstate;
    struct mix_conn *c = calloc(1, sizeof(*c));
    if (!c)
        return NULL;
    c->w = w;
    c->index = vu;
    /* The expectations ring is used only in MODE_POOL (a POST's URL for
     * the pool, a pooled GET's copied URL): task mode's GETs all want the
     * task's c->url and --keys GETs want any URL, so those modes leave the
     * ring alone and cost nothing per request for it. */
    c->mode = w->s->o.walk > 0 ? MODE_WALK : w->s->o.duration == 0 ? MODE_TASK
              : w->s->keys ? MODE_KEYS : MODE_POOL;
    c->want = c->mode == MODE_TASK ? c->url : NULL;
    c->excap = w->s->o.pipeline > 1 ? w->s->o.pipeline : 1;
    c->ex = calloc((size_t)c->excap, sizeof(*c->ex));
    if (!c->ex) {
        free(c);
        return NULL;
    }
    return c;
}

static void conn_free(void *conn)
{
    struct mix_conn *c = conn;
    free(c->ex);
    free(c);
}

/* The i-th request in flight, from the oldest. */
static struct mix_expect *expect_at(struct mix_conn *c, int64_t i)
{
    int64_t k = c->exhead + i;
    return &c->ex[k >= c->excap ? k - c->excap : k];
}

static void pool_add(struct mix_worker *w, const char *id, const char *url)
{
    size_t slot = w->npool;
    if (slot >= MIX_POOL_MAX) {
        slot = (size_t)rng_below(&w->rng, MIX_POOL_MAX);
        free(w->pool[slot].url);
    } else {
        w->npool++;
    }
    snprintf(w->pool[slot].id, sizeof(w->pool[slot].id), "%s", id);
    w->pool[slot].url = strdup(url);
}

/* Duration mode: a POST, or a GET of a --keys id or of a pooled link. */
static enum mix_req next_steady(struct mix_conn *c, struct mix_expect *e, const char **id)
{
    struct mix_worker *w = c->w;
    const struct mix_state *s = w->s;
    int have = s->keys || w->npool > 0;
    enum mix_req req = mix_pick(s->o.create_ratio, have, &w->rng);
    if (req == MIX_GET) {
        if (s->keys) {
            *id = s->keys->id[keypick_next(s->pick, &w->rng)];
        } else {
            struct pool_entry *p = &w->pool[rng_below(&w->rng, w->npool)];
            snprintf(e->url, sizeof(e->url), "%s", p->url ? p->url : "");
            *id = p->id;
            e->want = p->url ? e->url : NULL;
        }
    }
    return req;
}

/* Task mode: the task's next request into buf, or WAIT or DONE. */
static int next_task(struct mix_conn *c, char *buf, size_t cap, size_t *len)
{
    struct mix_state *s = c->w->s;
    if (!c->in_task) {
        if (c->inflight > 0)
            return LOAD_NEXT_WAIT;   /* the last task's failed GETs still out */
        if (atomic_fetch_add(&s->tasks_claimed, 1) >= s->o.tasks)
            return LOAD_NEXT_DONE;
        c->in_task = 1;
        c->step = 0;
    }
    /* All built, or the GETs need the POST's id. (Nothing is in flight at
     * depth 1, so one test there: a task whose requests are all built and
     * answered is over, see finished().) */
    if (c->inflight > 0 && (c->step > s->o.gets || c->step == 1))
        return LOAD_NEXT_WAIT;
    enum mix_req req = (enum mix_req)mix_task_step(c->step++, s->o.gets);
    if (req == MIX_POST) {
        mix_make_url(c->url, sizeof(c->url), &c->w->rng, c->index, c->seq++);
        *len = mix_reqfmt_post(&s->fmt, buf, cap, c->url);
    } else {
        *len = mix_reqfmt_get(&s->fmt, buf, cap, c->id);
    }
    c->inflight++;
    return (int)req;
}

static int next(void *conn, uint64_t now, char *buf, size_t cap, size_t *len)
{
    (void)now;   /* the engine ends a --duration run */
    struct mix_conn *c = conn;
    if (c->mode == MODE_TASK)
        return next_task(c, buf, cap, len);
    struct mix_state *s = c->w->s;
    if (c->mode == MODE_WALK) {
        int64_t k = mix_walk_key(atomic_fetch_add(&s->tasks_claimed, 1), s->o.walk,
                                 s->keys ? s->keys->n : 0);
        if (k < 0)
            return LOAD_NEXT_DONE;
        *len = mix_reqfmt_get(&s->fmt, buf, cap, s->keys->id[k]);
        return MIX_GET;
    }
    struct mix_expect *e = NULL;
    char *url = c->url;
    if (c->mode == MODE_POOL) {
        e = expect_at(c, c->inflight++);
        e->want = NULL;
        url = e->url;
    }
    const char *id = NULL;
    enum mix_req req = next_steady(c, e, &id);
    if (req == MIX_POST) {
        mix_make_url(url, sizeof(c->url), &c->w->rng, c->index, c->seq++);
        *len = mix_reqfmt_post(&s->fmt, buf, cap, url);
    } else {
        *len = mix_reqfmt_get(&s->fmt, buf, cap, id);
    }
    return (int)req;
}

static enum load_fail check(void *conn, int kind, int status, const char *body, size_t len,
                            char *why, size_t whycap)
{
    struct mix_conn *c = conn;
    if (kind == MIX_POST)
        return mix_check_post(status, body, len, c->id, sizeof(c->id), why, whycap);
    const char *want = c->mode == MODE_POOL ? c->ex[c->exhead].want : c->want;
    return mix_check_get(status, body, len, want, why, whycap);
}

static int finished(void *conn, int kind, enum load_fail f)
{
    struct mix_conn *c = conn;
    if (c->mode == MODE_TASK) {
        /* The classic task stops at its first failure: with no link, or a
         * wrong one, its remaining GETs would only repeat the failure
         * (those already in flight with --pipeline end without counting).
         * A task is over when all its requests are built and answered. */
        c->inflight--;
        if (f == LOAD_OK) {
            if (c->step <= c->w->s->o.gets || c->inflight > 0 || !c->in_task)
                return 0;
        } else if (!c->in_task) {
            return 0;
        }
        c->in_task = 0;
        return 1;
    }
    if (c->mode == MODE_POOL) {
        const struct mix_expect *e = &c->ex[c->exhead];
        c->exhead = c->exhead + 1 == c->excap ? 0 : c->exhead + 1;
        c->inflight--;
        if (f == LOAD_OK && kind == MIX_POST)
            pool_add(c->w, c->id, e->url);
    }
    return 1;   /* duration mode: every request is a task */
}

/* The --json options the shortener has always printed, in their places. */
static void options_json(const void *state, void *options, int part)
{
    const struct mix_state *s = state;
    cJSON *op = options;
    if (part == 0) {
        cJSON_AddNumberToObject(op, "gets", (double)s->o.gets);
        return;
    }
    if (s->o.keys_path)
        cJSON_AddStringToObject(op, "keys", s->o.keys_path);
    else
        cJSON_AddNullToObject(op, "keys");
    cJSON_AddNumberToObject(op, "zipf", s->o.zipf);
    cJSON_AddNumberToObject(op, "create_ratio", s->o.create_ratio);
    if (s->o.walk > 0)   /* only then: the other runs' JSON stays as it was */
        cJSON_AddNumberToObject(op, "walk", (double)s->o.walk);
}

static const struct load_scenario_ops mix_ops = {
    .worker_new = worker_new,
    .worker_free = worker_free,
    .conn_new = conn_new,
    .conn_free = conn_free,
    .next = next,
    .check = check,
    .finished = finished,
    .options_json = options_json,
};

int mix_scenario_init(struct load_scenario *sc, const struct mix_opts *o,
                      const struct load_url *u, const struct mix_keys *keys,
                      const struct keypick *pick)
{
    memset(sc, 0, sizeof(*sc));
    struct mix_state *s = calloc(1, sizeof(*s));
    if (!s)
        return -1;
    s->o = *o;
    s->keys = keys && keys->n ? keys : NULL;
    s->pick = pick;
    mix_reqfmt_init(&s->fmt, u);
    atomic_init(&s->tasks_claimed, 0);
    sc->name = "shortener";
    sc->kinds[MIX_POST] = "POST";
    sc->kinds[MIX_GET] = "GET";
    sc->nkinds = MIX_NREQ;
    sc->state = s;
    sc->ops = &mix_ops;
    return 0;
}

void mix_scenario_free(struct load_scenario *sc)
{
    free(sc->state);
    sc->state = NULL;
}
