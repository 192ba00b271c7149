/* node: one Valkey server as the cache sees it: its connection, the
 * reconnect backoff after a failure, its client-side caching session
 * (track.h) and its counters. A single-node cache (valkey://) has one; a
 * cluster cache (valkey-cluster://, cluster.h) has one per node it has
 * heard of. Used by one thread; counters are read from any thread.
 *
 * Any failure (refused, timeout, I/O error) drops the connection, counts
 * an error, ends its tracking session (the process's map stays: its
 * invalidations reach the shared channel, track.h) and delays the
 * next connect attempt with exponential backoff, so a dead server costs
 * at most one connect timeout per backoff period, not one per request. */
#ifndef KVTEST_SHORTENER_NODE_H
#define KVTEST_SHORTENER_NODE_H
#include <stdatomic.h>
#include <stdint.h>

#include <hiredis/hiredis.h>

#include "shortener/cache/cache.h"
#include "shortener/cache/track.h"

struct node {
    char host[256];
    int port;
    char addr[CACHE_ADDR_MAX];    /* "host:port", for the counters */
    const struct cache_config *cfg;
    redisContext *ctx;            /* NULL while disconnected */
    uint64_t next_try_ns;         /* no reconnect before this (backoff) */
    uint64_t backoff_ms;
    struct track *tr;             /* client-side caching, or NULL */
    int refused;                  /* the last connect failed on access control
                                     (AUTH, or a NOPERM/NOAUTH reply) */
    /* Single writer, read by cache_stats() from any thread. */
    _Atomic uint64_t errors, skipped, connects, lookups;
};

/* Set n up for host:port (no connection yet). cfg must outlive n. 0, or
 * -1 when out of memory. */
int node_init(struct node *n, const struct cache_config *cfg, const char *host, int port);
void node_fini(struct node *n);

/* Connect now, ignoring the backoff; does not count. 0, or -1 with the
 * reason in err (when given). */
int node_connect(struct node *n, char *err, size_t errcap);
/* Count an error and drop the connection (backoff starts or doubles). */
void node_drop(struct node *n);
/* Connected, or connected now if the backoff has expired (a lookup that
 * finds the backoff running is counted as skipped). 0 = usable. */
int node_ensure(struct node *n);
/* 1 when the node is down and its backoff still running. */
int node_resting(const struct node *n, uint64_t now_ns);
/* Read cnt pipelined replies into rep. 0, or -1 after dropping the
 * connection (I/O error or timeout: the stream is out of step). */
int node_read(struct node *n, redisReply **rep, int cnt);
/* Add n's errors, skipped, connects and tracking counters to *sum (safe
 * from another thread). */
void node_stats_add(const struct node *n, struct cache_stats *sum);

#endif
