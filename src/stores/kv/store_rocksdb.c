/* store_rocksdb: the RocksDB store. Blobs in a RocksDB database (an LSM
 * tree), keyed by 8 big-endian bytes of the kv key (store_int.h), through
 * RocksDB's C API: the store that run reads and updates, the
 * whole-database facts stat, space and run ask for, and export's writer,
 * which loads a new database in key order. One file, because all of it is
 * one engine's use of one library: the functions it binds on first use,
 * the options every open shares, its error text.
 *
 * Settings, the same for every open so that runs compare: no compression
 * (kvtest's blobs are random bytes: compressing them costs time and saves
 * nothing), RocksDB's default 4 KiB blocks, and an LRU block cache of a
 * size kvtest states (--block-cache, default STORE_ROCKSDB_CACHE). A
 * database is opened once per process and directory (its LOCK file would
 * refuse a second open; the table of open stores, store_kv_open.h): the
 * threads of a run share it, and the last close closes it, which empties
 * its block cache for the next cold run. */
#include <dirent.h>
#include <limits.h>
#include <pthread.h>
#include <rocksdb/c.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/dynlib.h"
#include "stores/blobsum.h"
#include "stores/store_int.h"
#include "stores/kv/store_kv.h"
#include "stores/kv/store_kv_open.h"

#ifndef KVTEST_ROCKSDB_VERSION
#define KVTEST_ROCKSDB_VERSION "unknown"
#endif

/* ---- the library, opened on first use ---------------------------------- */

/* Every RocksDB function kvtest calls. The library is opened on first use
 * (base/dynlib.h says why), so each is called through rocks_lib, which
 * rocks_lib_load sets: rocks_lib->rocksdb_open(...). */
#define ROCKS_FNS(X) \
    X(rocksdb_block_based_options_create) X(rocksdb_block_based_options_destroy) \
    X(rocksdb_block_based_options_set_block_cache) X(rocksdb_cache_create_lru) \
    X(rocksdb_cache_destroy) X(rocksdb_close) X(rocksdb_compact_range) \
    X(rocksdb_create_iterator) X(rocksdb_flush) X(rocksdb_flush_wal) \
    X(rocksdb_flushoptions_create) X(rocksdb_flushoptions_destroy) \
    X(rocksdb_flushoptions_set_wait) X(rocksdb_free) X(rocksdb_get_pinned) \
    X(rocksdb_iter_destroy) X(rocksdb_iter_get_error) X(rocksdb_iter_key) X(rocksdb_iter_next) \
    X(rocksdb_iter_seek_to_first) X(rocksdb_iter_seek_to_last) X(rocksdb_iter_valid) \
    X(rocksdb_iter_value) X(rocksdb_open) X(rocksdb_open_for_read_only) \
    X(rocksdb_options_create) X(rocksdb_options_destroy) \
    X(rocksdb_options_set_block_based_table_factory) X(rocksdb_options_set_compression) \
    X(rocksdb_options_set_create_if_missing) X(rocksdb_options_set_error_if_exists) \
    X(rocksdb_options_set_keep_log_file_num) X(rocksdb_pinnableslice_destroy) \
    X(rocksdb_pinnableslice_value) X(rocksdb_property_value) X(rocksdb_put) \
    X(rocksdb_readoptions_create) X(rocksdb_readoptions_destroy) \
    X(rocksdb_readoptions_set_fill_cache) X(rocksdb_write) X(rocksdb_writebatch_clear) \
    X(rocksdb_writebatch_create) X(rocksdb_writebatch_destroy) X(rocksdb_writebatch_put) \
    X(rocksdb_writeoptions_create) X(rocksdb_writeoptions_destroy) \
    X(rocksdb_writeoptions_disable_WAL) X(rocksdb_writeoptions_set_sync)
struct rocks_lib {
#define ROCKS_FN_PTR(f) __typeof__(f) *f;
    ROCKS_FNS(ROCKS_FN_PTR)
#undef ROCKS_FN_PTR
};

