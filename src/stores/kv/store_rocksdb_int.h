/* store_rocksdb internals shared by store_rocksdb.c (the store,
 * whole-database functions, the engine's table) and store_rocksdb_create.c
 * (export's writer); what both use is store_rocksdb_opts.c, and the
 * library itself is opened by store_rocksdb_lib.c. */
#ifndef KVTEST_STORE_ROCKSDB_INT_H
#define KVTEST_STORE_ROCKSDB_INT_H
#include <rocksdb/c.h>
#include <stdint.h>

#include "stores/store_int.h"

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
extern const struct rocks_lib *rocks_lib;
/* Open the library once; 0, or -1 with one line in err. Every entry
 * point that opens or creates a database calls it first. */
int rocks_lib_load(char *err, int errlen);

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
