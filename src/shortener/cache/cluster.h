/* cluster: the routing half of a valkey-cluster:// cache (cache.h): the
 * nodes heard of (node.h), which primary owns each of the 16384 hash
 * slots (from CLUSTER SLOTS), and what a -MOVED or -ASK redirect changes.
 * One per cache handle, so one per worker thread: no locks.
 *
 * The map is refreshed (CLUSTER SLOTS from the first node that answers:
 * connected nodes first, then the others, seeds included) when the cache
 * is opened and then whenever it is stale, at most once per
 * CLUSTER_REFRESH_MS. It becomes stale when a -MOVED arrives (that slot is
 * updated at once, the rest follows), when a slot has no owner, when an
 * error reply arrives, and when a lookup routes to a node that is down:
 * so while a primary is dead its slots are answered from SQLite, and once
 * its replica is promoted the next refresh routes them to the new primary.
 * -ASK is followed once with ASKING and changes nothing. */
#ifndef KVTEST_SHORTENER_CLUSTER_H
#define KVTEST_SHORTENER_CLUSTER_H
#include <stddef.h>

#include <hiredis/hiredis.h>

#include "shortener/cache/cache.h"
#include "shortener/cache/node.h"

#define CLUSTER_MAX_NODES 32      /* nodes heard of per handle */
#define CLUSTER_MAX_REDIRECTS 5   /* redirects followed per command */
#define CLUSTER_REFRESH_MS 100    /* at most one map refresh per this */

struct cluster;

/* A cluster handle over cfg's seeds (cfg must outlive it); tries one map
 * refresh. NULL only when out of memory. */
struct cluster *cluster_new(const struct cache_config *cfg);
void cluster_free(struct cluster *cl);   /* NULL is fine */

/* Load the slot map now. insist: also try nodes whose reconnect backoff
 * is running (cache_ping). 0, or -1 with the reason in err (when given);
 * -2 when no node answered and one refused this client (cache_access.h),
 * its reason in err. */
int cluster_refresh(struct cluster *cl, int insist, char *err, size_t errcap);
/* The node the last refresh that worked asked, while it is connected;
 * else NULL. */
struct node *cluster_answered(struct cluster *cl);
/* The primary that owns slot (refreshing a stale map first when due), or
 * NULL when no owner is known. */
struct node *cluster_route(struct cluster *cl, int slot);
/* Ask for a refresh at the next route (e.g. after CLUSTERDOWN). */
void cluster_stale(struct cluster *cl);
/* When r is a -MOVED or -ASK reply received from node from: count it,
 * update the map for MOVED, and return the node to ask next (*ask = 1:
 * send ASKING first). NULL when r is not a redirect. */
struct node *cluster_redirect(struct cluster *cl, const struct node *from, const redisReply *r,
                              int *ask);

/* Add the counters of every node and the redirects (safe from another
 * thread). */
void cluster_stats_add(const struct cluster *cl, struct cache_stats *sum);

#endif
