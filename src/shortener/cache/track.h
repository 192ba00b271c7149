/* track: Valkey client-side caching for one cache connection (cache.h,
 * mode valkey+track://): an in-process map kept correct by the server's
 * invalidation messages, shared by every connection of the process to the
 * same server (host, port, database, size): the service's worker threads
 * (and, in a cluster, every worker's connection to one node) fill and read
 * one map (trackshard.h: sharded locks), so a link read by one worker is a
 * local hit for all of them.
 *
 * Protocol: RESP2 CLIENT TRACKING in broadcast mode: one connection per
 * shared map (the channel) turns on CLIENT TRACKING on REDIRECT <its own
 * id> BCAST PREFIX kvtest:link: and subscribes to __redis__:invalidate, so
 * the server reports every write, expiry or eviction of any of our keys to
 * it, whichever connection read the key; the data connections need no
 * tracking of their own, and one of them dropping loses no invalidation.
 * Why not RESP3 push messages: the installed libhiredis 0.14 cannot parse
 * RESP3 (push replies arrived with hiredis 1.0 / libhiredict). No extra
 * thread reads the channel: whichever worker looks up next drains it
 * without blocking (poll with timeout 0) while holding the channel's lock;
 * a worker that finds it held skips the read (the holder is reading).
 * Broadcast also reports our own fills (SET), which would drop the entry
 * just filled, so a fill does not put into the map: the next lookup of the
 * link is a Valkey hit, which does (cache.c).
 *
 * Never serve from a map whose invalidations may have been missed:
 *  - the map is emptied whenever the channel is lost (EOF, error, or no
 *    answer to a heartbeat PING for TRACK_LOST_MS) and when it is opened
 *    again; each open and each loss moves a generation on, and a ticket
 *    (below) is only good while the generation it saw open lasts. A lost
 *    channel makes track_poll return -1 to every worker, whose caller
 *    drops its data connection: the reconnect (with backoff) reopens it;
 *  - entries are served only while the channel answered a PING within
 *    TRACK_FRESH_MS: the answer proves every invalidation sent before it
 *    was read (one connection, in order), so a channel that silently stops
 *    delivering stops local answers within that time;
 *  - invalidations are read before a local answer at most TRACK_POLL_NS
 *    after the previous read by any worker, so a change is seen within
 *    that plus the delivery time; a whole-database invalidation
 *    (FLUSHALL) empties the map;
 *  - a put carries a ticket taken before its GET was sent and is refused
 *    if an invalidation or a flush touched its shard meanwhile
 *    (trackshard.h says why that closes the race between workers);
 *  - entries also carry the key's remaining TTL from Valkey (PTTL), so a
 *    local copy never outlives the key even before Valkey's expiry cycle
 *    reports it. */
#ifndef KVTEST_SHORTENER_TRACK_H
#define KVTEST_SHORTENER_TRACK_H
#include <stddef.h>
#include <stdint.h>

#include <hiredis/hiredis.h>

#define TRACK_SIZE_DEFAULT 524288  /* entries per process and server (8 workers x 64Ki before
                                      the map was shared: the same memory) */
#define TRACK_POLL_NS 100000u      /* read invalidations at least every 100 us of lookups */
#define TRACK_PING_MS 100          /* heartbeat on the invalidation channel */
#define TRACK_FRESH_MS 250         /* serve locally only this soon after a PONG */
#define TRACK_LOST_MS 2000         /* unanswered PING: the channel is lost */

struct track_counts {
    uint64_t invalidations;   /* entries dropped by invalidation messages */
    uint64_t flushes;         /* times the map was emptied (channel lost or
                                 reopened, FLUSHALL) while it held entries */
    uint64_t evictions;       /* entries dropped to stay within the size */
};

struct track;
struct cache_cred;   /* cache.h */

/* The session of one data connection to host:port (database db), on the
 * process's map for that server of max_entries, made on first use; its
 * invalidation channel authenticates with cred (NULL: none; the process
 * has one --cache, so the first caller's stands for all). NULL: out of
 * memory. */
struct track *track_new(const char *host, int port, int db, int64_t max_entries,
                        const struct cache_cred *cred);
void track_free(struct track *t);               /* NULL is fine */

/* A data connection to the server is up: open the shared invalidation
 * channel unless it is open. 0, or -1 with the reason in err (when
 * given); -2 when the server refused a command of the channel's (AUTH,
 * or an ACL rule: cache_access.h). */
int track_start(struct track *t, int connect_ms, int command_ms, char *err, size_t errcap);
/* The data connection was dropped (the map stays: see above). */
void track_stop(struct track *t);

/* Read pending invalidations without blocking and keep the heartbeat.
 * 1: the map may answer now; 0: not now (channel not confirmed fresh);
 * -1: the channel is lost (map emptied; the caller drops its connection
 * and reconnects later, which reopens the channel). */
int track_poll(struct track *t, uint64_t now_ns);

/* The map (track_get only after track_poll returned 1). */
int track_get(struct track *t, const char *id, size_t idlen, uint64_t now_ns,
              char *url, size_t cap, size_t *urllen);
/* Take a ticket before sending the GET whose answer may be put. */
uint64_t track_ticket(struct track *t, const char *id, size_t idlen);
/* Put unless ticket is stale (then nothing happens: see trackshard.h). */
void track_put(struct track *t, uint64_t ticket, const char *id, size_t idlen,
               const char *url, size_t urllen, uint64_t deadline_ns);

/* Add the counters of this connection's session: the invalidations,
 * flushes and evictions its own thread carried out on the shared map, so
 * summing every connection counts each once (single writer; safe to read
 * from another thread). */
void track_counts_add(const struct track *t, struct track_counts *sum);

#endif
