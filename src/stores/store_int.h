/* store_int: what the implementations of store.h share and its users need
 * not see: the base every store embeds (as the first member of its own
 * private struct, cast back in its operations), the content buffer, and
 * the key-value engines' table and key bytes. */
#ifndef KVTEST_STORE_INT_H
#define KVTEST_STORE_INT_H
#include <stdint.h>
#include "stores/store.h"

struct store {
    const struct store_ops *ops;
};

/* A reusable content buffer (one per store: reads and updates of every
 * key reuse it, so the loop does not allocate). */
struct store_buf {
    unsigned char *p;
    int64_t cap;
};

/* Grow b to at least n bytes (store.c). 0 or -1 (out of memory). */
int store_buf_reserve(struct store_buf *b, int64_t n);
void store_buf_free(struct store_buf *b);

/* SELECT max(k) FROM kv (store_dbfile.c). 0 if empty, -1 with reason. */
int64_t store_db_max_key(const char *path, char *err, size_t errcap);

/* ---- the key-value stores (store_lmdb.c, store_rocksdb.c) -------------- */

struct store_kv_facts;
struct store_kv_writer {
    const struct store_kv_engine *e;
};

/* One engine: its operations, and store_kv.h's whole-path functions on a
 * directory (the prefix already taken off). */
struct store_kv_engine {
    const struct store_ops *ops;
    const char *version;
    int64_t (*max_key)(const char *dir, char *err, size_t errcap);
    /* Keys in 1..max_id present, and the largest key: 1 counted, 0 not
     * counted (too dear), -1 error. */
    int (*count)(const char *dir, int64_t max_id, int64_t *present, int64_t *largest,
                 char *err, size_t errcap);
    int (*facts)(const char *dir, void (*size)(void *, int64_t), void *arg,
                 struct store_kv_facts *f, char *err, size_t errcap);
    int (*create)(struct store_kv_writer **w, const char *dir, int64_t count, int64_t bytes,
                  char *err, size_t errcap);
    int (*put)(struct store_kv_writer *w, int64_t key, const void *v, int64_t n, char *err,
               size_t errcap);
    int (*finish)(struct store_kv_writer *w, char *err, size_t errcap);
    void (*abandon)(struct store_kv_writer *w);
};

/* The engines (not in the core build) and their operations. */
extern const struct store_kv_engine store_lmdb_engine, store_rocksdb_engine;
extern const struct store_ops store_lmdb_ops, store_rocksdb_ops;

/* "0.9.24" from an engine's version macros. */
#define VERSION_TEXT(a, b, c) VERSION_STR(a) "." VERSION_STR(b) "." VERSION_STR(c)
#define VERSION_STR(x) VERSION_STR2(x)
#define VERSION_STR2(x) #x

/* NULL in a build without that engine (the core). */
const struct store_kv_engine *store_kv_engine(enum layout_kind k);

/* Both engines key by the kv table's integer key as 8 big-endian bytes:
 * both compare keys byte-wise, so byte order is key order (store_kv.c). */
void store_kv_key(unsigned char out[8], int64_t key);
int64_t store_kv_key_parse(const void *p, size_t n);

#endif
