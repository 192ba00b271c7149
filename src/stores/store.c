/* store: the operations table's public face (see store.h), and the content
 * buffer the stores reuse for every read and update (store_int.h), grown
 * as blobs need so that the timed loop does not allocate per access. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stores/store_int.h"
#include "stores/kv/store_kv.h"

const struct store_ops *store_ops_for(enum layout_kind kind)
{
    switch (kind) {
    case LAYOUT_DB: return &store_db_ops;
    case LAYOUT_FLAT:
    case LAYOUT_TREE: return &store_files_ops;
    case LAYOUT_LMDB:
    case LAYOUT_ROCKSDB: return store_kv_engine(kind) ? store_kv_engine(kind)->ops : NULL;
    default: return NULL;
    }
}

int store_open(struct store **out, const struct store_opts *o, char *err, size_t errcap)
{
    *out = NULL;
    const struct store_ops *ops = store_ops_for(o->kind);
    if (!ops) {
        if (layout_is_kv(o->kind))
            snprintf(err, errcap, "%s: %s", o->path, store_kv_missing(o->kind));
        else
            snprintf(err, errcap, "%s: not a database or an export directory", o->path);
        return -1;
    }
    return ops->open(out, o, err, errcap);
}

int store_read(struct store *s, int64_t key, const void **data, int64_t *n, char *err, size_t errcap)
{
    return s->ops->read(s, key, data, n, err, errcap);
}

int store_update(struct store *s, int64_t key, rng_t *r, int64_t *n, char *err, size_t errcap)
{
    return s->ops->update(s, key, r, n, err, errcap);
}

int store_commit(struct store *s, char *err, size_t errcap)
{
    return s->ops->commit(s, err, errcap);
}

int store_close(struct store *s, char *err, size_t errcap)
{
    return s ? s->ops->close(s, err, errcap) : 0;
}

void store_describe(struct store *s, struct store_desc *d, int with_stats)
{
    memset(d, 0, sizeof *d);
    s->ops->describe(s, d, with_stats);
}

int64_t store_max_key(const char *path, enum layout_kind kind, char *err, size_t errcap)
{
    if (kind == LAYOUT_DB)
        return store_db_max_key(path, err, errcap);
    if (layout_is_kv(kind)) {
        const struct store_kv_engine *e = store_kv_engine(kind);
        if (!e) {
            snprintf(err, errcap, "%s: %s", path, store_kv_missing(kind));
            return -1;
        }
        return e->max_key(layout_fs_path(path), err, errcap);
    }
    int64_t k = layout_max_key(path, kind == LAYOUT_TREE);
    if (k < 0)
        snprintf(err, errcap, "%s: %s", path, strerror(errno));
    return k;
}

int store_count_holes(const char *path, enum layout_kind kind, int64_t max_id, int64_t *missing,
                      int64_t *range, char *err, size_t errcap)
{
    *missing = *range = 0;
    if (kind == LAYOUT_DB)
        return 0;
    int64_t present = 0, largest = 0;
    if (layout_is_kv(kind)) {
        const struct store_kv_engine *e = store_kv_engine(kind);
        if (!e) {
            snprintf(err, errcap, "%s: %s", path, store_kv_missing(kind));
            return -1;
        }
        int rc = e->count(layout_fs_path(path), max_id, &present, &largest, err, errcap);
        if (rc != 1)
            return rc;
        *range = largest < max_id ? largest : max_id;
        *missing = *range > present ? *range - present : 0;
        return 1;
    }
    if (layout_count_keys(path, kind == LAYOUT_TREE, max_id, &present, &largest) != 0) {
        snprintf(err, errcap, "%s: %s", path, strerror(errno));
        return -1;
    }
    *range = largest < max_id ? largest : max_id;
    *missing = *range > present ? *range - present : 0;
    return 1;
}

int store_buf_reserve(struct store_buf *b, int64_t n)
{
    if (n <= b->cap)
        return 0;
    int64_t cap = n + n / 4 + 64;
    unsigned char *p = realloc(b->p, (size_t)cap);
    if (!p)
        return -1;
    b->p = p;
    b->cap = cap;
    return 0;
}

void store_buf_free(struct store_buf *b)
{
    free(b->p);
    b->p = NULL;
    b->cap = 0;
}
