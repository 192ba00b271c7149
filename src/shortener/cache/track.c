/* track: client-side caching over RESP2 + REDIRECT, one map and one
 * invalidation channel per server per process. See track.h. */
#include "shortener/cache/track.h"

#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>

#include "shortener/cache/cache.h"
#include "base/counter.h"
#include "measure/clock.h"
#include "shortener/cache/cache_access.h"
#include "shortener/cache/trackshard.h"

#define INVALIDATE_CHANNEL "__redis__:invalidate"
#define MS ((uint64_t)1000000)
#define NO_TICKET UINT64_MAX   /* an epoch never gets there */

/* What every connection of the process to one server shares. */
struct shared {
    struct shared *next;          /* the registry (reg_mu) */
    char host[256];
    int port, db;
    int64_t size;
    struct cache_cred cred;       /* the channel's AUTH (the first caller's) */
    int refs;                     /* under reg_mu */
    struct trackshard *map;
    pthread_mutex_t chan_mu;      /* one reader of the channel at a time */
    redisContext *sub;            /* the channel; NULL when lost (chan_mu) */
    long long sub_id;             /* its client id (chan_mu) */
    uint64_t ping_sent_ns;        /* chan_mu */
    int ping_pending;             /* chan_mu */
    _Atomic uint64_t gen;         /* moved on by every channel start (to odd)
                                     and loss (to even) */
    _Atomic uint64_t last_poll_ns, last_pong_ns;
};

/* One data connection's session on the shared map. */
struct track {
    struct shared *sh;
    uint64_t gen;   /* the channel generation it has seen open; 0: none */
    _Atomic uint64_t invalidations, flushes, evictions;
};

static pthread_mutex_t reg_mu = PTHREAD_MUTEX_INITIALIZER;
static struct shared *reg;

static struct shared *shared_get(const char *host, int port, int db, int64_t size,
                                 const struct cache_cred *cred)
{
    pthread_mutex_lock(&reg_mu);
    struct shared *s = reg;
    while (s && !(s->port == port && s->db == db && s->size == size && strcmp(s->host, host) == 0))
        s = s->next;
    if (!s && (s = calloc(1, sizeof *s)) != NULL) {
        if (!(s->map = trackshard_new(size))) {
            free(s);
            s = NULL;
        } else {
            snprintf(s->host, sizeof s->host, "%s", host);
            s->port = port;
            s->db = db;
            s->size = size;
            if (cred)
                s->cred = *cred;
            pthread_mutex_init(&s->chan_mu, NULL);
            atomic_init(&s->gen, 0);
            atomic_init(&s->last_poll_ns, 0);
            atomic_init(&s->last_pong_ns, 0);
            s->next = reg;
            reg = s;
        }
    }
    if (s)
        s->refs++;
    pthread_mutex_unlock(&reg_mu);
    return s;
}

static void shared_put(struct shared *s)
{
    pthread_mutex_lock(&reg_mu);
    int last = --s->refs == 0;
    if (last) {
        struct shared **p = &reg;
        while (*p != s)
            p = &(*p)->next;
        *p = s->next;
    }
    pthread_mutex_unlock(&reg_mu);
    if (!last)
        return;
    if (s->sub)
        redisFree(s->sub);
    trackshard_free(s->map);
    pthread_mutex_destroy(&s->chan_mu);
    free(s);
}

struct track *track_new(const char *host, int port, int db, int64_t max_entries,
                        const struct cache_cred *cred)
{
    struct track *t = calloc(1, sizeof *t);
    if (!t || !(t->sh = shared_get(host, port, db, max_entries, cred))) {
        free(t);
        return NULL;
    }
    return t;
}

void track_free(struct track *t)
{
    if (!t)
        return;
    track_stop(t);   /* stopped first, whatever stopping comes to need */
    shared_put(t->sh);
    free(t);
}

/* Empty the shared map, counted on t when it held entries. */
static void flush(struct track *t)
{
    if (trackshard_clear(t->sh->map) > 0)
        counter_bump(&t->flushes);
}

static uint64_t gen_now(const struct shared *s)
{
    return atomic_load_explicit(&((struct shared *)s)->gen, memory_order_acquire);
}

/* A new generation: every ticket taken before it is stale. Then the map
 * is emptied (in this order, see track_ticket). Caller holds chan_mu. */
static void new_generation(struct track *t)
{
    atomic_fetch_add_explicit(&t->sh->gen, 1, memory_order_acq_rel);
    flush(t);   /* after the generation moved: see track_ticket */
}

void track_stop(struct track *t)
{
    /* Nothing to empty: invalidations are broadcast to the channel for
     * every key under the prefix, whichever connection read it. */
    t->gen = 0;
}

/* One command on ctx whose reply must have type want (and for a status,
 * be OK). 0, or -1 with the reason in err (-2: the server refused it,
 * cache_refused). *out gets the integer reply. */
