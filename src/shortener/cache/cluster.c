/* cluster: slot map, redirects and refresh for valkey-cluster://. See
 * cluster.h; the protocol's pure parts are in cluster_slots.c. */
#include "shortener/cache/cluster.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/counter.h"
#include "measure/clock.h"
#include "shortener/cache/cache_access.h"
#include "shortener/cache/cluster_slots.h"

#define MS ((uint64_t)1000000)

struct cluster {
    const struct cache_config *cfg;
    struct node nodes[CLUSTER_MAX_NODES];
    _Atomic int mapped[CLUSTER_MAX_NODES];   /* owned slots once: a primary */
    _Atomic int nnodes;     /* published after the node is set up */
    uint8_t slot[CLUSTER_NSLOTS];   /* owner's index + 1; 0: none known */
    uint8_t next[CLUSTER_NSLOTS];   /* the map being read by a refresh */
    int stale;
    struct node *answered;   /* the node the last good refresh asked */
    uint64_t last_refresh_ns;
    _Atomic uint64_t moved, ask, refreshes;
};

/* Index of host:port, added when new; -1 when the table is full. */
static int node_index(struct cluster *cl, const char *host, int port)
{
    int nn = atomic_load_explicit(&cl->nnodes, memory_order_relaxed);
    for (int i = 0; i < nn; i++)
        if (cl->nodes[i].port == port && strcmp(cl->nodes[i].host, host) == 0)
            return i;
    if (nn == CLUSTER_MAX_NODES || node_init(&cl->nodes[nn], cl->cfg, host, port) != 0)
        return -1;
    atomic_store_explicit(&cl->nnodes, nn + 1, memory_order_release);
    return nn;
}

struct cluster *cluster_new(const struct cache_config *cfg)
{
    struct cluster *cl = calloc(1, sizeof *cl);
    if (!cl)
        return NULL;
    cl->cfg = cfg;
    for (int i = 0; i < cfg->nseeds; i++)
        if (node_index(cl, cfg->seeds[i].host, cfg->seeds[i].port) < 0) {
            cluster_free(cl);
            return NULL;
        }
    cluster_refresh(cl, 0, NULL, 0);   /* no node is resting yet */
    return cl;
}

void cluster_free(struct cluster *cl)
{
    if (!cl)
        return;
    int nn = atomic_load_explicit(&cl->nnodes, memory_order_relaxed);
    for (int i = 0; i < nn; i++)
        node_fini(&cl->nodes[i]);
    free(cl);
}

/* One CLUSTER SLOTS entry: [start, end, [host, port, ...], replicas...]. */
static void map_entry(struct cluster *cl, const struct node *from, const redisReply *e)
{
    if (e->type != REDIS_REPLY_ARRAY || e->elements < 3 ||
        e->element[0]->type != REDIS_REPLY_INTEGER || e->element[1]->type != REDIS_REPLY_INTEGER)
        return;
    const redisReply *pr = e->element[2];
    if (pr->type != REDIS_REPLY_ARRAY || pr->elements < 2 ||
        pr->element[1]->type != REDIS_REPLY_INTEGER)
        return;
    /* A NULL, empty or "?" endpoint means: the node that answered (NULL is
     * what cluster-preferred-endpoint-type unknown-endpoint sends). */
    const redisReply *h = pr->element[0];
    if (h->type != REDIS_REPLY_STRING && h->type != REDIS_REPLY_NIL)
        return;
    const char *host = h->type == REDIS_REPLY_NIL ? "" : h->str;
    if (!host[0] || strcmp(host, "?") == 0)
        host = from->host;
    long long lo = e->element[0]->integer, hi = e->element[1]->integer;
    long long port = pr->element[1]->integer;
    if (lo < 0 || hi >= CLUSTER_NSLOTS || lo > hi || port < 1 || port > 65535)
        return;
    int i = node_index(cl, host, (int)port);
    if (i < 0)
        return;
    atomic_store_explicit(&cl->mapped[i], 1, memory_order_relaxed);
    memset(cl->next + lo, i + 1, (size_t)(hi - lo + 1));
}

/* CLUSTER SLOTS on n (connected). 0, or -1 with the reason in err. */
static int ask_slots(struct cluster *cl, struct node *n, char *err, size_t errcap)
{
    redisReply *r = redisCommand(n->ctx, "CLUSTER SLOTS");
    n->refused = cache_refused(r);
    if (!r) {
        if (err)
            snprintf(err, errcap, "%s: %s", n->addr, n->ctx->errstr);
        node_drop(n);
        return -1;
    }
    n->backoff_ms = CACHE_BACKOFF_MIN_MS;   /* the server answers */
    int ok = r->type == REDIS_REPLY_ARRAY && r->elements > 0;
    if (ok) {
        memset(cl->next, 0, sizeof cl->next);
        for (size_t k = 0; k < r->elements; k++)
            map_entry(cl, n, r->element[k]);
        memcpy(cl->slot, cl->next, sizeof cl->slot);
        cl->stale = 0;
        counter_bump(&cl->refreshes);
    } else if (err) {
        snprintf(err, errcap, "%s: CLUSTER SLOTS: %s", n->addr,
                 r->type == REDIS_REPLY_ERROR ? r->str : "no slots are served");
    }
    freeReplyObject(r);
    return ok ? 0 : -1;
}

