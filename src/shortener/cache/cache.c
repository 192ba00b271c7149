/* cache: Valkey cache-aside over the link store. See cache.h. One node
 * (node.h) for valkey://, a cluster (cluster.h) for valkey-cluster://;
 * the cache-aside logic below is the same for both. */
#include "shortener/cache/cache.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hiredis/hiredis.h>

#include "base/counter.h"
#include "measure/clock.h"
#ifdef KVTEST_INJECT
#include "measure/inject.h"
#endif
#include "shortener/cache/cache_access.h"
#include "shortener/cache/cluster.h"
#include "shortener/cache/cluster_slots.h"
#include "shortener/cache/node.h"
#include "shortener/cache/track.h"

struct cache {
    struct cache_config cfg;
    struct node one;          /* valkey:// */
    struct cluster *cl;       /* valkey-cluster://, or NULL */
    /* Single writer, read by cache_stats() from any thread. The nodes
     * count their own errors (dropped connections), skips and connects. */
    _Atomic uint64_t hits, misses, errors, skipped, sets, local_hits;
};

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
    if (c->cfg.cluster) {
        if (!(c->cl = cluster_new(&c->cfg))) {
            free(c);
            return NULL;
        }
        return c;
    }
    if (node_init(&c->one, &c->cfg, c->cfg.host, c->cfg.port) != 0) {
        node_fini(&c->one);
        free(c);
        return NULL;
    }
    if (node_connect(&c->one, NULL, 0) != 0)
        node_drop(&c->one);
    return c;
}

void cache_close(struct cache *c)
{
    if (!c)
        return;
    if (c->cl)
        cluster_free(c->cl);
    else
        node_fini(&c->one);
    free(c);
}

int cache_ping(struct cache *c, char *err, size_t errcap)
{
    struct node *n = &c->one;
    if (c->cl) {
        int rc = cluster_refresh(c->cl, 1, err, errcap);
        if (rc != 0)
            return rc;
        if (!(n = cluster_answered(c->cl)))
            return 0;   /* dropped since: the next lookup tells */
    } else {
        if (!n->ctx && node_connect(n, err, errcap) != 0) {
            int refused = n->refused;
            node_drop(n);
            return refused ? -2 : -1;
        }
        redisReply *r = redisCommand(n->ctx, "PING");
        if (!r || r->type != REDIS_REPLY_STATUS) {
            int refused = cache_refused(r);
            snprintf(err, errcap, "%s: PING failed: %s", n->addr,
                     r && r->type == REDIS_REPLY_ERROR ? r->str : n->ctx->errstr);
            if (r)
                freeReplyObject(r);
            node_drop(n);
            return refused ? -2 : -1;
        }
        freeReplyObject(r);
    }
    char why[300];
    int rc = cache_probe(n->ctx, c->cfg.track, why, sizeof why);
    if (rc != 0) {
        snprintf(err, errcap, "%s: %s", n->addr, why);
        if (rc == -1)
            node_drop(n);
    }
    return rc;
}

/* What one round trip asks about one key: GET (a lookup) or SET (a fill);
 * when tracking, a GET also asks for the key's PTTL (the local deadline). */
enum op { OP_GET, OP_FILL };
struct exec {
    enum op op;
    const char *key;
    size_t klen;
    const char *url;    /* OP_FILL */
    size_t n;
    uint64_t sent_ns;
    redisReply *rep[3];   /* answers, ASKING's left out */
    int nrep;
};

static void exec_free(struct exec *x)
{
    for (int i = 0; i < x->nrep; i++)
        freeReplyObject(x->rep[i]);
    x->nrep = 0;
}

/* Append x's commands, each after an ASKING when asking (ASKING admits
 * one command only). The number of commands, or -1. */
