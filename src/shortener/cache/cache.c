/* cache: Valkey cache-aside over the link store. See cache.h. */
#include "shortener/cache/cache.h"

#include <errno.h>
#include <limits.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include <hiredis/hiredis.h>

#include "measure/clock.h"
#include "base/counter.h"
#include "base/net.h"
#include "shortener/cache/track.h"

struct cache {
    struct cache_config cfg;
    redisContext *ctx;        /* NULL while disconnected */
    uint64_t next_try_ns;     /* no reconnect before this (backoff) */
    uint64_t backoff_ms;
    struct track *tr;         /* client-side caching, or NULL */
    /* Single writer, read by cache_stats() from any thread. */
    _Atomic uint64_t hits, misses, errors, skipped, sets, connects, local_hits;
};

int cache_parse_url(const char *url, struct cache_config *cfg, char *err, size_t errcap)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->connect_timeout_ms = CACHE_TIMEOUT_MS;
    cfg->command_timeout_ms = CACHE_TIMEOUT_MS;
    const char *p;
    if (strncmp(url, "valkey://", 9) == 0)
        p = url + 9;
    else if (strncmp(url, "redis://", 8) == 0)
        p = url + 8;
    else if (strncmp(url, "valkey+track://", 15) == 0) {
        p = url + 15;
        cfg->track = 1;
    } else {
        snprintf(err, errcap, "bad cache URL '%s': expected none, valkey://HOST:PORT[/DB] "
                 "or valkey+track://HOST:PORT[/DB]", url);
        return -1;
    }
    /* The authority ends at the database's '/'. */
    const char *slash = strchr(p, '/');
    size_t alen = slash ? (size_t)(slash - p) : strlen(p);
    struct net_hostport hp;
    if (net_hostport_split(p, alen, &hp, NULL, 0) != 0 || (hp.bracketed && !hp.port)) {
        snprintf(err, errcap, "bad cache URL '%s': expected [IPv6]:PORT", url);
        return -1;
    }
    if (!hp.port) {
        snprintf(err, errcap, "bad cache URL '%s': missing :PORT", url);
        return -1;
    }
    if (hp.hlen == 0 || hp.hlen >= sizeof cfg->host || memchr(hp.host, '@', hp.hlen)) {
        snprintf(err, errcap, "bad cache URL '%s': bad host", url);
        return -1;
    }
    memcpy(cfg->host, hp.host, hp.hlen);
    cfg->host[hp.hlen] = '\0';
    long v;
    if (net_parse_num(hp.port, hp.plen, 1, 65535, &v) != 0) {
        snprintf(err, errcap, "bad cache URL '%s': port must be 1..65535", url);
        return -1;
    }
    cfg->port = (int)v;
    if (slash) {
        if (net_parse_num(slash + 1, strlen(slash + 1), 0, 1000000, &v) != 0) {
            snprintf(err, errcap, "bad cache URL '%s': database must be a number", url);
            return -1;
        }
        cfg->db = (int)v;
    }
    return 0;
}

static void drop(struct cache *c)
{
    counter_bump(&c->errors);
    if (c->tr)   /* invalidations may be missed from now on */
        track_stop(c->tr);
    if (c->ctx) {
        redisFree(c->ctx);
        c->ctx = NULL;
    }
    c->next_try_ns = clock_now_ns() + c->backoff_ms * 1000000u;
    c->backoff_ms = c->backoff_ms * 2 > CACHE_BACKOFF_MAX_MS ? CACHE_BACKOFF_MAX_MS
                                                             : c->backoff_ms * 2;
}

/* Connect now; 0 or -1 (reason in err when given). Does not count. */
static int connect_now(struct cache *c, char *err, size_t errcap)
{
    redisContext *ctx = redisConnectWithTimeout(c->cfg.host, c->cfg.port,
                                                clock_timeval_ms(c->cfg.connect_timeout_ms));
    if (!ctx || ctx->err) {
        if (err)
            snprintf(err, errcap, "%s:%d: %s", c->cfg.host, c->cfg.port,
                     ctx ? ctx->errstr : "out of memory");
        redisFree(ctx);
        return -1;
    }
    if (redisSetTimeout(ctx, clock_timeval_ms(c->cfg.command_timeout_ms)) != REDIS_OK) {
        if (err)
            snprintf(err, errcap, "%s:%d: cannot set timeout", c->cfg.host, c->cfg.port);
        redisFree(ctx);
        return -1;
    }
    if (c->cfg.db > 0) {
        redisReply *r = redisCommand(ctx, "SELECT %d", c->cfg.db);
        int ok = r && r->type == REDIS_REPLY_STATUS;
        if (!ok && err)
            snprintf(err, errcap, "%s:%d: SELECT %d failed: %s", c->cfg.host,
                     c->cfg.port, c->cfg.db,
                     r && r->type == REDIS_REPLY_ERROR ? r->str : ctx->errstr);
        if (r)
            freeReplyObject(r);
        if (!ok) {
            redisFree(ctx);
            return -1;
        }
    }
    if (c->tr && track_start(c->tr, ctx, c->cfg.host, c->cfg.port, c->cfg.connect_timeout_ms,
                             c->cfg.command_timeout_ms, err, errcap) != 0) {
        redisFree(ctx);
        return -1;
    }
    /* The backoff is reset by the first answered command, not here: a hung
     * server still completes TCP handshakes from its listen backlog. */
    c->ctx = ctx;
    counter_bump(&c->connects);
    return 0;
}

