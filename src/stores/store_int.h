/* store internals shared by store.c, store_db.c and store_files.c only. */
#ifndef KVTEST_STORE_INT_H
#define KVTEST_STORE_INT_H
#include <stdint.h>
#include "sqlite3.h"
#include "stores/store.h"

struct store {
    struct store_opts o;
    /* database */
    sqlite3 *db;
    sqlite3_stmt *stmt;        /* SELECT v / UPDATE kv SET v=kvtest_fresh(...) */
    sqlite3_blob *blob;        /* incremental blob handle, reopened per key */
    int in_txn;
    int64_t page_size, cache_size;
    char jmode[32];
    rng_t *fresh_rng;          /* content source of kvtest_fresh() for this call */
    int64_t fresh_n;           /* size of the last blob kvtest_fresh() made */
    /* files */
    char *pathbuf;             /* dir + "/" + name of the current key */
    size_t pathcap, dirlen;
    /* both: reusable content buffer */
    unsigned char *buf;
    int64_t bufcap;
};

int store_db_open(struct store *s, char *err, int errlen);
int store_db_read(struct store *s, int64_t key, const void **data, int64_t *n, char *err, int errlen);
int store_db_update(struct store *s, int64_t key, rng_t *r, int64_t *n, char *err, int errlen);
int store_db_commit(struct store *s, char *err, int errlen);
int store_db_close(struct store *s, char *err, int errlen);

int store_files_open(struct store *s, char *err, int errlen);
int store_files_read(struct store *s, int64_t key, const void **data, int64_t *n, char *err, int errlen);
int store_files_update(struct store *s, int64_t key, rng_t *r, int64_t *n, char *err, int errlen);
int store_files_close(struct store *s, char *err, int errlen);

/* Grow s->buf to at least n bytes. 0 or -1. */
int store_reserve(struct store *s, int64_t n);

#endif