static int command_ok(redisContext *ctx, int want, long long *out, char *err, size_t errcap,
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
        snprintf(err, errcap, "%s: %s", fmt,
                 r && r->type == REDIS_REPLY_ERROR ? r->str : r ? "unexpected reply" : ctx->errstr);
    int refused = cache_refused(r);
    if (r)
        freeReplyObject(r);
    return ok ? 0 : refused ? -2 : -1;
}

static int poll_channel(struct track *t, uint64_t now_ns);

/* Open the shared channel (caller holds chan_mu; none is open). 0, or -1
 * with err (-2: the server refused a command, track_start). */
static int channel_open(struct track *t, int connect_ms, int command_ms, char *err,
                        size_t errcap)
{
    struct shared *s = t->sh;
    redisContext *sub = redisConnectWithTimeout(s->host, s->port, clock_timeval_ms(connect_ms));
    if (!sub || sub->err) {
        if (err)
            snprintf(err, errcap, "invalidation channel: %s", sub ? sub->errstr : "out of memory");
        redisFree(sub);
        return -1;
    }
    long long id = 0;
    char why[300];
    /* bad: 0, -1, or -2 when the server refused (track_start) */
    int bad = redisSetTimeout(sub, clock_timeval_ms(command_ms)) != REDIS_OK ? -1 : 0;
    if (!bad && (bad = cache_auth(sub, &s->cred, why, sizeof why)) != 0 && err)
        snprintf(err, errcap, "invalidation channel: %s", why);
    if (!bad)
        bad = command_ok(sub, REDIS_REPLY_INTEGER, &id, err, errcap, "CLIENT ID");
    /* Broadcast mode, redirected to this very connection: every write of a
     * key under our prefix is reported here, whichever connection read it,
     * so a data connection that drops loses no invalidation. Before
     * SUBSCRIBE (a subscribed RESP2 connection takes no other command);
     * what is sent in between is lost, but the map is empty until the
     * new generation is published, after SUBSCRIBE. */
    if (!bad)
        bad = command_ok(sub, REDIS_REPLY_STATUS, NULL, err, errcap,
                         "CLIENT TRACKING on REDIRECT %lld BCAST PREFIX %s", id,
                         CACHE_KEY_PREFIX);
    if (!bad) {
        redisReply *r = redisCommand(sub, "SUBSCRIBE " INVALIDATE_CHANNEL);
        bad = r && r->type == REDIS_REPLY_ARRAY ? 0 : cache_refused(r) ? -2 : -1;
        if (bad && err)
            snprintf(err, errcap, "SUBSCRIBE %s failed%s%s", INVALIDATE_CHANNEL,
                     r && r->type == REDIS_REPLY_ERROR ? ": " : "",
                     r && r->type == REDIS_REPLY_ERROR ? r->str : "");
        if (r)
            freeReplyObject(r);
    }
    if (bad) {
        redisFree(sub);
        return bad;
    }
    s->sub = sub;
    s->sub_id = id;
    s->ping_pending = 0;
    atomic_store(&s->last_pong_ns, 0);
    atomic_store(&s->last_poll_ns, 0);
    new_generation(t);
    return 0;
}

/* The channel is gone (caller holds chan_mu). */
static void channel_lost(struct track *t)
{
    struct shared *s = t->sh;
    if (s->sub) {
        redisFree(s->sub);
        s->sub = NULL;
    }
    new_generation(t);
}

int track_start(struct track *t, int connect_ms, int command_ms, char *err, size_t errcap)
{
    track_stop(t);
    struct shared *s = t->sh;
    pthread_mutex_lock(&s->chan_mu);
    /* A reconnect often follows a server restart: read the open channel
     * first, so a dead one (EOF) is replaced now, not at the next poll. */
    if (s->sub && poll_channel(t, clock_now_ns()) != 0)
        channel_lost(t);
    int rc = s->sub ? 0 : channel_open(t, connect_ms, command_ms, err, errcap);
    uint64_t gen = gen_now(s);
    pthread_mutex_unlock(&s->chan_mu);
    if (rc != 0)
        return rc;
    /* Had the channel been lost meanwhile, gen is old: track_poll says so. */
    t->gen = gen;
    return 0;
}

/* Drop the map entry of one invalidated key (ours are prefixed). */
static void invalidate_key(struct track *t, const redisReply *k)
{
    size_t plen = sizeof CACHE_KEY_PREFIX - 1;
    if (k->type != REDIS_REPLY_STRING || (size_t)k->len <= plen ||
        memcmp(k->str, CACHE_KEY_PREFIX, plen) != 0)
        return;
    if (trackshard_del(t->sh->map, k->str + plen, (size_t)k->len - plen))
        counter_bump(&t->invalidations);
}

