/* store_rocksdb internals shared by store_rocksdb.c (the store,
 * whole-database functions, the engine's table) and store_rocksdb_create.c
 * (export's writer); what both use is store_rocksdb_opts.c. */
#ifndef KVTEST_STORE_ROCKSDB_INT_H
#define KVTEST_STORE_ROCKSDB_INT_H
#include <rocksdb/c.h>
#include <stdint.h>

#include "stores/store_int.h"

/* err from RocksDB (malloc'd, or NULL) into the caller's line, freed:
 * 0 if there was none, else -1. */
int rocks_said(char *e, char *err, int errlen, const char *dir, const char *what);
/* The options every open uses (block cache of cache_bytes). */
rocksdb_options_t *rocks_options_new(int64_t cache_bytes, rocksdb_cache_t **cache,
                               rocksdb_block_based_table_options_t **table);

/* export's writer (store_kv.h's create/put/finish/abandon). */
int rocks_create(struct store_kv_writer **out, const char *dir, int64_t count, int64_t bytes,
                 char *err, int errlen);
int rocks_put(struct store_kv_writer *base, int64_t key, const void *v, int64_t n, char *err,
              int errlen);
int rocks_finish(struct store_kv_writer *base, char *err, int errlen);
void rocks_abandon(struct store_kv_writer *base);

#endif
