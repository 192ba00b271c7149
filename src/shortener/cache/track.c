/* track: client-side caching over RESP2 + REDIRECT. See track.h. */
#include "shortener/cache/track.h"

#include <poll.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "shortener/cache/cache.h"
#include "base/counter.h"
#include "measure/clock.h"
#include "shortener/cache/trackmap.h"

#define INVALIDATE_CHANNEL "__redis__:invalidate"
#define MS ((uint64_t)1000000)

struct track {
    struct trackmap *map;
    redisContext *sub;       /* the invalidation channel; NULL when stopped */
    uint64_t last_poll_ns, last_pong_ns, ping_sent_ns;
    int ping_pending;
    _Atomic uint64_t invalidations, flushes, evictions;
};

struct track *track_new(int64_t max_entries)
{
    struct track *t = calloc(1, sizeof *t);
    if (!t || !(t->map = trackmap_new(max_entries))) {
        free(t);
        return NULL;
    }
    return t;
}

void track_free(struct track *t)
{
    if (!t)
        return;
    track_stop(t);
    trackmap_free(t->map);
    free(t);
}

static void flush(struct track *t)
{
    if (trackmap_count(t->map) > 0)
        counter_bump(&t->flushes);
    trackmap_clear(t->map);
}

void track_stop(struct track *t)
{
    if (t->sub) {
        redisFree(t->sub);
        t->sub = NULL;
    }
    flush(t);
}

/* One command on ctx whose reply must have type want (and for a status,
 * be OK). 0 or -1 with the reason in err. *out gets the integer reply. */
static int command_ok(redisContext *ctx, int want, long long *out, char *err, size_t cap,
                      const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    redisReply *r = redisvCommand(ctx, fmt, ap);
    va_end(ap);
    int ok = r && r->type == want;
    if (ok && out)
        *out = r->integer;
    if (!ok && err)
        snprintf(err, cap, "%s: %s", fmt,
                 r && r->type == REDIS_REPLY_ERROR ? r->str : r ? "unexpected reply" : ctx->errstr);
    if (r)
        freeReplyObject(r);
    return ok ? 0 : -1;
}

int track_start(struct track *t, redisContext *main, const char *host, int port,
                int connect_ms, int command_ms, char *err, size_t errcap)
{
    track_stop(t);   /* a new session starts with an empty map */
    redisContext *sub = redisConnectWithTimeout(host, port, clock_timeval_ms(connect_ms));
    if (!sub || sub->err) {
        if (err)
            snprintf(err, errcap, "invalidation channel: %s", sub ? sub->errstr : "out of memory");
        redisFree(sub);
        return -1;
    }
    long long id = 0;
    redisReply *r = NULL;
    int bad = redisSetTimeout(sub, clock_timeval_ms(command_ms)) != REDIS_OK ||
              command_ok(sub, REDIS_REPLY_INTEGER, &id, err, errcap, "CLIENT ID") != 0;
    /* SUBSCRIBE before TRACKING: no invalidation can be sent to a client
     * that is not yet listening. */
    if (!bad) {
        r = redisCommand(sub, "SUBSCRIBE " INVALIDATE_CHANNEL);
        bad = !r || r->type != REDIS_REPLY_ARRAY;
        if (bad && err)
            snprintf(err, errcap, "SUBSCRIBE %s failed", INVALIDATE_CHANNEL);
        if (r)
            freeReplyObject(r);
    }
    if (!bad)
        bad = command_ok(main, REDIS_REPLY_STATUS, NULL, err, errcap,
                         "CLIENT TRACKING on REDIRECT %lld NOLOOP", id) != 0;
    if (bad) {
        redisFree(sub);
        return -1;
    }
    t->sub = sub;
    t->last_pong_ns = t->last_poll_ns = 0;
    t->ping_pending = 0;
    return 0;
}