/* The file the build linked against (Makefile: its SONAME). */
#ifndef KVTEST_ROCKSDB_SONAME
#define KVTEST_ROCKSDB_SONAME "librocksdb.so"
#endif

static struct rocks_lib fns;
static const struct rocks_lib *rocks_lib;

static int bind_all(void *h, const struct dynlib *l, char *err, size_t errcap)
{
    /* dlsym gives an object pointer; POSIX guarantees that a function's
     * address survives the conversion. */
#define ROCKS_FN_BIND(f)                                          \
    if (!(fns.f = (__typeof__(fns.f))dynlib_sym(h, l, #f, err, errcap))) \
        return -1;
    ROCKS_FNS(ROCKS_FN_BIND)
#undef ROCKS_FN_BIND
    rocks_lib = &fns;
    return 0;
}

static struct dynlib lib = {
    .what = "the RocksDB store",
    .soname = KVTEST_ROCKSDB_SONAME,
    .env = "KVTEST_LIBROCKSDB",
    .bind = bind_all,
};

/* Open the library once; 0, or -1 with one line in err. Every entry
 * point that opens or creates a database calls it first. */
static int rocks_lib_load(char *err, size_t errcap)
{
    return dynlib_load(&lib, err, errcap);
}

/* ---- what the store and export's writer share --------------------------- */

/* err from RocksDB (malloc'd, or NULL) into the caller's line; frees it. */
static int rocks_said(char *e, char *err, size_t errcap, const char *dir, const char *what)
{
    if (!e)
        return 0;
    snprintf(err, errcap, "%s: %s: %s", dir, what, e);
    rocks_lib->rocksdb_free(e);
    return -1;
}

/* The options every open uses (block cache of cache_bytes). */
static rocksdb_options_t *rocks_options_new(int64_t cache_bytes, rocksdb_cache_t **cache,
                                            rocksdb_block_based_table_options_t **table)
{
    rocksdb_options_t *o = rocks_lib->rocksdb_options_create();
    rocks_lib->rocksdb_options_set_compression(o, rocksdb_no_compression);
    /* Every open starts an info LOG; keep one old one, not one per run. */
    rocks_lib->rocksdb_options_set_keep_log_file_num(o, 1);
    *table = rocks_lib->rocksdb_block_based_options_create();
    *cache = rocks_lib->rocksdb_cache_create_lru((size_t)cache_bytes);
    rocks_lib->rocksdb_block_based_options_set_block_cache(*table, *cache);
    rocks_lib->rocksdb_options_set_block_based_table_factory(o, *table);
    return o;
}

/* ---- the databases open in this process -------------------------------- */

/* Their handles, one per directory, by slot of the table of open stores
 * (store_kv_open.h). */
struct rocks_db {
    const char *dir;            /* the table's copy */
    rocksdb_t *db;
    rocksdb_options_t *opts;
    rocksdb_cache_t *cache;
    rocksdb_block_based_table_options_t *table;
    int64_t cache_bytes;
    int rw;
};

/* What an open asks: read-write or read-only, and a block cache of
 * cache_bytes (0: one open with any cache will do). */
struct rocks_want {
    int rw;
    int64_t cache_bytes;
};

static struct rocks_db dbs[STORE_KV_OPEN_MAX];

static int db_same(int i, const void *want)
{
    const struct rocks_want *w = want;
    return dbs[i].rw == w->rw && (!w->cache_bytes || dbs[i].cache_bytes == w->cache_bytes);
}

static void db_close(int i)
{
    struct rocks_db *d = &dbs[i];
    if (d->db)
        rocks_lib->rocksdb_close(d->db);
    rocks_lib->rocksdb_options_destroy(d->opts);
    rocks_lib->rocksdb_block_based_options_destroy(d->table);
    rocks_lib->rocksdb_cache_destroy(d->cache);
    d->db = NULL;
}

static int db_open(int i, const char *dir, const void *want, char *err, size_t errcap)
{
    const struct rocks_want *w = want;
    struct rocks_db *d = &dbs[i];
    int64_t cache_bytes = w->cache_bytes ? w->cache_bytes : STORE_ROCKSDB_CACHE;
    d->opts = rocks_options_new(cache_bytes, &d->cache, &d->table);
    char *e = NULL;
    /* Reads open read-only: no LOCK taken, nothing flushed or
     * compacted under the measured run. */
    d->db = w->rw ? rocks_lib->rocksdb_open(d->opts, dir, &e)
                  : rocks_lib->rocksdb_open_for_read_only(d->opts, dir, 0, &e);
    if (rocks_said(e, err, errcap, dir, "open") != 0 || !d->db) {
        db_close(i);
        return -1;
    }
    d->dir = dir;
    d->rw = w->rw;
    d->cache_bytes = cache_bytes;
    return 0;
}

static struct store_kv_open_table opened = {
    .what = "RocksDB databases",
    .same = db_same,
    .open = db_open,
    .close = db_close,
    .mu = PTHREAD_MUTEX_INITIALIZER,
};

/* dir's shared database (read-write if rw; cache_bytes as in struct
 * rocks_want), the library opened first: its slot, or -1 with the reason
 * in err. */
static int db_get(const char *dir, int rw, int64_t cache_bytes, char *err, size_t errcap)
{
    if (rocks_lib_load(err, errcap) != 0)
        return -1;
    struct rocks_want w = {rw, cache_bytes};
    return store_kv_open_get(&opened, dir, &w, err, errcap);
}

/* ---- the store ---------------------------------------------------------- */

struct rocks_store {
    struct store base;          /* first: struct store * <-> struct rocks_store * */
    int slot;                   /* in the table of open databases */
    const struct rocks_db *d;   /* its database */
    rocksdb_readoptions_t *ro;
    rocksdb_writeoptions_t *wo;
    rocksdb_pinnableslice_t *pinned;   /* the last value read, until the next call */
    int update, multitrans, nosync, wrote;
    struct store_buf buf;
};

static struct rocks_store *rocks_of(struct store *s)
{
    return (struct rocks_store *)s;
}

static int rocks_open(struct store **out, const struct store_opts *o, char *err, size_t errcap)
{
    struct rocks_store *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errcap, "out of memory");
        return -1;
    }
    int64_t cache = o->kv.block_cache > 0 ? o->kv.block_cache : STORE_ROCKSDB_CACHE;
    s->slot = db_get(layout_fs_path(o->path), o->update, cache, err, errcap);
    if (s->slot < 0) {
        free(s);
        return -1;
    }
    s->d = &dbs[s->slot];
    s->base.ops = &store_rocksdb_ops;
    s->ro = rocks_lib->rocksdb_readoptions_create();
    s->wo = rocks_lib->rocksdb_writeoptions_create();
    s->update = o->update;
    s->multitrans = o->kv.multitrans;
    s->nosync = o->kv.nosync;
    /* Each write synced with --multitrans; otherwise one WAL sync at the
     * end (rocks_commit) stands for the database's one transaction. */
    rocks_lib->rocksdb_writeoptions_set_sync(s->wo, s->multitrans && !s->nosync);
    *out = &s->base;
    return 0;
}

static void unpin(struct rocks_store *s)
{
    if (s->pinned)
        rocks_lib->rocksdb_pinnableslice_destroy(s->pinned);
    s->pinned = NULL;
}

/* The value at key, pinned. 1 found (*v, *n), 0 missing or empty, -1. */
static int get(struct rocks_store *s, int64_t key, const char **v, size_t *n, char *err,
               size_t errcap)
{
    unpin(s);
    unsigned char kb[8];
    store_kv_key(kb, key);
    char *e = NULL;
    s->pinned = rocks_lib->rocksdb_get_pinned(s->d->db, s->ro, (const char *)kb, sizeof kb, &e);
    if (rocks_said(e, err, errcap, s->d->dir, "get") != 0)
        return -1;
    if (!s->pinned)
        return 0;
    *v = rocks_lib->rocksdb_pinnableslice_value(s->pinned, n);
    return *n > 0;
}

static int rocks_read(struct store *base, int64_t key, const void **data, int64_t *n, char *err,
                      size_t errcap)
{
    struct rocks_store *s = rocks_of(base);
    const char *v;
    size_t len = 0;
    *n = 0;
    int rc = get(s, key, &v, &len, err, errcap);
    if (rc == 1) {
        *data = v;
        *n = (int64_t)len;
    }
    return rc;
}

static int rocks_update(struct store *base, int64_t key, rng_t *r, int64_t *n, char *err,
                        size_t errcap)
{
    struct rocks_store *s = rocks_of(base);
    const char *v;
    size_t len = 0;
    *n = 0;
    int rc = get(s, key, &v, &len, err, errcap);
    unpin(s);
    if (rc != 1)
        return rc;
    if (store_buf_reserve(&s->buf, (int64_t)len) != 0) {
        snprintf(err, errcap, "out of memory for a %zu-byte value", len);
        return -1;
    }
    rng_fill(r, s->buf.p, len);
    blobsum_seal(s->buf.p, len);
    unsigned char kb[8];
    store_kv_key(kb, key);
    char *e = NULL;
    rocks_lib->rocksdb_put(s->d->db, s->wo, (const char *)kb, sizeof kb,
                           (const char *)s->buf.p, len, &e);
    if (rocks_said(e, err, errcap, s->d->dir, "put") != 0)
        return -1;
    s->wrote = 1;
    *n = (int64_t)len;
    return 1;
}

static int rocks_commit(struct store *base, char *err, size_t errcap)
{
    struct rocks_store *s = rocks_of(base);
    unpin(s);
    if (!s->wrote || s->multitrans || s->nosync)
        return 0;
    char *e = NULL;
    rocks_lib->rocksdb_flush_wal(s->d->db, 1, &e);
    s->wrote = 0;
    return rocks_said(e, err, errcap, s->d->dir, "WAL sync");
}

static int rocks_close(struct store *base, char *err, size_t errcap)
{
    (void)err;
    (void)errcap;
    struct rocks_store *s = rocks_of(base);
    unpin(s);
    rocks_lib->rocksdb_readoptions_destroy(s->ro);
    rocks_lib->rocksdb_writeoptions_destroy(s->wo);
    store_kv_open_put(&opened, s->slot);
    store_buf_free(&s->buf);
    free(s);
    return 0;
}

static void rocks_describe(struct store *base, struct store_desc *d, int with_stats)
{
    (void)with_stats;
    d->block_cache = rocks_of(base)->d->cache_bytes;
}

const struct store_ops store_rocksdb_ops = {
    .name = "rocksdb",
    .open = rocks_open,
    .read = rocks_read,
    .update = rocks_update,
    .commit = rocks_commit,
    .close = rocks_close,
    .describe = rocks_describe,
};

/* ---- whole-database functions ------------------------------------------ */

struct walk {
    int slot;
    const struct rocks_db *d;
    rocksdb_readoptions_t *ro;
    rocksdb_iterator_t *it;
};

static int walk_open(struct walk *w, const char *dir, char *err, size_t errcap)
{
    memset(w, 0, sizeof *w);
    w->slot = db_get(dir, 0, 0, err, errcap);
    if (w->slot < 0)
        return -1;
    w->d = &dbs[w->slot];
    w->ro = rocks_lib->rocksdb_readoptions_create();
    /* A scan of everything should not evict the cache a run warmed. */
    rocks_lib->rocksdb_readoptions_set_fill_cache(w->ro, 0);
    w->it = rocks_lib->rocksdb_create_iterator(w->d->db, w->ro);
    return 0;
}

static int walk_close(struct walk *w, char *err, size_t errcap)
{
    char *e = NULL;
    rocks_lib->rocksdb_iter_get_error(w->it, &e);
    rocks_lib->rocksdb_iter_destroy(w->it);
    rocks_lib->rocksdb_readoptions_destroy(w->ro);
    int rc = rocks_said(e, err, errcap, w->d->dir, "read");
    store_kv_open_put(&opened, w->slot);
    return rc;
}

static int64_t rocks_max_key(const char *dir, char *err, size_t errcap)
{
    struct walk w;
    if (walk_open(&w, dir, err, errcap) != 0)
        return -1;
    rocks_lib->rocksdb_iter_seek_to_last(w.it);
    int64_t top = 0;
    if (rocks_lib->rocksdb_iter_valid(w.it)) {
        size_t n;
        const char *k = rocks_lib->rocksdb_iter_key(w.it, &n);
        top = store_kv_key_parse(k, n);
    }
    if (walk_close(&w, err, errcap) != 0)
        return -1;
    if (top < 0) {
        snprintf(err, errcap, "%s: a key is not one kvtest writes", dir);
        return -1;
    }
    return top;
}

/* An LSM tree keeps keys beside their values in its blocks: counting them
 * reads every block, so run does not (as for the database). */
static int rocks_count(const char *dir, int64_t max_id, int64_t *present, int64_t *largest,
                       char *err, size_t errcap)
{
    (void)dir;
    (void)max_id;
    (void)err;
    (void)errcap;
    *present = *largest = 0;
    return 0;
}

static int64_t property(rocksdb_t *db, const char *name)
{
    char *v = rocks_lib->rocksdb_property_value(db, name);
    int64_t x = v ? strtoll(v, NULL, 10) : 0;
    rocks_lib->rocksdb_free(v);
    return x;
}

static int64_t count_sst(const char *dir)
{
    DIR *d = opendir(dir);
    int64_t n = 0;
    if (!d)
        return 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        n += len > 4 && strcmp(e->d_name + len - 4, ".sst") == 0;
    }
    closedir(d);
    return n;
}