static void handle(struct track *t, const redisReply *r, uint64_t now_ns)
{
    if (r->type != REDIS_REPLY_ARRAY || r->elements < 2 ||
        r->element[0]->type != REDIS_REPLY_STRING)
        return;
    const char *kind = r->element[0]->str;
    if (strcmp(kind, "pong") == 0) {
        atomic_store(&t->sh->last_pong_ns, now_ns);
        t->sh->ping_pending = 0;
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

/* Everything readable now, without blocking (caller holds chan_mu). 0, or
 * -1 on a lost channel. */
static int drain(struct track *t, uint64_t now_ns)
{
    redisContext *sub = t->sh->sub;
    for (int rounds = 0; rounds < 64; rounds++) {
        void *rep = NULL;
        while (redisGetReplyFromReader(sub, &rep) == REDIS_OK && rep) {
            handle(t, rep, now_ns);
            freeReplyObject(rep);
            rep = NULL;
        }
        if (sub->err)
            return -1;
        struct pollfd p = {sub->fd, POLLIN, 0};
        int n = poll(&p, 1, 0);
        if (n < 0)
            return -1;
        if (n == 0)
            return 0;
        if (redisBufferRead(sub) != REDIS_OK)   /* EOF: the server went away */
            return -1;
    }
    return 0;
}

static int send_ping(struct shared *s, uint64_t now_ns)
{
    if (redisAppendCommand(s->sub, "PING") != REDIS_OK)
        return -1;
    int done = 0;
    while (!done)
        if (redisBufferWrite(s->sub, &done) != REDIS_OK)
            return -1;
    s->ping_pending = 1;
    s->ping_sent_ns = now_ns;
    return 0;
}

/* Signed: another worker may have stamped a slightly later clock reading. */
static int64_t since(uint64_t now_ns, uint64_t then_ns)
{
    return (int64_t)(now_ns - then_ns);
}

static int fresh(struct shared *s, uint64_t now_ns)
{
    uint64_t pong = atomic_load(&s->last_pong_ns);
    return pong && since(now_ns, pong) < (int64_t)(TRACK_FRESH_MS * MS);
}

/* Read the channel and keep its heartbeat (caller holds chan_mu and the
 * channel is open). 0, or -1 when it is lost. */
static int poll_channel(struct track *t, uint64_t now_ns)
{
    struct shared *s = t->sh;
    atomic_store(&s->last_poll_ns, now_ns);
    if (drain(t, now_ns) != 0)
        return -1;
    /* Signed too: a worker whose clock reading predates the PING another
     * sent while it waited for chan_mu must not see 2^64 ns of silence. */
    if (s->ping_pending && since(now_ns, s->ping_sent_ns) > (int64_t)(TRACK_LOST_MS * MS))
        return -1;
    if (!s->ping_pending && since(now_ns, atomic_load(&s->last_pong_ns)) >=
                                (int64_t)(TRACK_PING_MS * MS))
        return send_ping(s, now_ns);
    return 0;
}

int track_poll(struct track *t, uint64_t now_ns)
{
    struct shared *s = t->sh;
    uint64_t gen = gen_now(s);
    if (!t->gen || (t->gen != gen && !(gen & 1)))
        return -1;   /* the channel is down: the caller reconnects, which reopens it */
    t->gen = gen;    /* reopened by another worker: nothing of ours to redo */
    uint64_t last = atomic_load(&s->last_poll_ns);
    if (last && since(now_ns, last) < (int64_t)TRACK_POLL_NS)
        return fresh(s, now_ns);
    if (pthread_mutex_trylock(&s->chan_mu) != 0)
        return fresh(s, now_ns);   /* another worker is reading the channel now */
    int st = 1;
    if (!s->sub || t->gen != gen_now(s)) {
        st = -1;   /* lost (or reopened) since the check above: next time */
    } else if (poll_channel(t, now_ns) != 0) {
        channel_lost(t);
        st = -1;
    }
    pthread_mutex_unlock(&s->chan_mu);
    return st < 0 ? -1 : fresh(s, now_ns);
}

uint64_t track_ticket(struct track *t, const char *id, size_t idlen)
{
    /* The epoch first, then the generation: a loss moves the generation on
     * before it empties the map (moving every epoch on), so an epoch read
     * after that emptying comes with the new generation here. */
    uint64_t epoch = trackshard_ticket(t->sh->map, id, idlen);
    if (!t->gen || t->gen != gen_now(t->sh))
        return NO_TICKET;   /* no channel confirmed open: nobody would invalidate it */
    return epoch;
}

int track_get(struct track *t, const char *id, size_t idlen, uint64_t now_ns,
              char *url, size_t cap, size_t *urllen)
{
    return t->gen && trackshard_get(t->sh->map, id, idlen, now_ns, url, cap, urllen);
}

void track_put(struct track *t, uint64_t ticket, const char *id, size_t idlen,
               const char *url, size_t urllen, uint64_t deadline_ns)
{
    if (ticket == NO_TICKET || !t->gen)
        return;
    if (trackshard_put(t->sh->map, ticket, id, idlen, url, urllen, deadline_ns) == 1)
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
