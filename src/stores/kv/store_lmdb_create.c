/* store_lmdb_create: a new LMDB environment filled in key order, for
 * "kvtest export DBFILE lmdb:DIR" (store_kv.h's writer). */
#include <limits.h>
#include <lmdb.h>
#include <stdio.h>
#include <stdlib.h>

#include "stores/kv/store_kv.h"
#include "stores/kv/store_lmdb_int.h"

/* A write transaction may dirty at most about 128k pages (LMDB's
 * MDB_IDL_UM_MAX); export commits long before that. */
#define LMDB_TXN_BYTES ((int64_t)64 << 20)

/* ---- making one --------------------------------------------------------- */

struct lmdb_writer {
    struct store_kv_writer base;
    char dir[PATH_MAX];
    MDB_env *env;
    MDB_dbi dbi;
    MDB_txn *txn;
    int64_t txn_bytes;
};

int lmdb_create(struct store_kv_writer **out, const char *dir, int64_t count,
                       int64_t bytes, char *err, int errlen)
{
    struct lmdb_writer *w = calloc(1, sizeof *w);
    if (!w) {
        snprintf(err, (size_t)errlen, "out of memory");
        return -1;
    }
    snprintf(w->dir, sizeof w->dir, "%s", dir);
    /* Each value of more than about half a page goes on overflow pages of
     * its own: up to a page each lost to rounding. */
    int rc = mdb_env_create(&w->env);
    if (rc == 0)
        rc = mdb_env_set_mapsize(w->env, lmdb_map_for(bytes + count * 4160));
    /* Synced once, at the end (store_kv_finish): a failed export is
     * removed, never used. */
    if (rc == 0)
        rc = mdb_env_open(w->env, dir, MDB_NOSYNC, 0644);
    if (rc == 0)
        rc = mdb_txn_begin(w->env, NULL, 0, &w->txn);
    if (rc == 0)
        rc = mdb_dbi_open(w->txn, NULL, 0, &w->dbi);
    if (rc) {
        lmdb_say(err, errlen, dir, "create", rc);
        if (w->txn)
            mdb_txn_abort(w->txn);
        if (w->env)
            mdb_env_close(w->env);
        free(w);
        return -1;
    }
    *out = &w->base;
    return 0;
}

int lmdb_put(struct store_kv_writer *base, int64_t key, const void *v, int64_t n,
                    char *err, int errlen)
{
    struct lmdb_writer *w = (struct lmdb_writer *)base;
    int rc = 0;
    if (!w->txn)
        rc = mdb_txn_begin(w->env, NULL, 0, &w->txn);
    unsigned char kb[8];
    store_kv_key(kb, key);
    MDB_val k = {sizeof kb, kb}, d = {(size_t)n, (void *)v};
    /* Keys come in ascending order: MDB_APPEND fills each page fully
     * instead of splitting it in half. */
    if (rc == 0)
        rc = mdb_put(w->txn, w->dbi, &k, &d, MDB_APPEND);
    w->txn_bytes += n + 64;
    if (rc == 0 && w->txn_bytes >= LMDB_TXN_BYTES) {
        rc = mdb_txn_commit(w->txn);
        w->txn = NULL;
        w->txn_bytes = 0;
    }
    if (rc) {
        lmdb_say(err, errlen, w->dir, "write", rc);
        return -1;
    }
    return 0;
}

void lmdb_abandon(struct store_kv_writer *base)
{
    struct lmdb_writer *w = (struct lmdb_writer *)base;
    if (w->txn)
        mdb_txn_abort(w->txn);
    mdb_env_close(w->env);
    free(w);
}

int lmdb_finish(struct store_kv_writer *base, char *err, int errlen)
{
    struct lmdb_writer *w = (struct lmdb_writer *)base;
    int rc = 0;
    const char *stage = "commit";
    if (w->txn) {
        rc = mdb_txn_commit(w->txn);
        w->txn = NULL;
    }
    if (rc == 0) {
        stage = "sync";
        rc = mdb_env_sync(w->env, 1);
    }
    if (rc)
        lmdb_say(err, errlen, w->dir, stage, rc);
    lmdb_abandon(base);
    return rc ? -1 : 0;
}
