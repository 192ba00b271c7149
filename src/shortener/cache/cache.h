/* cache: Valkey cache-aside in front of the link store (hiredis; Valkey
 * speaks the Redis protocol).
 *
 * cache_lookup() is THE lookup path: the service and the in-process
 * benchmark both call it, with a cache or with NULL for "no cache", so the
 * two always measure the same code. With a cache it tries Valkey (GET),
 * on a miss reads SQLite through links_lookup() and stores the answer (SET,
 * with EX ttl when ttl > 0). Unknown ids are not cached.
 *
 * One `struct cache` is one Valkey connection (for a cluster, one per node
 * it talks to); use it from one thread at a time (open one per worker
 * thread). Any Valkey failure (refused, timeout,
 * protocol error, server restarted) is counted in `errors`, the request is
 * answered from SQLite, and the connection is dropped and re-established
 * later with exponential backoff (so a dead Valkey costs at most one
 * connect timeout per backoff period, not one per request). Nothing here
 * ever flushes, deletes or reconfigures anything on the Valkey server.
 *
 * Keys are CACHE_KEY_PREFIX + id, values the URL bytes.
 *
 * With cfg.track (valkey+track://) the connection also uses a bounded
 * in-process map shared by the process's connections to the same server
 * (track.h), kept correct by Valkey's invalidation
 * messages (track.h says how and why): a lookup answered from it is a
 * local hit and costs no round trip. Filled on Valkey hits; emptied
 * whenever the invalidation channel is lost or reopened.
 *
 * With cfg.cluster (valkey-cluster://HOST:PORT[,HOST:PORT...]) the cache
 * is a Valkey Cluster: each key goes to the primary that owns its hash
 * slot (cluster.h routes, following -MOVED and -ASK), each node has its
 * own connection, backoff and (with tracking) invalidation channel
 * (node.h), and a node that is down sends its keys to SQLite until the
 * cluster map says who owns them now. The counters are the same, summed
 * over nodes, plus the redirects followed and the lookups per primary.
 *
 * The process must ignore SIGPIPE (signal(SIGPIPE, SIG_IGN)): hiredis
 * writes with write(2), and a Valkey that went away would otherwise kill
 * the process instead of producing a countable error. */
#ifndef KVTEST_SHORTENER_CACHE_H
#define KVTEST_SHORTENER_CACHE_H
#include <stddef.h>
#include <stdint.h>

#include "shortener/store/links.h"

#define CACHE_KEY_PREFIX "kvtest:link:"
#define CACHE_TIMEOUT_MS 50        /* default connect and command timeout */
#define CACHE_BACKOFF_MIN_MS 10    /* first reconnect delay after a failure */
#define CACHE_BACKOFF_MAX_MS 1000  /* reconnect delay cap */
#define CACHE_MAX_SEEDS 16         /* valkey-cluster:// seed nodes */
#define CACHE_ADDR_MAX 80          /* "host:port" in the per-node counters */
#define CACHE_STATS_NODES 32       /* nodes listed in the counters */

struct cache_seed {
    char host[256];
    int port;
};

/* The credentials of a cache URL (cache_parse_url). */
struct cache_cred {
    int has_pass;     /* AUTH [user] pass on every connection */
    char user[128];   /* "": Valkey's default user */
    char pass[256];   /* decoded; never printed (url_mask) */
};

struct cache_config {
    char host[256];
    int port;
    int db;                   /* SELECT db after connecting when > 0 */
    struct cache_cred cred;   /* AUTH on every connection, if any */
    int64_t ttl_s;            /* 0 = no expiry */
    int connect_timeout_ms;   /* CACHE_TIMEOUT_MS by default */
    int command_timeout_ms;   /* CACHE_TIMEOUT_MS by default */
    int track;                /* client-side caching (valkey+track://) */
    int64_t track_size;       /* entries of the local map per process and
                                 server (0: TRACK_SIZE_DEFAULT) */
    int cluster;              /* valkey-cluster://: host:port is seeds[0] */
    int nseeds;
    struct cache_seed seeds[CACHE_MAX_SEEDS];
};

/* Counters; single writer (the owning thread). Fields are read with
 * cache_stats(), which is safe to call from another thread while the owner
 * runs (relaxed atomic loads; figures may lag by a request). */
