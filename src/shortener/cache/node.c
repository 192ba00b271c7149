/* node: one Valkey server's connection and backoff. See node.h. */
#include "shortener/cache/node.h"

#include <stdio.h>
#include <string.h>
#include <sys/time.h>

#include "base/counter.h"
#include "measure/clock.h"
#include "shortener/cache/cache_access.h"

int node_init(struct node *n, const struct cache_config *cfg, const char *host, int port)
{
    memset(n, 0, sizeof *n);
    snprintf(n->host, sizeof n->host, "%s", host);
    n->port = port;
    snprintf(n->addr, sizeof n->addr, "%s:%d", host, port);
    n->cfg = cfg;
    n->backoff_ms = CACHE_BACKOFF_MIN_MS;
    if (cfg->track &&
        !(n->tr = track_new(host, port, cfg->db,
                             cfg->track_size > 0 ? cfg->track_size : TRACK_SIZE_DEFAULT,
                             &cfg->cred)))
        return -1;
    return 0;
}

void node_fini(struct node *n)
{
    if (n->ctx)
        redisFree(n->ctx);
    n->ctx = NULL;
    track_free(n->tr);
    n->tr = NULL;
}

void node_drop(struct node *n)
{
    counter_bump(&n->errors);
    if (n->tr)   /* invalidations may be missed from now on */
        track_stop(n->tr);
    if (n->ctx) {
        redisFree(n->ctx);
        n->ctx = NULL;
    }
    n->next_try_ns = clock_now_ns() + n->backoff_ms * 1000000u;
    n->backoff_ms = n->backoff_ms * 2 > CACHE_BACKOFF_MAX_MS ? CACHE_BACKOFF_MAX_MS
                                                             : n->backoff_ms * 2;
}

static int select_db(struct node *n, redisContext *ctx, char *err, size_t errcap)
{
    redisReply *r = redisCommand(ctx, "SELECT %d", n->cfg->db);
    int ok = r && r->type == REDIS_REPLY_STATUS;
    n->refused = cache_refused(r);
    if (!ok && err)
        snprintf(err, errcap, "%s: SELECT %d failed: %s", n->addr, n->cfg->db,
                 r && r->type == REDIS_REPLY_ERROR ? r->str : ctx->errstr);
    if (r)
        freeReplyObject(r);
    return ok ? 0 : -1;
}

int node_connect(struct node *n, char *err, size_t errcap)
{
    const struct cache_config *cfg = n->cfg;
    n->refused = 0;
    redisContext *ctx = redisConnectWithTimeout(n->host, n->port,
                                                clock_timeval_ms(cfg->connect_timeout_ms));
    if (!ctx || ctx->err) {
        if (err)
            snprintf(err, errcap, "%s: %s", n->addr, ctx ? ctx->errstr : "out of memory");
        redisFree(ctx);
        return -1;
    }
    if (redisSetTimeout(ctx, clock_timeval_ms(cfg->command_timeout_ms)) != REDIS_OK) {
        if (err)
            snprintf(err, errcap, "%s: cannot set timeout", n->addr);
        redisFree(ctx);
        return -1;
    }
    char why[300];
    int auth = cache_auth(ctx, &cfg->cred, why, sizeof why);
    if (auth != 0) {
        n->refused = auth == -2;
        if (err)
            snprintf(err, errcap, "%s: %s", n->addr, why);
        redisFree(ctx);
        return -1;
    }
    if (cfg->db > 0 && select_db(n, ctx, err, errcap) != 0) {
        redisFree(ctx);
        return -1;
    }
    int tr = n->tr ? track_start(n->tr, cfg->connect_timeout_ms, cfg->command_timeout_ms, err,
                                 errcap) : 0;
    if (tr != 0) {
        n->refused = tr == -2;
        redisFree(ctx);
        return -1;
    }
    /* The backoff is reset by the first answered command, not here: a hung
     * server still completes TCP handshakes from its listen backlog. */
    n->ctx = ctx;
    counter_bump(&n->connects);
    return 0;
}

int node_resting(const struct node *n, uint64_t now_ns)
{
    return !n->ctx && now_ns < n->next_try_ns;
}

int node_ensure(struct node *n)
{
    if (n->ctx)
        return 0;
    if (clock_now_ns() < n->next_try_ns) {
        counter_bump(&n->skipped);
        return -1;
    }
    if (node_connect(n, NULL, 0) != 0) {
        node_drop(n);
        return -1;
    }
    return 0;
}

int node_read(struct node *n, redisReply **rep, int cnt)
{
    for (int i = 0; i < cnt; i++) {
        void *r = NULL;
        if (redisGetReply(n->ctx, &r) != REDIS_OK || !r) {
            for (int k = 0; k < i; k++)
                freeReplyObject(rep[k]);
            node_drop(n);
            return -1;
        }
        rep[i] = r;
    }
    n->backoff_ms = CACHE_BACKOFF_MIN_MS;   /* the server answers */
    return 0;
}

void node_stats_add(const struct node *n, struct cache_stats *sum)
{
    struct node *m = (struct node *)n;   /* atomic loads want non-const */
    sum->errors += counter_get(&m->errors);
    sum->skipped += counter_get(&m->skipped);
    sum->connects += counter_get(&m->connects);
    struct track_counts tc = {0, 0, 0};
    track_counts_add(m->tr, &tc);
    sum->invalidations += tc.invalidations;
    sum->local_flushes += tc.flushes;
    sum->local_evictions += tc.evictions;
}