int cluster_refresh(struct cluster *cl, int insist, char *err, size_t errcap)
{
    cl->last_refresh_ns = clock_now_ns();
    if (err)
        snprintf(err, errcap, "no node to ask");
    /* A refusal's reason is kept: the nodes asked after it would only add
     * "connection refused" over it. */
    int refused = 0;
    /* Connected nodes first: no connect to pay. */
    for (int pass = 0; pass < 2; pass++) {
        int nn = atomic_load_explicit(&cl->nnodes, memory_order_relaxed);
        for (int i = 0; i < nn; i++) {
            struct node *n = &cl->nodes[i];
            char *e = refused ? NULL : err;
            if ((pass == 0) != (n->ctx != NULL))
                continue;
            if (pass == 1 && !insist && node_resting(n, cl->last_refresh_ns))
                continue;
            if (pass == 1 && node_connect(n, e, errcap) != 0) {
                refused |= n->refused;
                node_drop(n);
                continue;
            }
            if (ask_slots(cl, n, e, errcap) == 0) {
                cl->answered = n;
                return 0;
            }
            refused |= n->refused;
        }
    }
    cl->stale = 1;
    return refused ? -2 : -1;
}

struct node *cluster_answered(struct cluster *cl)
{
    return cl->answered && cl->answered->ctx ? cl->answered : NULL;
}

struct node *cluster_route(struct cluster *cl, int slot)
{
    uint64_t now = clock_now_ns();
    if (cl->stale && now - cl->last_refresh_ns >= CLUSTER_REFRESH_MS * MS)
        cluster_refresh(cl, 0, NULL, 0);
    int i = cl->slot[slot];
    if (!i) {
        cl->stale = 1;
        return NULL;
    }
    struct node *n = &cl->nodes[i - 1];
    if (node_resting(n, now))   /* down: has a replica taken its slots? */
        cl->stale = 1;
    return n;
}

void cluster_stale(struct cluster *cl)
{
    cl->stale = 1;
}

struct node *cluster_redirect(struct cluster *cl, const struct node *from, const redisReply *r,
                              int *ask)
{
    struct cluster_redirect rd;
    if (r->type != REDIS_REPLY_ERROR ||
        cluster_redirect_parse(r->str, (size_t)r->len, &rd) != 0)
        return NULL;
    int i = node_index(cl, rd.host[0] ? rd.host : from->host, rd.port);
    if (i < 0)
        return NULL;
    *ask = rd.ask;
    if (rd.ask) {
        counter_bump(&cl->ask);
    } else {
        counter_bump(&cl->moved);
        cl->slot[rd.slot] = (uint8_t)(i + 1);
        atomic_store_explicit(&cl->mapped[i], 1, memory_order_relaxed);
        cl->stale = 1;   /* a slot moved: others may have too */
    }
    return &cl->nodes[i];
}

/* Per-node lookups, merged by address (threads have a table each). */
static void add_node_lookups(struct cache_stats *sum, const char *addr, uint64_t lookups)
{
    int k = 0;
    while (k < sum->nnodes && strcmp(sum->nodes[k].addr, addr) != 0)
        k++;
    if (k == sum->nnodes) {
        if (k == CACHE_STATS_NODES)
            return;
        snprintf(sum->nodes[k].addr, sizeof sum->nodes[k].addr, "%s", addr);
        sum->nodes[k].lookups = 0;
        sum->nnodes++;
    }
    sum->nodes[k].lookups += lookups;
}

void cluster_stats_add(const struct cluster *cl, struct cache_stats *sum)
{
    struct cluster *m = (struct cluster *)cl;   /* atomic loads want non-const */
    sum->moved += counter_get(&m->moved);
    sum->ask += counter_get(&m->ask);
    sum->map_refreshes += counter_get(&m->refreshes);
    int nn = atomic_load_explicit(&m->nnodes, memory_order_acquire);
    for (int i = 0; i < nn; i++) {
        node_stats_add(&m->nodes[i], sum);
        if (atomic_load_explicit(&m->mapped[i], memory_order_relaxed))
            add_node_lookups(sum, m->nodes[i].addr, counter_get(&m->nodes[i].lookups));
    }
}
