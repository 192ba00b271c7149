/* trackmap: bounded id -> URL map. See trackmap.h. Open addressing with
 * linear probing and backward-shift deletion (no tombstones, so heavy
 * invalidation traffic never degrades probing). */
#include "shortener/cache/trackmap.h"

#include <stdlib.h>
#include <string.h>

struct ent {
    uint64_t deadline_ns;
    uint32_t idlen, urllen;
    char data[];   /* id then URL */
};

struct trackmap {
    struct ent **slot;
    uint64_t *hash;
    size_t mask;
    int64_t count, max;
    size_t cursor;   /* eviction scan position */
};

uint64_t trackmap_hash(const char *id, size_t n)
{
    uint64_t h = 14695981039346656037ull;   /* FNV-1a 64: offset basis, prime */
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)id[i]) * 1099511628211ull;
    return h ^ (h >> 29);
}

struct trackmap *trackmap_new(int64_t max_entries)
{
    if (max_entries < 1)
        max_entries = 1;
    size_t n = 8;
    while ((int64_t)n < max_entries * 2)   /* load factor <= 1/2 */
        n *= 2;
    struct trackmap *m = calloc(1, sizeof *m);
    if (!m)
        return NULL;
    m->slot = calloc(n, sizeof *m->slot);
    m->hash = calloc(n, sizeof *m->hash);
    if (!m->slot || !m->hash) {
        trackmap_free(m);
        return NULL;
    }
    m->mask = n - 1;
    m->max = max_entries;
    return m;
}

void trackmap_free(struct trackmap *m)
{
    if (!m)
        return;
    if (m->slot)
        trackmap_clear(m);
    free(m->slot);
    free(m->hash);
    free(m);
}

/* Slot of id, or of the empty slot where it would go. */
static size_t find(const struct trackmap *m, const char *id, size_t idlen, uint64_t h)
{
    size_t i = h & m->mask;
    while (m->slot[i]) {
        const struct ent *e = m->slot[i];
        if (m->hash[i] == h && e->idlen == idlen && memcmp(e->data, id, idlen) == 0)
            return i;
        i = (i + 1) & m->mask;
    }
    return i;
}

/* Empty slot i and shift later entries of its probe chain back into it. */
static void remove_at(struct trackmap *m, size_t i)
{
    free(m->slot[i]);
    m->slot[i] = NULL;
    m->count--;
    size_t j = i;
    for (;;) {
        j = (j + 1) & m->mask;
        if (!m->slot[j])
            return;
        size_t home = m->hash[j] & m->mask;
        /* Move j back to i unless its home lies cyclically in (i, j]. */
        int stays = i <= j ? (home > i && home <= j) : (home > i || home <= j);
        if (stays)
            continue;
        m->slot[i] = m->slot[j];
        m->hash[i] = m->hash[j];
        m->slot[j] = NULL;
        i = j;
    }
}

int trackmap_get(struct trackmap *m, const char *id, size_t idlen, uint64_t now_ns,
                 char *url, size_t cap, size_t *urllen)
{
    size_t i = find(m, id, idlen, trackmap_hash(id, idlen));
    const struct ent *e = m->slot[i];
    if (!e)
        return 0;
    if ((e->deadline_ns && now_ns >= e->deadline_ns) || e->urllen >= cap) {
        remove_at(m, i);
        return 0;
    }
    memcpy(url, e->data + e->idlen, e->urllen);
    url[e->urllen] = '\0';
    if (urllen)
        *urllen = e->urllen;
    return 1;
}

int trackmap_put(struct trackmap *m, const char *id, size_t idlen,
                 const char *url, size_t urllen, uint64_t deadline_ns)
{
    if (idlen > UINT32_MAX / 2 || urllen > UINT32_MAX / 2)
        return -1;
    struct ent *e = malloc(sizeof *e + idlen + urllen);
    if (!e)
        return -1;
    e->deadline_ns = deadline_ns;
    e->idlen = (uint32_t)idlen;
    e->urllen = (uint32_t)urllen;
    memcpy(e->data, id, idlen);
    memcpy(e->data + idlen, url, urllen);
    uint64_t h = trackmap_hash(id, idlen);
    size_t i = find(m, id, idlen, h);
    if (m->slot[i]) {   /* replace */
        free(m->slot[i]);
        m->slot[i] = e;
        return 0;
    }
    int evicted = 0;
    if (m->count >= m->max) {
        while (!m->slot[m->cursor])
            m->cursor = (m->cursor + 1) & m->mask;
        remove_at(m, m->cursor);
        m->cursor = (m->cursor + 1) & m->mask;
        evicted = 1;
        i = find(m, id, idlen, h);   /* the shift may have moved things */
    }
    m->slot[i] = e;
    m->hash[i] = h;
    m->count++;
    return evicted;
}

int trackmap_del(struct trackmap *m, const char *id, size_t idlen)
{
    size_t i = find(m, id, idlen, trackmap_hash(id, idlen));
    if (!m->slot[i])
        return 0;
    remove_at(m, i);
    return 1;
}

void trackmap_clear(struct trackmap *m)
{
    for (size_t i = 0; i <= m->mask; i++) {
        free(m->slot[i]);
        m->slot[i] = NULL;
    }
    m->count = 0;
}

int64_t trackmap_count(const struct trackmap *m)
{
    return m->count;
}
