/* links: the calls on an open link store (links.h), whatever its engine:
 * each handed to the engine through its operations table (links_int.h),
 * so that the service, the cache and the bench are written once for both;
 * and what is the same for every engine: link ids drawn without bias
 * (links_fill_id), the id list, the counters added up, the names of kinds
 * and schemas. Which engine a store text names is links_open.c's. */
#include "shortener/store/links.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/counter.h"
#include "measure/keys/rng.h"
#include "shortener/store/links_int.h"

static const char id_alphabet[] =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";

/* Map random bytes to the 62-letter alphabet without bias: bytes >= 248
 * (= 4 * 62) are rejected, so each letter has exactly 4 preimages. */
int links_fill_id(char *id, size_t n, unsigned char *pool, size_t pooln, size_t *pos)
{
    size_t k = 0;
    while (k < n) {
        if (*pos >= pooln) {
            if (rng_os_bytes(pool, pooln) != 0)
                return -1;
            *pos = 0;
        }
        unsigned char b = pool[(*pos)++];
        if (b < 248)
            id[k++] = id_alphabet[b % 62];
    }
    id[n] = '\0';
    return 0;
}

const char *links_kind_name(enum links_kind k)
{
    return k == LINKS_KIND_POSTGRES ? "postgres" : "sqlite";
}

void links_close(struct links *l)
{
    if (l)
        l->ops->close(l);
}

enum links_kind links_kind_of(const struct links *l)
{
    return l->ops->kind;
}

enum links_rc links_lookup(struct links *l, const char *id, size_t idlen, char *url,
                           size_t cap, size_t *urllen)
{
    if (idlen > LINKS_ID_MAX)   /* cannot exist; spares the store the work */
        return LINKS_NOTFOUND;
    return l->ops->lookup(l, id, idlen, url, cap, urllen);
}

enum links_rc links_create(struct links *l, const char *url, size_t urllen,
                           char id_out[LINKS_ID_LEN + 1])
{
    if (urllen > LINKS_URL_MAX) {
        snprintf(l->err, sizeof l->err, "URL longer than %d bytes", LINKS_URL_MAX);
        return LINKS_ERROR;
    }
    return l->ops->create(l, url, urllen, id_out);
}

int64_t links_foreach_id(struct links *l, int64_t limit,
                         int (*fn)(void *ctx, const char *id, size_t len), void *ctx)
{
    return l->ops->foreach_id(l, limit, fn, ctx);
}

void links_stats_add(const struct links *l, struct links_stats *sum)
{
    if (!l)
        return;
    /* counter_get takes a non-const pointer; the loads do not write. */
    struct links_counters *n = (struct links_counters *)&l->n;
    sum->primary_reads += counter_get(&n->primary_reads);
    sum->replica_reads += counter_get(&n->replica_reads);
    sum->fallbacks += counter_get(&n->fallbacks);
    sum->failovers += counter_get(&n->failovers);
    sum->reconnects += counter_get(&n->reconnects);
    sum->unavailable += counter_get(&n->unavailable);
}

struct idvec {
    char *buf;
    int64_t n, cap;
    int oom;
};

static int idvec_add(void *ctx, const char *id, size_t len)
{
    struct idvec *v = ctx;
    if (len > LINKS_ID_MAX)   /* not one of ours; cannot be looked up anyway */
        return 0;
    if (v->n == v->cap) {
        int64_t cap = v->cap ? v->cap * 2 : 1024;
        char *nb = realloc(v->buf, (size_t)cap * (LINKS_ID_MAX + 1));
        if (!nb) {
            v->oom = 1;
            return -1;
        }
        v->buf = nb;
        v->cap = cap;
    }
    char *rec = v->buf + (size_t)v->n * (LINKS_ID_MAX + 1);
    memcpy(rec, id, len);
    rec[len] = '\0';
    v->n++;
    return 0;
}

int links_ids(struct links *l, int64_t limit, char **ids, int64_t *n)
{
    struct idvec v = {0};
    *ids = NULL;
    *n = 0;
    int64_t seen = links_foreach_id(l, limit, idvec_add, &v);
    if (seen < 0 || v.oom) {
        free(v.buf);
        if (v.oom)
            snprintf(l->err, sizeof l->err, "out of memory");
        return -1;
    }
    *ids = v.buf;
    *n = v.n;
    return 0;
}

enum links_schema links_schema_of(const struct links *l)
{
    return l->schema;
}

const char *links_schema_name(enum links_schema s)
{
    return s == LINKS_SCHEMA_COVERING ? "covering" : "seed";
}

const char *links_errmsg(const struct links *l)
{
    return l->err;
}
