/* trackmap: the bounded in-process map of client-side caching (track.h):
 * link id -> URL, with an optional deadline after which an entry is never
 * returned. Used by one thread at a time (trackshard.h adds the locks).
 *
 * Bounded by entry count: when full, a put evicts one entry (the first
 * occupied slot after a rotating cursor, which is as good as random for
 * ids drawn from a CSPRNG and costs no bookkeeping per hit). */
#ifndef KVTEST_SHORTENER_TRACKMAP_H
#define KVTEST_SHORTENER_TRACKMAP_H
#include <stddef.h>
#include <stdint.h>

struct trackmap;

/* A map of at most max_entries (>= 1) entries; NULL when out of memory. */
struct trackmap *trackmap_new(int64_t max_entries);
void trackmap_free(struct trackmap *m);   /* NULL is fine */

/* 1 and the URL NUL-terminated in url (cap > its length) when id is
 * present and its deadline (if any) is after now_ns; else 0 (an expired
 * entry is removed). */
int trackmap_get(struct trackmap *m, const char *id, size_t idlen, uint64_t now_ns,
                 char *url, size_t cap, size_t *urllen);
/* Insert or replace. deadline_ns 0 = none. Returns 1 when an entry was
 * evicted to make room, 0, or -1 when out of memory (map unchanged). */
int trackmap_put(struct trackmap *m, const char *id, size_t idlen,
                 const char *url, size_t urllen, uint64_t deadline_ns);
/* Remove id; 1 if it was there. */
int trackmap_del(struct trackmap *m, const char *id, size_t idlen);
void trackmap_clear(struct trackmap *m);
int64_t trackmap_count(const struct trackmap *m);
/* The hash the map places id by (its low bits); trackshard picks a shard
 * by its high bits, so a shard's keys still spread over its slots. */
uint64_t trackmap_hash(const char *id, size_t n);

#endif
