/* service: the shortener's request handling, independent of the HTTP
 * library (the libh2o glue is service_http.c), so unit tests and the
 * fuzz target run it without a server.
 *
 * Each worker (one per server thread) has its own links and cache
 * connection and its own counters; /stats sums them. */
#include "shortener/service/service.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "measure/clock.h"
#include "base/counter.h"
#include "shortener/store/linkid.h"
#include "shortener/service/request.h"
#include "shortener/service/service_share.h"
#include "shortener/service/service_totals.h"

struct service_worker {
    struct links *links;
    struct cache *cache;
    /* Single writer (the worker's thread); /stats reads them relaxed. */
    _Atomic uint64_t req[ROUTE_COUNT][SERVICE_NSTATUS];
    _Atomic uint64_t sqlite_errors;
    /* With a share (serve --processes): this worker's row, which holds
     * base + its own counters after every request; base is what the row
     * held when this process took the slot over. */
    _Atomic uint64_t *pub;
    struct service_totals base;
};

struct service {
    int nworkers;
    struct service_kind kind;
    struct service_worker *w;
    atomic_int next_worker;   /* next unclaimed worker */
    uint64_t started_ns;
    struct service_share *share;   /* NULL: one process */
    int slot;                      /* this process's slot in share */
};

struct service *service_new(const struct links_store *store, const struct service_opts *o,
                            char *err, size_t errcap)
{
    struct service *s = calloc(1, sizeof *s);
    if (!s || !(s->w = calloc((size_t)o->workers, sizeof *s->w))) {
        free(s);
        snprintf(err, errcap, "out of memory");
        return NULL;
    }
    s->nworkers = o->workers;
    s->kind.has_cache = o->cache != NULL;
    s->kind.has_track = o->cache && o->cache->track;
    s->kind.has_cluster = o->cache && o->cache->cluster;
    s->started_ns = clock_now_ns();
    for (int i = 0; i < o->workers; i++) {
        s->w[i].links = links_open_store(store, err, errcap);
        if (!s->w[i].links) {
            service_free(s);
            return NULL;
        }
        s->kind.store = links_kind_of(s->w[i].links);
        if (o->cache && !(s->w[i].cache = cache_open(o->cache))) {
            snprintf(err, errcap, "out of memory");
            service_free(s);
            return NULL;
        }
    }
    return s;
}

void service_free(struct service *s)
{
    if (!s)
        return;
    for (int i = 0; s->w && i < s->nworkers; i++) {
        links_close(s->w[i].links);
        cache_close(s->w[i].cache);
    }
    free(s->w);
    free(s);
}

struct service_worker *service_worker_at(struct service *s, int i) { return &s->w[i]; }

struct service_worker *service_claim_worker(struct service *s)
{
    int i = atomic_fetch_add(&s->next_worker, 1);
    return i < s->nworkers ? &s->w[i] : NULL;
}
struct cache *service_worker_cache(struct service_worker *w) { return w->cache; }

/* The counters of one worker as numbers. */
static void worker_totals(struct service_worker *w, struct service_totals *t)
{
    for (int r = 0; r < ROUTE_COUNT; r++)
        for (int k = 0; k < SERVICE_NSTATUS; k++)
            t->req[r][k] = counter_get(&w->req[r][k]);
    t->sqlite_errors = counter_get(&w->sqlite_errors);
    memset(&t->store, 0, sizeof t->store);
    links_stats_add(w->links, &t->store);
    cache_stats(w->cache, &t->cache);
}

/* After each request: row = base + this worker's counters. The whole row,
 * not only the counter that moved: the cache's counters move inside
 * cache_lookup, out of sight of this function. About 50 relaxed stores to
 * a line only this thread writes, next to a request's tens of
 * microseconds. */
static void worker_publish(struct service_worker *w)
{
    struct service_totals mine;
    worker_totals(w, &mine);
    /* the counter words only (service_totals.h): no per-node list */
    uint64_t base[SERVICE_TALLY_WORDS], v[SERVICE_TALLY_WORDS];
    memcpy(base, &w->base, sizeof base);
    memcpy(v, &mine, sizeof v);
    for (size_t j = 0; j < SERVICE_TALLY_WORDS; j++)
        atomic_store_explicit(&w->pub[j], base[j] + v[j], memory_order_relaxed);
}

int service_attach_share(struct service *s, struct service_share *sh, int k)
{
    if (k < 0 || k >= service_share_procs(sh) || service_share_workers(sh) != s->nworkers)
        return -1;
    s->share = sh;
    s->slot = k;
    for (int i = 0; i < s->nworkers; i++) {
        struct service_worker *w = &s->w[i];
        _Atomic uint64_t *row = service_share_tally(sh, k, i);
        uint64_t v[SERVICE_TALLY_WORDS];
        for (size_t j = 0; j < SERVICE_TALLY_WORDS; j++)
            v[j] = atomic_load_explicit(&row[j], memory_order_relaxed);
        memcpy(&w->base, v, sizeof v);   /* what earlier occupants counted */
        w->pub = row;
    }
    return 0;
}

static void reply_json(struct service_reply *r, int status, cJSON *obj)
{
    r->status = status;
    r->body = obj ? cJSON_PrintUnformatted(obj) : NULL;
    cJSON_Delete(obj);
    if (!r->body) {   /* out of memory: still a valid reply */
        r->status = 500;
        r->body = NULL;
        r->len = 0;
        return;
    }
    r->len = strlen(r->body);
}