static int rocks_facts(const char *dir, void (*size)(void *, int64_t), void *arg,
                       struct store_kv_facts *f, char *err, size_t errcap)
{
    struct walk w;
    if (walk_open(&w, dir, err, errcap) != 0)
        return -1;
    for (rocks_lib->rocksdb_iter_seek_to_first(w.it); rocks_lib->rocksdb_iter_valid(w.it);
         rocks_lib->rocksdb_iter_next(w.it)) {
        size_t kn, vn;
        const char *k = rocks_lib->rocksdb_iter_key(w.it, &kn);
        rocks_lib->rocksdb_iter_value(w.it, &vn);
        int64_t key = store_kv_key_parse(k, kn);
        f->entries++;
        f->value_bytes += (int64_t)vn;
        if (key > f->max_key)
            f->max_key = key;
        if (size)
            size(arg, (int64_t)vn);
    }
    f->sst_bytes = property(w.d->db, "rocksdb.total-sst-files-size");
    f->sst_files = count_sst(dir);
    return walk_close(&w, err, errcap);
}

/* ---- making one (export DBFILE rocksdb:DIR) ---------------------------- */

/* Export writes in batches of about this many bytes. */
#define ROCKS_BATCH_BYTES ((int64_t)32 << 20)

struct rocks_writer {
    struct store_kv_writer base;
    char dir[PATH_MAX];
    rocksdb_t *db;
    rocksdb_options_t *opts;
    rocksdb_cache_t *cache;
    rocksdb_block_based_table_options_t *table;
    rocksdb_writeoptions_t *wo;
    rocksdb_writebatch_t *batch;
    int64_t batch_bytes;
};

