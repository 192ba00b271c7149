/* store_rocksdb_opts: what the RocksDB store (store_rocksdb.c) and
 * export's writer (store_rocksdb_create.c) both need: the options every
 * open uses, so that runs compare, and RocksDB's errors as one line
 * (store_rocksdb_int.h). */
#include <rocksdb/c.h>
#include <stdio.h>

#include "stores/kv/store_rocksdb_int.h"

/* err from RocksDB (malloc'd, or NULL) into the caller's line; frees it. */
int rocks_said(char *e, char *err, int errlen, const char *dir, const char *what)
{
    if (!e)
        return 0;
    snprintf(err, (size_t)errlen, "%s: %s: %s", dir, what, e);
    rocks_lib->rocksdb_free(e);
    return -1;
}

/* The options every open uses (block cache of cache_bytes). */
rocksdb_options_t *rocks_options_new(int64_t cache_bytes, rocksdb_cache_t **cache,
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
