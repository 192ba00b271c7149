/* trackshard: the process-wide client-side cache map. See trackshard.h. */
#include "shortener/cache/trackshard.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "shortener/cache/trackmap.h"

struct shard {
    pthread_mutex_t mu;
    struct trackmap *map;
    _Atomic uint64_t epoch;   /* written under mu; read without it for tickets */
    char pad[64];             /* keep neighbouring shards' locks off one cache line */
};

struct trackshard {
    int n, bits;   /* n = 2^bits shards */
    struct shard sh[];
};

struct trackshard *trackshard_new(int64_t max_entries)
{
    if (max_entries < 1)
        max_entries = 1;
    int bits = 0;   /* the most shards with at least one entry each */
    while ((1 << (bits + 1)) <= TRACKSHARD_MAX && (int64_t)(1 << (bits + 1)) <= max_entries)
        bits++;
    int n = 1 << bits;
    struct trackshard *s = calloc(1, sizeof *s + (size_t)n * sizeof s->sh[0]);
    if (!s)
        return NULL;
    s->n = n;
    s->bits = bits;
    for (int i = 0; i < n; i++) {
        /* The total is exactly max_entries: the first (max % n) get one more. */
        int64_t cap = max_entries / n + (i < max_entries % n ? 1 : 0);
        pthread_mutex_init(&s->sh[i].mu, NULL);
        atomic_init(&s->sh[i].epoch, 0);
        if (!(s->sh[i].map = trackmap_new(cap))) {
            s->n = i + 1;
            trackshard_free(s);
            return NULL;
        }
    }
    return s;
}

void trackshard_free(struct trackshard *s)
{
    if (!s)
        return;
    for (int i = 0; i < s->n; i++) {
        trackmap_free(s->sh[i].map);
        pthread_mutex_destroy(&s->sh[i].mu);
    }
    free(s);
}

/* The shard of id: the high bits of the map's hash after a finalizer
 * (murmur3's fmix64). FNV-1a's own high bits barely change across short
 * similar ids ("id1", "id2"), which left shards empty; the map inside uses
 * the low bits of the unmixed hash, which do spread. */
static struct shard *shard_of(struct trackshard *s, const char *id, size_t idlen)
{
    uint64_t h = trackmap_hash(id, idlen);
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdull;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ull;
    h ^= h >> 33;
    return &s->sh[s->bits ? h >> (64 - s->bits) : 0];
}

uint64_t trackshard_ticket(struct trackshard *s, const char *id, size_t idlen)
{
    return atomic_load_explicit(&shard_of(s, id, idlen)->epoch, memory_order_acquire);
}

int trackshard_put(struct trackshard *s, uint64_t ticket, const char *id, size_t idlen,
                   const char *url, size_t urllen, uint64_t deadline_ns)
{
    struct shard *sh = shard_of(s, id, idlen);
    pthread_mutex_lock(&sh->mu);
    int rc = -2;
    if (atomic_load_explicit(&sh->epoch, memory_order_relaxed) == ticket)
        rc = trackmap_put(sh->map, id, idlen, url, urllen, deadline_ns);
    pthread_mutex_unlock(&sh->mu);
    return rc;
}

int trackshard_get(struct trackshard *s, const char *id, size_t idlen, uint64_t now_ns,
                   char *url, size_t cap, size_t *urllen)
{
    struct shard *sh = shard_of(s, id, idlen);
    pthread_mutex_lock(&sh->mu);
    int rc = trackmap_get(sh->map, id, idlen, now_ns, url, cap, urllen);
    pthread_mutex_unlock(&sh->mu);
    return rc;
}

/* Move the shard's epoch on (caller holds its lock): every ticket taken
 * before now is refused. */
static void bump(struct shard *sh)
{
    atomic_store_explicit(&sh->epoch, atomic_load_explicit(&sh->epoch, memory_order_relaxed) + 1,
                          memory_order_release);
}

int trackshard_del(struct trackshard *s, const char *id, size_t idlen)
{
    struct shard *sh = shard_of(s, id, idlen);
    pthread_mutex_lock(&sh->mu);
    int rc = trackmap_del(sh->map, id, idlen);
    bump(sh);
    pthread_mutex_unlock(&sh->mu);
    return rc;
}

int64_t trackshard_clear(struct trackshard *s)
{
    int64_t dropped = 0;
    for (int i = 0; i < s->n; i++) {
        pthread_mutex_lock(&s->sh[i].mu);
        dropped += trackmap_count(s->sh[i].map);
        trackmap_clear(s->sh[i].map);
        bump(&s->sh[i]);
        pthread_mutex_unlock(&s->sh[i].mu);
    }
    return dropped;
}

int64_t trackshard_count(struct trackshard *s)
{
    int64_t total = 0;
    for (int i = 0; i < s->n; i++) {
        pthread_mutex_lock(&s->sh[i].mu);
        total += trackmap_count(s->sh[i].map);
        pthread_mutex_unlock(&s->sh[i].mu);
    }
    return total;
}