static int append_op(const struct cache *c, redisContext *ctx, const struct exec *x, int asking)
{
    int cnt = 0, bad = 0;
#define ASK_FIRST() (bad = bad || (asking && redisAppendCommand(ctx, "ASKING") != REDIS_OK))
    if (x->op == OP_FILL) {
        ASK_FIRST();
        bad = bad || (c->cfg.ttl_s > 0
            ? redisAppendCommand(ctx, "SET %b %b EX %lld", x->key, x->klen, x->url, x->n,
                                 (long long)c->cfg.ttl_s) != REDIS_OK
            : redisAppendCommand(ctx, "SET %b %b", x->key, x->klen, x->url, x->n) != REDIS_OK);
        cnt++;
    }
    if (x->op == OP_GET) {
        ASK_FIRST();
        bad = bad || redisAppendCommand(ctx, "GET %b", x->key, x->klen) != REDIS_OK;
        cnt++;
    }
    if (x->op == OP_GET && c->cfg.track) {
        ASK_FIRST();
        bad = bad || redisAppendCommand(ctx, "PTTL %b", x->key, x->klen) != REDIS_OK;
        cnt++;
    }
#undef ASK_FIRST
    return bad ? -1 : cnt;
}

/* One round trip of x on n (connected). 0, or -1 (failure counted). */
static int exec_on(struct cache *c, struct node *n, struct exec *x, int asking)
{
    x->sent_ns = clock_now_ns();
    int cnt = append_op(c, n->ctx, x, asking);
    if (cnt < 0) {
        node_drop(n);
        return -1;
    }
    if (x->op == OP_GET)
        counter_bump(&n->lookups);
    redisReply *all[6];
    int total = asking ? 2 * cnt : cnt;
    if (node_read(n, all, total) != 0)
        return -1;
    for (int i = 0; i < cnt; i++) {
        x->rep[i] = all[asking ? 2 * i + 1 : i];
        if (asking)
            freeReplyObject(all[2 * i]);
    }
    x->nrep = cnt;
    return 0;
}

/* Run x against n, the owner of its key, following cluster redirects.
 * The node that answered (answers in x), or NULL: no answer (a failure,
 * counted; or no node to ask, counted as skipped). */
static struct node *run(struct cache *c, struct node *n, struct exec *x)
{
    int asking = 0;
    for (int tries = 0; tries <= CLUSTER_MAX_REDIRECTS; tries++) {
        if (!n) {
            counter_bump(&c->skipped);
            return NULL;
        }
        if (node_ensure(n) != 0 || exec_on(c, n, x, asking) != 0)
            return NULL;
        struct node *to = c->cl ? cluster_redirect(c->cl, n, x->rep[0], &asking) : NULL;
        if (!to)
            return n;
        exec_free(x);
        n = to;
    }
    counter_bump(&c->errors);   /* sent in circles: the map is in flux */
    return NULL;
}

