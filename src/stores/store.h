/* store: the blob-store interface every measured loop drives.
 * One store = one connection (database) or one set of stdio handles
 * (files); a thread owns its store. Implementations: store_db.c (SQL and
 * incremental blob I/O) and store_files.c (flat and tree exports, stdio
 * per blob, as SQLite's kvtest compared against). */
#ifndef KVTEST_STORE_H
#define KVTEST_STORE_H
#include <stdint.h>
#include "stores/layout.h"
#include "measure/rng.h"

struct store_opts {
    const char *path;
    enum layout_kind kind;   /* LAYOUT_DB, LAYOUT_FLAT or LAYOUT_TREE */
    int blob_api;            /* db: incremental blob I/O instead of SQL */
    int64_t cache_size;      /* db: PRAGMA cache_size */
    int64_t mmap;            /* db: PRAGMA mmap_size */
    const char *jmode;       /* db: PRAGMA journal_mode, NULL = leave */
    int nosync;              /* db: PRAGMA synchronous=OFF */
    const char *synchronous; /* db: PRAGMA synchronous=MODE, NULL = default */
    int fsync;               /* files: fsync after each write */
    int nocheckpoint;        /* db: PRAGMA wal_autocheckpoint=0 */
    int multitrans;          /* db: no enclosing transaction */
    int update;              /* writes instead of reads */
    int fadvise;             /* -1 leave, 0 POSIX_FADV_NORMAL, 1 RANDOM */
};

struct store;

/* Open (and BEGIN unless multitrans). 0, or -1 with a one-line reason. */
int store_open(struct store **out, const struct store_opts *o, char *err, int errlen);

/* Read key: 1 found (*data and *n valid until the next call on this store),
 * 0 missing, -1 error (reason in err). */
int store_read(struct store *s, int64_t key, const void **data, int64_t *n,
               char *err, int errlen);

/* Overwrite key with fresh random content of the same size drawn from r,
 * sealed by blobsum. 1 written (*n = size), 0 missing, -1 error. */
int store_update(struct store *s, int64_t key, rng_t *r, int64_t *n,
                 char *err, int errlen);

/* COMMIT the enclosing transaction (no-op for files or multitrans).
 * 0 or -1 with reason. */
int store_commit(struct store *s, char *err, int errlen);

/* Close and free (closing a WAL database checkpoints). 0 or -1. */
int store_close(struct store *s, char *err, int errlen);

/* Database facts for the result lines; 0/NULL for files. */
int64_t store_page_size(const struct store *s);
int64_t store_cache_size(const struct store *s);   /* as PRAGMA reports */
const char *store_jmode(const struct store *s);
void *store_sqlite(const struct store *s);          /* sqlite3 *, or NULL */

/* The largest key present: SELECT max(k) FROM kv, or the largest file name
 * of an export. 0 if empty, -1 on error (reason in err). */
int64_t store_max_key(const char *path, enum layout_kind kind, char *err, int errlen);

/* Is path a database with a usable kv table? 0 yes; -1 no, with reason
 * ("no kv table", SQLite's message for a truncated/corrupt file). */
int store_db_check(const char *path, char *err, int errlen);

#endif
