/* store: the blob-store interface every measured loop drives.
 *
 * A store is an operations table (struct store_ops) with two
 * implementations: store_db.c (SQL and incremental blob I/O on kv(k, v))
 * and store_files.c (flat and tree exports, stdio per blob, as SQLite's
 * kvtest compared against). Each keeps its own private state; callers see
 * only struct store and the functions below. One store = one connection
 * (database) or one set of stdio handles (files); a thread owns its store.
 *
 * Database-only knobs travel in store_opts.db and are ignored by the files
 * store; nothing outside src/stores (and the shortener's link store, stat
 * and space) opens an SQLite connection of its own. */
#ifndef KVTEST_STORE_H
#define KVTEST_STORE_H
#include <stdint.h>
#include "stores/layout.h"
#include "measure/keys/rng.h"
#include "measure/runstats.h"

/* The database store's own knobs (PRAGMAs and transaction shape). */
struct store_db_opts {
    int blob_api;            /* incremental blob I/O instead of SQL */
    int64_t cache_size;      /* PRAGMA cache_size */
    int64_t mmap;            /* PRAGMA mmap_size */
    const char *jmode;       /* PRAGMA journal_mode, NULL = leave */
    int nosync;              /* PRAGMA synchronous=OFF */
    const char *synchronous; /* PRAGMA synchronous=MODE, NULL = default */
    int nocheckpoint;        /* PRAGMA wal_autocheckpoint=0 */
    int multitrans;          /* no enclosing transaction */
};

/* The key-value stores' own knobs (LMDB, RocksDB): the database's
 * --nosync and --multitrans mean the same there (store_kv.h says how). */
struct store_kv_opts {
    int nosync;              /* no sync at commit: LMDB MDB_NOSYNC, RocksDB no WAL sync */
    int multitrans;          /* each write its own durable transaction */
    int64_t block_cache;     /* RocksDB: block cache bytes (0: STORE_ROCKSDB_CACHE) */
};

/* RocksDB's own default block cache in 7.x (8 MiB), which kvtest states
 * rather than leaves implicit. */
#define STORE_ROCKSDB_CACHE ((int64_t)8 << 20)

/* The files store's own knobs. */
struct store_files_opts {
    int fsync;               /* fsync after each write */
};

struct store_opts {
    const char *path;
    enum layout_kind kind;   /* LAYOUT_DB, LAYOUT_FLAT or LAYOUT_TREE */
    int update;              /* writes instead of reads */
    int fadvise;             /* -1 leave, 0 POSIX_FADV_NORMAL, 1 RANDOM */
    struct store_db_opts db;
    struct store_files_opts files;
    struct store_kv_opts kv;
};

/* What the result lines say about an open store. Zero/empty for files. */
struct store_desc {
    int64_t page_size;
    int64_t cache_size;      /* as PRAGMA cache_size reports it */
    char jmode[32];          /* journal mode in effect, "" if none */
    int user_blobs;          /* made by "init --from": the blobs are the user's
                                files, not sealed by kvtest (kv_path exists) */
    struct sql_stats stats;  /* with_stats: SQLite's counters (have = 0 for files) */
    int64_t block_cache;     /* RocksDB: block cache bytes in use by this store */
};

struct store;

/* The operations every store implements. err/errcap receive a one-line
 * reason whenever -1 is returned. */
struct store_ops {
    const char *name;
    /* Open (and BEGIN unless db.multitrans). 0 or -1. */
    int (*open)(struct store **out, const struct store_opts *o, char *err, size_t errcap);
    /* 1 found (*data, *n valid until the next call on this store), 0 missing, -1 error. */
    int (*read)(struct store *s, int64_t key, const void **data, int64_t *n, char *err,
                size_t errcap);
    /* Overwrite key with fresh content of the same size drawn from r,
     * sealed by blobsum. 1 written (*n = size), 0 missing, -1 error. */
    int (*update)(struct store *s, int64_t key, rng_t *r, int64_t *n, char *err, size_t errcap);
    /* End the enclosing transaction (no-op where there is none). 0 or -1. */
    int (*commit)(struct store *s, char *err, size_t errcap);
    /* Close and free (closing a WAL database checkpoints). 0 or -1. */
    int (*close)(struct store *s, char *err, size_t errcap);
    /* Facts for the result lines; with_stats also snapshots (and resets)
     * the engine's counters for --stats. */
    void (*describe)(struct store *s, struct store_desc *d, int with_stats);
};

extern const struct store_ops store_db_ops;
extern const struct store_ops store_files_ops;

/* The implementation for a layout (LAYOUT_DB -> db, FLAT/TREE -> files,
 * LMDB and RocksDB -> theirs, store_kv.h); NULL for any other kind, or a
 * key-value store this build leaves out (store_kv_missing says why). */
const struct store_ops *store_ops_for(enum layout_kind kind);

/* Shorthands that open through store_ops_for(o->kind) and dispatch through
 * the store's own table. Same contracts as struct store_ops. */
int store_open(struct store **out, const struct store_opts *o, char *err, size_t errcap);
int store_read(struct store *s, int64_t key, const void **data, int64_t *n,
               char *err, size_t errcap);
int store_update(struct store *s, int64_t key, rng_t *r, int64_t *n,
                 char *err, size_t errcap);
int store_commit(struct store *s, char *err, size_t errcap);
int store_close(struct store *s, char *err, size_t errcap);   /* NULL: no-op */
void store_describe(struct store *s, struct store_desc *d, int with_stats);

/* ---- whole-path operations (no open store needed) ---------------------- */

/* The largest key present: SELECT max(k) FROM kv, or the largest file name
 * of an export. 0 if empty, -1 on error (reason in err). */
int64_t store_max_key(const char *path, enum layout_kind kind, char *err, size_t errcap);

/* Holes in an export: keys absent within 1..*range, where *range =
 * min(max_id, the largest key present). Keys above the largest present
 * are not holes (an explicit --max-id beyond the data asks for misses, as
 * upstream, and they are reported as misses). 1 counted, 0 not counted
 * (a database: a count would read every leaf page), -1 error (reason in
 * err). */
int store_count_holes(const char *path, enum layout_kind kind, int64_t max_id, int64_t *missing,
                      int64_t *range, char *err, size_t errcap);

/* Is path a database with a usable kv table? 0 yes; -1 no, with reason
 * ("no kv table", SQLite's message for a truncated/corrupt file). */
int store_db_check(const char *path, char *err, size_t errcap);

/* As SQLite's kvtest before timing: open read-write and touch the schema,
 * so a hot journal left by a crashed transaction is rolled back now and
 * not inside the measured run. Best effort, no error. */
void store_db_recover(const char *path);

/* PRAGMA integrity_check: row(arg, text) for every row it returns.
 * 0 all "ok", 1 problems reported, -1 cannot run (reason in err). */
int store_db_integrity(const char *path, void (*row)(void *arg, const char *text), void *arg,
                       char *err, size_t errcap);

/* The SQLite library version ("3.52.0"), for the result lines. */
const char *store_db_version(void);

/* SQLite's memory statistics cost one global mutex per allocation, which
 * serialises concurrent readers; only --stats needs them. Must be called
 * before SQLite initialises (before any connection is opened). */
void store_db_memstatus(int on);

#endif
