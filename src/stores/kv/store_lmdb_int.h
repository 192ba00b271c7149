/* store_lmdb internals shared by store_lmdb.c (the store, whole-store
 * functions, the engine's table) and store_lmdb_create.c (export's
 * writer); what both use of an environment is store_lmdb_env.c. */
#ifndef KVTEST_STORE_LMDB_INT_H
#define KVTEST_STORE_LMDB_INT_H
#include <stddef.h>
#include <stdint.h>

#include "stores/store_int.h"

/* One line "DIR: WHAT: LMDB's message" into err (ENOSPC for a short write
 * on a full filesystem). */
void lmdb_say(char *err, int errlen, const char *dir, const char *what, int rc);
/* The map size for used_bytes of data and one run rewriting all of it. */
size_t lmdb_map_for(int64_t used_bytes);

/* export's writer (store_kv.h's create/put/finish/abandon). */
int lmdb_create(struct store_kv_writer **out, const char *dir, int64_t count, int64_t bytes,
                char *err, int errlen);
int lmdb_put(struct store_kv_writer *base, int64_t key, const void *v, int64_t n, char *err,
             int errlen);
int lmdb_finish(struct store_kv_writer *base, char *err, int errlen);
void lmdb_abandon(struct store_kv_writer *base);

#endif
