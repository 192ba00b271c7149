/* store_rocksdb_create: a new RocksDB database loaded in key order, for
 * "kvtest export DBFILE rocksdb:DIR" (store_kv.h's writer). */
#include <limits.h>
#include <rocksdb/c.h>
#include <stdio.h>
#include <stdlib.h>

#include "stores/kv/store_kv.h"
#include "stores/kv/store_rocksdb_int.h"

/* Export writes in batches of about this many bytes. */
#define ROCKS_BATCH_BYTES ((int64_t)32 << 20)

/* ---- making one --------------------------------------------------------- */

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

void rocks_abandon(struct store_kv_writer *base)
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

int rocks_create(struct store_kv_writer **out, const char *dir, int64_t count,
                        int64_t bytes, char *err, int errlen)
{
    (void)count;
    (void)bytes;
    if (rocks_lib_load(err, errlen) != 0)
        return -1;
    struct rocks_writer *w = calloc(1, sizeof *w);
    if (!w) {
        snprintf(err, (size_t)errlen, "out of memory");
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
    if (rocks_said(e, err, errlen, dir, "create") != 0 || !w->db) {
        rocks_abandon(&w->base);
        return -1;
    }
    *out = &w->base;
    return 0;
}

static int batch_write(struct rocks_writer *w, char *err, int errlen)
{
    char *e = NULL;
    rocks_lib->rocksdb_write(w->db, w->wo, w->batch, &e);
    rocks_lib->rocksdb_writebatch_clear(w->batch);
    w->batch_bytes = 0;
    return rocks_said(e, err, errlen, w->dir, "write");
}

int rocks_put(struct store_kv_writer *base, int64_t key, const void *v, int64_t n,
                     char *err, int errlen)
{
    struct rocks_writer *w = (struct rocks_writer *)base;
    unsigned char kb[8];
    store_kv_key(kb, key);
    rocks_lib->rocksdb_writebatch_put(w->batch, (const char *)kb, sizeof kb, v, (size_t)n);
    w->batch_bytes += n + 8;
    return w->batch_bytes >= ROCKS_BATCH_BYTES ? batch_write(w, err, errlen) : 0;
}

/* Flush to SST files and compact them into the last level, so a run reads
 * the settled tree a loaded database has, not a pile of level-0 files. */
int rocks_finish(struct store_kv_writer *base, char *err, int errlen)
{
    struct rocks_writer *w = (struct rocks_writer *)base;
    int rc = w->batch_bytes ? batch_write(w, err, errlen) : 0;
    if (rc == 0) {
        rocksdb_flushoptions_t *fo = rocks_lib->rocksdb_flushoptions_create();
        rocks_lib->rocksdb_flushoptions_set_wait(fo, 1);
        char *e = NULL;
        rocks_lib->rocksdb_flush(w->db, fo, &e);
        rocks_lib->rocksdb_flushoptions_destroy(fo);
        rc = rocks_said(e, err, errlen, w->dir, "flush");
    }
    if (rc == 0)
        rocks_lib->rocksdb_compact_range(w->db, NULL, 0, NULL, 0);
    rocks_abandon(base);
    return rc;
}
