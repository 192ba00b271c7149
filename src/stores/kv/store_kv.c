/* store_kv: the key-value stores' whole-path functions, dispatched to the
 * engines this build has (store_kv.h), and the key both engines store a
 * blob under. */
#include <stdio.h>
#include <string.h>

#include "stores/store_int.h"
#include "stores/kv/store_kv.h"

const struct store_kv_engine *store_kv_engine(enum layout_kind k)
{
#ifndef KVTEST_CORE
    if (k == LAYOUT_LMDB)
        return &store_lmdb_engine;
    if (k == LAYOUT_ROCKSDB)
        return &store_rocksdb_engine;
#else
    (void)k;
#endif
    return NULL;
}

const char *store_kv_missing(enum layout_kind k)
{
    if (!layout_is_kv(k))
        return "not a key-value store";
    if (store_kv_engine(k))
        return NULL;
    return k == LAYOUT_LMDB ? "this build has no LMDB (the portable core leaves it out)"
                            : "this build has no RocksDB (the portable core leaves it out)";
}

const char *store_kv_version(enum layout_kind k)
{
    const struct store_kv_engine *e = store_kv_engine(k);
    return e ? e->version : "none";
}

/* The engine for a prefixed path, or NULL with the reason in err. */
static const struct store_kv_engine *engine_for(const char *path, char *err, size_t errcap)
{
    enum layout_kind k = layout_prefix_kind(path);
    const char *why = store_kv_missing(k);
    if (why) {
        snprintf(err, errcap, "%s: %s", path, why);
        return NULL;
    }
    return store_kv_engine(k);
}

int store_kv_facts(const char *path, void (*size)(void *arg, int64_t n), void *arg,
                   struct store_kv_facts *f, char *err, size_t errcap)
{
    memset(f, 0, sizeof *f);
    const struct store_kv_engine *e = engine_for(path, err, errcap);
    return e ? e->facts(layout_fs_path(path), size, arg, f, err, errcap) : -1;
}

int store_kv_create(struct store_kv_writer **w, enum layout_kind k, const char *dir,
                    int64_t count, int64_t bytes, char *err, size_t errcap)
{
    *w = NULL;
    const char *why = store_kv_missing(k);
    if (why) {
        snprintf(err, errcap, "%s", why);
        return -1;
    }
    /* The engine is set here, not by its writer, so that the writer's
     * file need not name the engine's table (which names the writer). */
    const struct store_kv_engine *e = store_kv_engine(k);
    if (e->create(w, dir, count, bytes, err, errcap) != 0)
        return -1;
    (*w)->e = e;
    return 0;
}

int store_kv_put(struct store_kv_writer *w, int64_t key, const void *v, int64_t n, char *err,
                 size_t errcap)
{
    return w->e->put(w, key, v, n, err, errcap);
}

int store_kv_finish(struct store_kv_writer *w, char *err, size_t errcap)
{
    return w->e->finish(w, err, errcap);
}

void store_kv_abandon(struct store_kv_writer *w)
{
    if (w)
        w->e->abandon(w);
}

/* The kv table's integer key as 8 big-endian bytes: both engines compare
 * keys byte-wise, so byte order is key order (store_int.h). */
void store_kv_key(unsigned char out[8], int64_t key)
{
    uint64_t u = (uint64_t)key;
    for (int i = 7; i >= 0; i--) {
        out[i] = (unsigned char)(u & 0xff);
        u >>= 8;
    }
}

int64_t store_kv_key_parse(const void *p, size_t n)
{
    if (n != 8)
        return -1;
    const unsigned char *b = p;
    uint64_t u = 0;
    for (int i = 0; i < 8; i++)
        u = u << 8 | b[i];
    return (int64_t)u;
}
