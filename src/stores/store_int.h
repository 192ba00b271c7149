/* store internals shared by store.c, store_db*.c and store_files.c only.
 * Each implementation embeds struct store as the first member of its own
 * private struct and casts back in its operations. */
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

/* Grow b to at least n bytes. 0 or -1 (out of memory). */
int store_buf_reserve(struct store_buf *b, int64_t n);
void store_buf_free(struct store_buf *b);

/* SELECT max(k) FROM kv (store_dbfile.c). 0 if empty, -1 with reason. */
int64_t store_db_max_key(const char *path, char *err, int errlen);

#endif