/* Connected, or connect if the backoff has expired. 0 = usable. */
static int ensure(struct cache *c)
{
    if (c->ctx)
        return 0;
    if (clock_now_ns() < c->next_try_ns) {
        counter_bump(&c->skipped);
        return -1;
    }
    if (connect_now(c, NULL, 0) != 0) {
        drop(c);
        return -1;
    }
    return 0;
}

struct cache *cache_open(const struct cache_config *cfg)
{
    struct cache *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->cfg = *cfg;
    if (c->cfg.connect_timeout_ms <= 0)
        c->cfg.connect_timeout_ms = CACHE_TIMEOUT_MS;
    if (c->cfg.command_timeout_ms <= 0)
        c->cfg.command_timeout_ms = CACHE_TIMEOUT_MS;
    c->backoff_ms = CACHE_BACKOFF_MIN_MS;
    if (c->cfg.track &&
        !(c->tr = track_new(c->cfg.track_size > 0 ? c->cfg.track_size : TRACK_SIZE_DEFAULT))) {
        free(c);
        return NULL;
    }
    if (connect_now(c, NULL, 0) != 0)
        drop(c);
    return c;
}

void cache_close(struct cache *c)
{
    if (!c)
        return;
    if (c->ctx)
        redisFree(c->ctx);
    track_free(c->tr);
    free(c);
}

int cache_ping(struct cache *c, char *err, size_t errcap)
{
    if (!c->ctx && connect_now(c, err, errcap) != 0) {
        drop(c);
        return -1;
    }
    redisReply *r = redisCommand(c->ctx, "PING");
    if (!r || r->type != REDIS_REPLY_STATUS) {
        snprintf(err, errcap, "%s:%d: PING failed: %s", c->cfg.host, c->cfg.port,
                 r && r->type == REDIS_REPLY_ERROR ? r->str : c->ctx->errstr);
        if (r)
            freeReplyObject(r);
        drop(c);
        return -1;
    }
    freeReplyObject(r);
    return 0;
}

/* Read n pipelined replies into rep. 0, or -1 after dropping the
 * connection (I/O error or timeout: the stream is out of step). */
static int pipeline_read(struct cache *c, redisReply **rep, int n)
{
    for (int i = 0; i < n; i++) {
        void *r = NULL;
        if (redisGetReply(c->ctx, &r) != REDIS_OK || !r) {
            for (int k = 0; k < i; k++)
                freeReplyObject(rep[k]);
            drop(c);
            return -1;
        }
        rep[i] = r;
    }
    c->backoff_ms = CACHE_BACKOFF_MIN_MS;   /* the server answers */
    return 0;
}

/* Local deadline of a key from its PTTL reply, read in the same round
 * trip as the value: counted from before the request was sent, so the
 * local copy expires no later than the key. 0: no expiry; 1: gone. */
static uint64_t pttl_deadline(const redisReply *r, uint64_t sent_ns)
{
    if (!r || r->type != REDIS_REPLY_INTEGER || r->integer == -1)
        return 0;
    if (r->integer < 0)
        return 1;
    return sent_ns + (uint64_t)r->integer * 1000000u;
}

/* GET key (and PTTL when tracking). 1: hit, URL in url; 0: miss; -1:
 * failure (counted). *deadline: see pttl_deadline. */
static int valkey_get(struct cache *c, const char *key, size_t klen, char *url, size_t cap,
                      size_t *urllen, uint64_t *deadline)
{
    uint64_t sent = clock_now_ns();
    int n = c->tr ? 2 : 1;
    redisReply *rep[2] = {NULL, NULL};
    if (redisAppendCommand(c->ctx, "GET %b", key, klen) != REDIS_OK ||
        (c->tr && redisAppendCommand(c->ctx, "PTTL %b", key, klen) != REDIS_OK)) {
        drop(c);
        return -1;
    }
    if (pipeline_read(c, rep, n) != 0)
        return -1;
    int out = -1;
    redisReply *r = rep[0];
    if (r->type == REDIS_REPLY_STRING && (size_t)r->len < cap) {
        memcpy(url, r->str, (size_t)r->len);
        url[r->len] = '\0';
        if (urllen)
            *urllen = (size_t)r->len;
        *deadline = c->tr ? pttl_deadline(rep[1], sent) : 0;
        counter_bump(&c->hits);
        out = 1;
    } else if (r->type == REDIS_REPLY_NIL) {
        counter_bump(&c->misses);
        out = 0;
    } else {
        /* An error reply (e.g. LOADING after a restart) or a value that
         * cannot be ours: the connection itself is fine. */
        counter_bump(&c->errors);
    }
    for (int i = 0; i < n; i++)
        freeReplyObject(rep[i]);
    return out;
}

