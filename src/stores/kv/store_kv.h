/* store_kv: the embedded key-value stores built for blobs, LMDB and
 * RocksDB, beside the database and the files. Each is a directory named by
 * a prefix (layout.h: "lmdb:DIR", "rocksdb:DIR"); its blobs are keyed by
 * the kv table's integer key, in key order. Reading and writing go
 * through the store operations table (store.h) like the others; what has
 * no counterpart there is here: making one from a database (export), and
 * what it holds (stat, space, run's key range).
 *
 * Transactions, as the database's options mean them:
 *   LMDB     one write transaction for the run, committed (and synced) at
 *            the end; --multitrans one per write; --nosync MDB_NOSYNC.
 *            Reads: one read transaction, or one per read with --multitrans;
 *            the value is read in place in the map, not copied (each of
 *            its pages is touched, so it is really read).
 *   RocksDB  writes go to the WAL unsynced and one WAL sync ends the run;
 *            --multitrans syncs each write; --nosync never syncs the WAL
 *            (RocksDB's open still syncs its MANIFEST, CURRENT and
 *            OPTIONS: a few syncs a run, none per write). Reads:
 *            pinned in the block cache, not copied.
 * The portable core build leaves both out (store_kv_missing). */
#ifndef KVTEST_STORE_KV_H
#define KVTEST_STORE_KV_H
#include <stdint.h>
#include "stores/layout.h"

/* NULL if this build has the store of kind k; otherwise why not, for a
 * one-line refusal. */
const char *store_kv_missing(enum layout_kind k);

/* The engine's version ("0.9.24", "7.8.3"), or "none" if left out. */
const char *store_kv_version(enum layout_kind k);

/* What a key-value store holds. Engine figures not applying are 0. */
struct store_kv_facts {
    int64_t entries, value_bytes, max_key;
    /* LMDB, as mdb_stat prints them: page size, pages in use (the
     * environment's last page + 1, mdb_stat -e "Number of pages used"),
     * the map size. */
    int64_t page_size, pages_used, map_size;
    /* RocksDB: SST files and their bytes (its "total-sst-files-size"). */
    int64_t sst_files, sst_bytes;
};

/* Walk every entry of the store at path ("lmdb:DIR" / "rocksdb:DIR"):
 * facts filled, size(arg, n) called per value when size is not NULL.
 * 0, or -1 with a one-line reason in err. */
int store_kv_facts(const char *path, void (*size)(void *arg, int64_t n), void *arg,
                   struct store_kv_facts *f, char *err, size_t errcap);

/* ---- making one (kvtest export DBFILE lmdb:DIR) ------------------------ */

struct store_kv_writer;

/* A new, empty store of kind k in the existing empty directory dir, sized
 * for count blobs of bytes in all. 0, or -1 with the reason in err. */
int store_kv_create(struct store_kv_writer **w, enum layout_kind k, const char *dir,
                    int64_t count, int64_t bytes, char *err, size_t errcap);
/* Add key -> v[0..n), keys ascending. 0, or -1 with the reason. */
int store_kv_put(struct store_kv_writer *w, int64_t key, const void *v, int64_t n, char *err,
                 size_t errcap);
/* Make everything durable and compact, then close and free. 0 or -1. */
int store_kv_finish(struct store_kv_writer *w, char *err, size_t errcap);
/* Close and free without finishing (the caller removes dir). */
void store_kv_abandon(struct store_kv_writer *w);

#endif