static void reply_string(struct service_reply *r, int status, const char *key,
                         const char *val)
{
    cJSON *o = cJSON_CreateObject();
    if (o && !cJSON_AddStringToObject(o, key, val)) {
        cJSON_Delete(o);
        o = NULL;
    }
    reply_json(r, status, o);
}

static void reply_error(struct service_reply *r, int status, const char *msg)
{
    reply_string(r, status, "error", msg);
}

void service_reply_free(struct service_reply *r)
{
    cJSON_free(r->body);
    r->body = NULL;
}

void service_handle(struct service *s, struct service_worker *w,
                    const char *method, const char *path, const char *authority,
                    const char *body, size_t bodylen, int body_too_large,
                    struct service_reply *r)
{
    struct request_match m;
    const char *why = NULL;
    char url[LINKS_URL_MAX + 1];
    size_t urllen = 0;

    memset(r, 0, sizeof *r);
    request_match(method, path, &m);
    if (m.route == ROUTE_UNKNOWN) {
        reply_error(r, 404, "not found");
    } else if (!m.method_ok) {
        reply_error(r, 405, "method not allowed");
        r->allow = m.allow;
    } else if (m.route == ROUTE_HEARTBEAT) {
        cJSON *o = cJSON_CreateObject();
        if (o && !cJSON_AddTrueToObject(o, "OK")) {
            cJSON_Delete(o);
            o = NULL;
        }
        reply_json(r, 200, o);
    } else if (m.route == ROUTE_STATS) {
        r->body = service_stats_json(s);
        r->status = r->body ? 200 : 500;
        r->len = r->body ? strlen(r->body) : 0;
    } else if (m.route == ROUTE_CREATE) {
        char id[LINKS_ID_LEN + 1];
        int rc;
        if (body_too_large)
            reply_error(r, 413, "body larger than 65536 bytes");
        else if ((rc = request_parse_create(body, bodylen, url, sizeof url, &urllen, &why)) != 0)
            reply_error(r, rc == -2 ? 503 : 400, why);   /* -2: out of memory */
        else if ((rc = request_is_self_link(url, urllen, authority)) != 0)
            reply_error(r, rc < 0 ? 503 : 400,
                        rc < 0 ? "out of memory"
                               : "url leads back to this service's /link/ (a redirect loop)");
        else
            switch (links_create(w->links, url, urllen, id)) {
            case LINKS_OK:
                reply_string(r, 201, "short_link", id);
                break;
            case LINKS_UNAVAILABLE:   /* nothing stored: the client may retry */
                reply_error(r, 503, "store unavailable: the primary cannot be reached");
                break;
            default:
                counter_bump(&w->sqlite_errors);
                reply_error(r, 500, "storage error");
            }
    } else {   /* ROUTE_RESOLVE */
        if (!linkid_valid(m.id, m.idlen)) {
            reply_error(r, 400, "invalid id: expected 1-64 characters of [A-Za-z0-9]");
        } else {
            switch (cache_lookup(w->cache, w->links, m.id, m.idlen, url, sizeof url, &urllen)) {
            case LINKS_OK:
                reply_string(r, 200, "link", url);
                break;
            case LINKS_NOTFOUND:
                reply_error(r, 404, "no such link");
                break;
            case LINKS_UNAVAILABLE:
                reply_error(r, 503, "store unavailable: no server can be reached");
                break;
            default:
                counter_bump(&w->sqlite_errors);
                reply_error(r, 500, "storage error");
            }
        }
    }
    counter_bump(&w->req[m.route][service_status_index(r->status)]);
    if (w->pub)
        worker_publish(w);
}

/* This process's counters: the cache's by cache_stats_add, which also
 * merges the per-node list by address (a word-by-word sum would add the
 * addresses). */
static void sum_counters(struct service *s, struct service_totals *t)
{
    memset(t, 0, sizeof *t);
    for (int i = 0; i < s->nworkers; i++) {
        struct service_worker *w = &s->w[i];
        for (int r = 0; r < ROUTE_COUNT; r++)
            for (int k = 0; k < SERVICE_NSTATUS; k++)
                t->req[r][k] += counter_get(&w->req[r][k]);
        t->sqlite_errors += counter_get(&w->sqlite_errors);
        links_stats_add(w->links, &t->store);
        cache_stats_add(w->cache, &t->cache);
    }
}

/* Which process answered, and the sum of all (serve --processes). */
static void add_share_fields(struct service *s, cJSON *o)
{
    struct service_share *sh = s->share;
    struct service_totals all;
    service_share_sum(sh, &all);
    cJSON *a = service_totals_object(&all, service_share_kind(sh), service_share_started_ns(sh));
    cJSON_AddNumberToObject(o, "process", s->slot);
    cJSON_AddNumberToObject(o, "processes", service_share_procs(sh));
    cJSON_AddNumberToObject(o, "pid", (double)getpid());
    cJSON_AddNumberToObject(o, "restarts", (double)service_share_restarts(sh));
    if (!a)
        return;
    cJSON_AddItemToObject(o, "all", a);
}

char *service_stats_json(struct service *s)
{
    struct service_totals t;
    sum_counters(s, &t);
    cJSON *o = service_totals_object(&t, &s->kind, s->started_ns);
    if (!o)
        return NULL;
    if (s->share)
        add_share_fields(s, o);
    char *txt = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    return txt;
}

void service_stats_print(struct service *s, void *fpv)
{
    struct service_totals t;
    sum_counters(s, &t);
    service_totals_print(&t, &s->kind, fpv);
}