/* Drop the map entry of one invalidated key (ours are prefixed). */
static void invalidate_key(struct track *t, const redisReply *k)
{
    size_t plen = sizeof CACHE_KEY_PREFIX - 1;
    if (k->type != REDIS_REPLY_STRING || (size_t)k->len <= plen ||
        memcmp(k->str, CACHE_KEY_PREFIX, plen) != 0)
        return;
    if (trackmap_del(t->map, k->str + plen, (size_t)k->len - plen))
        counter_bump(&t->invalidations);
}

static void handle(struct track *t, const redisReply *r, uint64_t now_ns)
{
    if (r->type != REDIS_REPLY_ARRAY || r->elements < 2 ||
        r->element[0]->type != REDIS_REPLY_STRING)
        return;
    const char *kind = r->element[0]->str;
    if (strcmp(kind, "pong") == 0) {
        t->last_pong_ns = now_ns;
        t->ping_pending = 0;
    } else if (strcmp(kind, "message") == 0 && r->elements == 3) {
        const redisReply *keys = r->element[2];
        if (keys->type == REDIS_REPLY_ARRAY) {
            for (size_t i = 0; i < keys->elements; i++)
                invalidate_key(t, keys->element[i]);
        } else {
            flush(t);   /* nil: the server invalidates everything (FLUSHALL) */
        }
    }
}

/* Everything readable now, without blocking. 0, or -1 on a lost channel. */
static int drain(struct track *t, uint64_t now_ns)
{
    for (int rounds = 0; rounds < 64; rounds++) {
        void *rep = NULL;
        while (redisGetReplyFromReader(t->sub, &rep) == REDIS_OK && rep) {
            handle(t, rep, now_ns);
            freeReplyObject(rep);
            rep = NULL;
        }
        if (t->sub->err)
            return -1;
        struct pollfd p = {t->sub->fd, POLLIN, 0};
        int n = poll(&p, 1, 0);
        if (n < 0)
            return -1;
        if (n == 0)
            return 0;
        if (redisBufferRead(t->sub) != REDIS_OK)   /* EOF: the server went away */
            return -1;
    }
    return 0;
}

static int send_ping(struct track *t, uint64_t now_ns)
{
    if (redisAppendCommand(t->sub, "PING") != REDIS_OK)
        return -1;
    int done = 0;
    while (!done)
        if (redisBufferWrite(t->sub, &done) != REDIS_OK)
            return -1;
    t->ping_pending = 1;
    t->ping_sent_ns = now_ns;
    return 0;
}

int track_poll(struct track *t, uint64_t now_ns)
{
    if (!t->sub)
        return -1;
    if (t->last_poll_ns && now_ns - t->last_poll_ns < TRACK_POLL_NS)
        return now_ns - t->last_pong_ns < TRACK_FRESH_MS * MS;
    t->last_poll_ns = now_ns;
    int lost = drain(t, now_ns) != 0;
    if (!lost && t->ping_pending && now_ns - t->ping_sent_ns > TRACK_LOST_MS * MS)
        lost = 1;
    if (!lost && !t->ping_pending && now_ns - t->last_pong_ns >= TRACK_PING_MS * MS)
        lost = send_ping(t, now_ns) != 0;
    if (lost) {
        track_stop(t);
        return -1;
    }
    return t->last_pong_ns && now_ns - t->last_pong_ns < TRACK_FRESH_MS * MS;
}

int track_get(struct track *t, const char *id, size_t idlen, uint64_t now_ns,
              char *url, size_t cap, size_t *urllen)
{
    return t->sub && trackmap_get(t->map, id, idlen, now_ns, url, cap, urllen);
}

void track_put(struct track *t, const char *id, size_t idlen, const char *url,
               size_t urllen, uint64_t deadline_ns)
{
    if (t->sub && trackmap_put(t->map, id, idlen, url, urllen, deadline_ns) == 1)
        counter_bump(&t->evictions);
}

void track_counts_add(const struct track *t, struct track_counts *sum)
{
    if (!t)
        return;
    struct track *m = (struct track *)t;   /* atomic loads want non-const */
    sum->invalidations += counter_get(&m->invalidations);
    sum->flushes += counter_get(&m->flushes);
    sum->evictions += counter_get(&m->evictions);
}