static void rocks_abandon(struct store_kv_writer *base)
{
    struct rocks_writer *w = (struct rocks_writer *)base;
    if (w->db)
        rocks_lib->rocksdb_close(w->db);
    rocks_lib->rocksdb_writebatch_destroy(w->batch);
    rocks_lib->rocksdb_writeoptions_destroy(w->wo);
    rocks_lib->rocksdb_options_destroy(w->opts);
    rocks_lib->rocksdb_block_based_options_destroy(w->table);
    rocks_lib->rocksdb_cache_destroy(w->cache);
    free(w);
}

static int rocks_create(struct store_kv_writer **out, const char *dir, int64_t count,
                        int64_t bytes, char *err, size_t errcap)
{
    (void)count;
    (void)bytes;
    if (rocks_lib_load(err, errcap) != 0)
        return -1;
    struct rocks_writer *w = calloc(1, sizeof *w);
    if (!w) {
        snprintf(err, errcap, "out of memory");
        return -1;
    }
    snprintf(w->dir, sizeof w->dir, "%s", dir);
    w->opts = rocks_options_new(STORE_ROCKSDB_CACHE, &w->cache, &w->table);
    rocks_lib->rocksdb_options_set_create_if_missing(w->opts, 1);
    rocks_lib->rocksdb_options_set_error_if_exists(w->opts, 1);
    w->wo = rocks_lib->rocksdb_writeoptions_create();
    /* No WAL while loading: the memtables are flushed and synced into
     * SST files at the end, and a failed export is removed anyway. */
    rocks_lib->rocksdb_writeoptions_disable_WAL(w->wo, 1);
    w->batch = rocks_lib->rocksdb_writebatch_create();
    char *e = NULL;
    w->db = rocks_lib->rocksdb_open(w->opts, dir, &e);
    if (rocks_said(e, err, errcap, dir, "create") != 0 || !w->db) {
        rocks_abandon(&w->base);
        return -1;
    }
    *out = &w->base;
    return 0;
}