/* Store url after a miss. When tracking, read the key back (GET, PTTL) in
 * the same round trip: our own SET ended its tracking (NOLOOP spares us
 * the invalidation, not the untracking), the GET tracks it again, and the
 * local map gets what Valkey holds now. */
static void valkey_fill(struct cache *c, const char *key, size_t klen, const char *id,
                        size_t idlen, const char *url, size_t n)
{
    uint64_t sent = clock_now_ns();
    int bad = c->cfg.ttl_s > 0
        ? redisAppendCommand(c->ctx, "SET %b %b EX %lld", key, klen, url, n,
                             (long long)c->cfg.ttl_s) != REDIS_OK
        : redisAppendCommand(c->ctx, "SET %b %b", key, klen, url, n) != REDIS_OK;
    if (!bad && c->tr)
        bad = redisAppendCommand(c->ctx, "GET %b", key, klen) != REDIS_OK ||
              redisAppendCommand(c->ctx, "PTTL %b", key, klen) != REDIS_OK;
    if (bad) {
        drop(c);
        return;
    }
    redisReply *rep[3] = {NULL, NULL, NULL};
    int nrep = c->tr ? 3 : 1;
    if (pipeline_read(c, rep, nrep) != 0)
        return;
    if (rep[0]->type == REDIS_REPLY_STATUS)
        counter_bump(&c->sets);
    else
        counter_bump(&c->errors);
    if (c->tr && rep[1]->type == REDIS_REPLY_STRING) {
        uint64_t deadline = pttl_deadline(rep[2], sent);
        if (deadline != 1)
            track_put(c->tr, id, idlen, rep[1]->str, (size_t)rep[1]->len, deadline);
    }
    for (int i = 0; i < nrep; i++)
        freeReplyObject(rep[i]);
}

enum links_rc cache_lookup(struct cache *c, struct links *l,
                           const char *id, size_t idlen,
                           char *url, size_t cap, size_t *urllen)
{
    if (!c || idlen > LINKS_ID_MAX)
        return links_lookup(l, id, idlen, url, cap, urllen);

    if (c->tr && c->ctx) {   /* process memory first, when it may answer */
        uint64_t now = clock_now_ns();
        int st = track_poll(c->tr, now);
        if (st < 0) {
            drop(c);   /* the channel is lost: so is the session */
        } else if (st > 0 && track_get(c->tr, id, idlen, now, url, cap, urllen)) {
            counter_bump(&c->local_hits);
            return LINKS_OK;
        }
    }

    char key[sizeof CACHE_KEY_PREFIX + LINKS_ID_MAX];
    size_t plen = sizeof CACHE_KEY_PREFIX - 1;
    memcpy(key, CACHE_KEY_PREFIX, plen);
    memcpy(key + plen, id, idlen);
    size_t klen = plen + idlen;

    int missed = 0;
    if (ensure(c) == 0) {
        uint64_t deadline = 0;
        size_t n = 0;
        int got = valkey_get(c, key, klen, url, cap, &n, &deadline);
        if (got == 1) {
            if (c->tr && deadline != 1)
                track_put(c->tr, id, idlen, url, n, deadline);
            if (urllen)
                *urllen = n;
            return LINKS_OK;
        }
        missed = got == 0;
    }

    size_t n = 0;
    enum links_rc rc = links_lookup(l, id, idlen, url, cap, &n);
    if (urllen)
        *urllen = n;
    if (rc == LINKS_OK && missed && c->ctx)
        valkey_fill(c, key, klen, id, idlen, url, n);
    return rc;
}

void cache_stats(const struct cache *c, struct cache_stats *out)
{
    memset(out, 0, sizeof *out);
    cache_stats_add(c, out);
}

void cache_stats_add(const struct cache *c, struct cache_stats *sum)
{
    if (!c)
        return;
    struct cache *m = (struct cache *)c;   /* atomic loads want non-const */
    sum->hits += counter_get(&m->hits);
    sum->misses += counter_get(&m->misses);
    sum->errors += counter_get(&m->errors);
    sum->skipped += counter_get(&m->skipped);
    sum->sets += counter_get(&m->sets);
    sum->connects += counter_get(&m->connects);
    sum->local_hits += counter_get(&m->local_hits);
    struct track_counts tc = {0, 0, 0};
    track_counts_add(m->tr, &tc);
    sum->invalidations += tc.invalidations;
    sum->local_flushes += tc.flushes;
    sum->local_evictions += tc.evictions;
}