struct cache_stats {
    uint64_t hits;        /* answered by Valkey */
    uint64_t misses;      /* Valkey had no entry (then SQLite was asked) */
    uint64_t errors;      /* Valkey failures of any kind (then SQLite) */
    uint64_t skipped;     /* lookups sent straight to SQLite because the
                             connection was down and the reconnect backoff
                             had not expired */
    uint64_t sets;        /* entries stored after a miss */
    uint64_t connects;    /* successful (re)connections */
    /* client-side caching (zeros without it) */
    uint64_t local_hits;      /* answered from process memory */
    uint64_t invalidations;   /* local entries dropped on the server's word */
    uint64_t local_flushes;   /* local map emptied (channel lost, reconnect) */
    uint64_t local_evictions; /* local entries dropped to stay in size */
    /* cluster (zeros and no nodes without it) */
    uint64_t moved;           /* -MOVED redirects followed */
    uint64_t ask;             /* -ASK redirects followed */
    uint64_t map_refreshes;   /* slot maps read (CLUSTER SLOTS) */
    int nnodes;
    struct cache_node_stats {
        char addr[CACHE_ADDR_MAX];   /* a primary's host:port */
        uint64_t lookups;            /* GETs sent to it */
    } nodes[CACHE_STATS_NODES];
};

struct cache;

/* Parse "valkey://HOST:PORT[/DB]" (also "redis://", and
 * "valkey+track://" for client-side caching; HOST may be [IPv6]; PORT
 * 1..65535; DB 0..1000000), or "valkey-cluster://HOST:PORT[,HOST:PORT...]"
 * (also "valkey-cluster+track://"; no DB: a cluster has database 0 only)
 * into cfg with default timeouts and no TTL. Each may start with
 * credentials, "USER:PASSWORD@" (an ACL user) or ":PASSWORD@" (the default
 * user, requirepass), percent-encoded as RFC 3986 has it (a '@' in a
 * password as %40; a raw one is taken too, up to the last '@'); every
 * connection, the invalidation channel and each cluster node's included,
 * then starts with AUTH. Messages show the URL through url_mask. Returns 0, or -1 with a
 * one-line reason in err. "none" is not a URL: callers handle it (it
 * means cache == NULL). */
int cache_parse_url(const char *url, struct cache_config *cfg,
                    char *err, size_t errcap);

/* Make a cache handle and try to connect once. Returns NULL only when out
 * of memory: an unreachable server is not fatal (lookups fall back to
 * SQLite and reconnect later); use cache_ping() to insist on a server. */
struct cache *cache_open(const struct cache_config *cfg);
void cache_close(struct cache *c);   /* NULL is fine */

/* Round trip a PING now (connecting if needed, ignoring backoff); for a
 * cluster, read the slot map from the first node that answers. Then try,
 * on that connection, each command the service sends about a key
 * (cache_probe). 0 if the server answered and allowed them; -1 with the
 * reason in err when it could not be reached (a service may start without
 * it and reconnect later); -2 when it refused this client: a wrong or
 * missing password, or an ACL rule (NOAUTH, WRONGPASS, NOPERM), which no
 * reconnect mends, so callers end there. */
int cache_ping(struct cache *c, char *err, size_t errcap);

/* Look up id through the cache (c may be NULL: plain links_lookup). Same
 * contract and results as links_lookup(): LINKS_OK with the URL copied
 * into url, LINKS_NOTFOUND, or LINKS_ERROR only when SQLite fails — a
 * Valkey failure is never an error here. */
enum links_rc cache_lookup(struct cache *c, struct links *l,
                           const char *id, size_t idlen,
                           char *url, size_t cap, size_t *urllen);

/* Snapshot of the counters (zeros for NULL). */
void cache_stats(const struct cache *c, struct cache_stats *out);
/* Add the counters of c (NULL adds nothing) to *sum: the one place that
 * totals several connections (the service's workers, bench's threads). */
void cache_stats_add(const struct cache *c, struct cache_stats *sum);
/* The lookups of the primary addr in s (0 when not listed): lets a caller
 * subtract a "before" snapshot node by node. */
uint64_t cache_stats_node_lookups(const struct cache_stats *s, const char *addr);

#endif
