/* trackshard: the client-side cache's map shared by every worker thread of
 * a process (track.h): trackmaps split by key hash into shards, each with
 * its own mutex, so workers looking up different links rarely wait for
 * each other.
 *
 * The race it closes: a worker reads a key from Valkey (which starts
 * tracking it), and before the worker puts the value into this map another
 * thread reads the key's invalidation from the channel and deletes it
 * here: the late put would leave a stale entry that no further
 * invalidation will remove. So each shard has an epoch, bumped (under the
 * shard's lock) by every delete and clear, whether or not the key was
 * present; a worker takes a ticket (the epoch) BEFORE sending its GET and
 * its put is refused if the epoch moved meanwhile. An invalidation for a
 * write that Valkey ordered after the GET is necessarily read after the
 * ticket was taken: either before the put (epoch moved, put refused) or
 * after it (the entry is deleted). A refused put only costs a later local
 * miss.
 *
 * Bounded: at most max_entries in all, split over the shards (a full shard
 * evicts one of its own entries, see trackmap.h). */
#ifndef KVTEST_SHORTENER_TRACKSHARD_H
#define KVTEST_SHORTENER_TRACKSHARD_H
#include <stddef.h>
#include <stdint.h>

#define TRACKSHARD_MAX 64   /* shards (fewer when max_entries is smaller) */

struct trackshard;

/* NULL when out of memory. max_entries >= 1 (smaller is taken as 1). */
struct trackshard *trackshard_new(int64_t max_entries);
void trackshard_free(struct trackshard *s);   /* NULL is fine */

/* The ticket for a put of id: take it before asking Valkey. */
uint64_t trackshard_ticket(struct trackshard *s, const char *id, size_t idlen);
/* Insert or replace unless the shard's epoch moved since ticket.
 * 1: inserted and an entry was evicted to make room; 0: inserted;
 * -1: out of memory; -2: refused (stale ticket). */
int trackshard_put(struct trackshard *s, uint64_t ticket, const char *id, size_t idlen,
                   const char *url, size_t urllen, uint64_t deadline_ns);
/* As trackmap_get (an expired entry is removed). */
int trackshard_get(struct trackshard *s, const char *id, size_t idlen, uint64_t now_ns,
                   char *url, size_t cap, size_t *urllen);
/* Remove id and move its shard's epoch on. 1 if it was there. */
int trackshard_del(struct trackshard *s, const char *id, size_t idlen);
/* Empty every shard and move every epoch on. The entries dropped. */
int64_t trackshard_clear(struct trackshard *s);
int64_t trackshard_count(struct trackshard *s);

#endif
