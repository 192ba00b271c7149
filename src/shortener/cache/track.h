/* track: Valkey client-side caching for one cache connection (cache.h,
 * mode valkey+track://): a bounded in-process map (trackmap.h) kept
 * correct by the server's invalidation messages.
 *
 * Protocol: RESP2 with CLIENT TRACKING on REDIRECT <id> NOLOOP. A second
 * connection subscribes to __redis__:invalidate and its client id is given
 * to the data connection's CLIENT TRACKING, so the server sends every
 * invalidation of a key the data connection read to that subscriber. Why
 * not RESP3 push messages on one connection: the installed libhiredis 0.14
 * cannot parse RESP3 (push replies arrived with hiredis 1.0 / libhiredict),
 * and a subscriber socket can be drained without blocking from the
 * worker's own thread (poll with timeout 0), so no extra thread and no lock
 * guard the map. NOLOOP: the server does not invalidate our own SET back to
 * us; since any write of a key also ends its tracking, the cache re-reads
 * the key (GET) in the same round trip after filling it (cache.c).
 *
 * Never serve from a map whose invalidations may have been missed:
 *  - the map is emptied whenever the channel is lost (EOF, error, or no
 *    answer to a heartbeat PING for TRACK_LOST_MS) and whenever the data
 *    connection is dropped (cache.c reconnects both, which starts a new
 *    tracking session);
 *  - entries are served only while the channel answered a PING within
 *    TRACK_FRESH_MS: the answer proves every invalidation sent before it
 *    was read (one connection, in order), so a channel that silently stops
 *    delivering stops local answers within that time;
 *  - invalidations are read before a local answer at most TRACK_POLL_NS
 *    after the previous read, so a change is seen within that plus the
 *    delivery time; a whole-database invalidation (FLUSHALL) empties it.
 *  - entries also carry the key's remaining TTL from Valkey (PTTL), so a
 *    local copy never outlives the key even before Valkey's expiry cycle
 *    reports it. */
#ifndef KVTEST_SHORTENER_TRACK_H
#define KVTEST_SHORTENER_TRACK_H
#include <stddef.h>
#include <stdint.h>

#include <hiredis/hiredis.h>

#define TRACK_SIZE_DEFAULT 65536   /* entries per worker */
#define TRACK_POLL_NS 100000u      /* read invalidations at least every 100 us of lookups */
#define TRACK_PING_MS 100          /* heartbeat on the invalidation channel */
#define TRACK_FRESH_MS 250         /* serve locally only this soon after a PONG */
#define TRACK_LOST_MS 2000         /* unanswered PING: the channel is lost */

struct track_counts {
    uint64_t invalidations;   /* entries dropped by invalidation messages */
    uint64_t flushes;         /* times the map was emptied (channel lost,
                                 reconnect, FLUSHALL) while it held entries */
    uint64_t evictions;       /* entries dropped to stay within the size */
};

struct track;

struct track *track_new(int64_t max_entries);   /* NULL: out of memory */
void track_free(struct track *t);               /* NULL is fine */

/* Open the invalidation channel to host:port and turn tracking on for the
 * data connection main. 0, or -1 with the reason in err (when given). */
int track_start(struct track *t, redisContext *main, const char *host, int port,
                int connect_ms, int command_ms, char *err, size_t errcap);
/* Close the channel and empty the map (the tracking session is over). */
void track_stop(struct track *t);

/* Read pending invalidations without blocking and keep the heartbeat.
 * 1: the map may answer now; 0: not now (channel not confirmed fresh);
 * -1: the channel is lost (map emptied; the caller drops the session). */
int track_poll(struct track *t, uint64_t now_ns);

/* The map (track_get only after track_poll returned 1). */
int track_get(struct track *t, const char *id, size_t idlen, uint64_t now_ns,
              char *url, size_t cap, size_t *urllen);
void track_put(struct track *t, const char *id, size_t idlen, const char *url,
               size_t urllen, uint64_t deadline_ns);

/* Add the counters (single writer; safe to read from another thread). */
void track_counts_add(const struct track *t, struct track_counts *sum);

#endif