static int batch_write(struct rocks_writer *w, char *err, size_t errcap)
{
    char *e = NULL;
    rocks_lib->rocksdb_write(w->db, w->wo, w->batch, &e);
    rocks_lib->rocksdb_writebatch_clear(w->batch);
    w->batch_bytes = 0;
    return rocks_said(e, err, errcap, w->dir, "write");
}

static int rocks_put(struct store_kv_writer *base, int64_t key, const void *v, int64_t n,
                     char *err, size_t errcap)
{
    struct rocks_writer *w = (struct rocks_writer *)base;
    unsigned char kb[8];
    store_kv_key(kb, key);
    rocks_lib->rocksdb_writebatch_put(w->batch, (const char *)kb, sizeof kb, v, (size_t)n);
    w->batch_bytes += n + 8;
    return w->batch_bytes >= ROCKS_BATCH_BYTES ? batch_write(w, err, errcap) : 0;
}

/* Flush to SST files and compact them into the last level, so a run reads
 * the settled tree a loaded database has, not a pile of level-0 files. */
static int rocks_finish(struct store_kv_writer *base, char *err, size_t errcap)
{
    struct rocks_writer *w = (struct rocks_writer *)base;
    int rc = w->batch_bytes ? batch_write(w, err, errcap) : 0;
    if (rc == 0) {
        rocksdb_flushoptions_t *fo = rocks_lib->rocksdb_flushoptions_create();
        rocks_lib->rocksdb_flushoptions_set_wait(fo, 1);
        char *e = NULL;
        rocks_lib->rocksdb_flush(w->db, fo, &e);
        rocks_lib->rocksdb_flushoptions_destroy(fo);
        rc = rocks_said(e, err, errcap, w->dir, "flush");
    }
    if (rc == 0)
        rocks_lib->rocksdb_compact_range(w->db, NULL, 0, NULL, 0);
    rocks_abandon(base);
    return rc;
}

const struct store_kv_engine store_rocksdb_engine = {
    .ops = &store_rocksdb_ops,
    .version = KVTEST_ROCKSDB_VERSION,
    .max_key = rocks_max_key,
    .count = rocks_count,
    .facts = rocks_facts,
    .create = rocks_create,
    .put = rocks_put,
    .finish = rocks_finish,
    .abandon = rocks_abandon,
};