/* The node that owns key now (NULL: none known). */
static struct node *route(struct cache *c, const char *key, size_t klen)
{
    return c->cl ? cluster_route(c->cl, cluster_keyslot(key, klen)) : &c->one;
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

/* The answer to a GET. 1: hit, URL in url; 0: miss; -1: an error reply
 * (counted). *deadline: see pttl_deadline. Frees the answers. */
static int get_answer(struct cache *c, struct exec *x, char *url, size_t cap, size_t *urllen,
                      uint64_t *deadline)
{
    int out = -1;
    redisReply *r = x->rep[0];
    if (r->type == REDIS_REPLY_STRING && (size_t)r->len < cap) {
        memcpy(url, r->str, (size_t)r->len);
        url[r->len] = '\0';
        *urllen = (size_t)r->len;
        *deadline = c->cfg.track ? pttl_deadline(x->rep[1], x->sent_ns) : 0;
        counter_bump(&c->hits);
        out = 1;
    } else if (r->type == REDIS_REPLY_NIL) {
        counter_bump(&c->misses);
        out = 0;
    } else {
        /* An error reply (e.g. LOADING after a restart, CLUSTERDOWN) or a
         * value that cannot be ours: the connection itself is fine. */
        counter_bump(&c->errors);
        if (c->cl)
            cluster_stale(c->cl);
    }
    exec_free(x);
    return out;
}

/* Store url after a miss. Not into the local map when tracking: the
 * broadcast of this very SET would take it out again (track.h); the next
 * lookup is a Valkey hit, which puts it. */
static void cache_fill(struct cache *c, const char *key, size_t klen, const char *url,
                       size_t n)
{
    struct exec x = {.op = OP_FILL, .key = key, .klen = klen, .url = url, .n = n};
    if (!run(c, route(c, key, klen), &x))
        return;
    if (x.rep[0]->type == REDIS_REPLY_STATUS)
        counter_bump(&c->sets);
    else
        counter_bump(&c->errors);
    exec_free(&x);
}

/* Process memory first, when it may answer (client-side caching). */
static int local_hit(struct cache *c, struct node *n, const char *id, size_t idlen, char *url,
                     size_t cap, size_t *urllen)
{
    if (!n || !n->tr || !n->ctx)
        return 0;
    uint64_t now = clock_now_ns();
    int st = track_poll(n->tr, now);
    if (st < 0) {
        node_drop(n);   /* the channel is lost: so is the session */
    } else if (st > 0 && track_get(n->tr, id, idlen, now, url, cap, urllen)) {
        counter_bump(&c->local_hits);
        return 1;
    }
    return 0;
}

enum links_rc cache_lookup(struct cache *c, struct links *l,
                           const char *id, size_t idlen,
                           char *url, size_t cap, size_t *urllen)
{
#ifdef KVTEST_INJECT
    inject_op();   /* the test build's slowdown of the lookup and http paths */
#endif
    if (!c || idlen > LINKS_ID_MAX)
        return links_lookup(l, id, idlen, url, cap, urllen);

    char key[sizeof CACHE_KEY_PREFIX + LINKS_ID_MAX];
    size_t plen = sizeof CACHE_KEY_PREFIX - 1;
    memcpy(key, CACHE_KEY_PREFIX, plen);
    memcpy(key + plen, id, idlen);
    size_t klen = plen + idlen;

    struct node *owner = route(c, key, klen);
    if (local_hit(c, owner, id, idlen, url, cap, urllen))
        return LINKS_OK;

    int missed = 0;
    struct exec x = {.op = OP_GET, .key = key, .klen = klen};
    /* Before the GET is sent: an invalidation read by another worker
     * between the answer and the put then refuses the put (trackshard.h). */
    uint64_t ticket = owner && owner->tr ? track_ticket(owner->tr, id, idlen) : 0;
    struct node *at = run(c, owner, &x);
    if (at) {
        uint64_t deadline = 0;
        size_t n = 0;
        int got = get_answer(c, &x, url, cap, &n, &deadline);
        if (got == 1) {
            /* Redirected to another node: the ticket was for the owner's map. */
            if (at->tr && at == owner && deadline != 1)
                track_put(at->tr, ticket, id, idlen, url, n, deadline);
            if (urllen)
                *urllen = n;
            return LINKS_OK;
        }
        missed = got == 0 && at->ctx;
    }

    size_t n = 0;
    enum links_rc rc = links_lookup(l, id, idlen, url, cap, &n);
    if (urllen)
        *urllen = n;
    if (rc == LINKS_OK && missed)
        cache_fill(c, key, klen, url, n);
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
    sum->local_hits += counter_get(&m->local_hits);
    if (m->cl)
        cluster_stats_add(m->cl, sum);
    else
        node_stats_add(&m->one, sum);
}

uint64_t cache_stats_node_lookups(const struct cache_stats *s, const char *addr)
{
    for (int k = 0; k < s->nnodes; k++)
        if (strcmp(s->nodes[k].addr, addr) == 0)
            return s->nodes[k].lookups;
    return 0;
}
