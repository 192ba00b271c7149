/* store_lmdb: the LMDB store. Blobs in an LMDB environment (a
 * memory-mapped copy-on-write B+tree), keyed by 8 big-endian bytes of the
 * kv key (store_int.h): the store that run reads and updates, the
 * whole-environment facts stat, space and run ask for, and export's
 * writer, which fills a new environment in key order. One file, because
 * all three are one engine's use of one environment: its map size, its
 * error text, its open.
 *
 * LMDB's locks belong to a process, and its documentation forbids opening
 * one environment twice in a process: the threads of a run share one
 * MDB_env per directory (the table of open stores, store_kv_open.h), each
 * with its own transactions (MDB_NOTLS, so a thread may hold a read
 * transaction of two stores at once). The last close closes the
 * environment and unmaps it, which is what lets run's cold eviction drop
 * its pages. */
#include <errno.h>
#include <limits.h>
#include <lmdb.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statvfs.h>

#include "stores/blobsum.h"
#include "stores/store_int.h"
#include "stores/kv/store_kv.h"
#include "stores/kv/store_kv_open.h"

/* ---- what the store and export's writer share --------------------------- */

/* LMDB turns a short write into EIO ("short write, filesystem full?" in
 * mdb_page_flush), and a full filesystem is what causes one: say so when
 * dir's filesystem has no space left, rather than blame the device. */
static void lmdb_say(char *err, size_t errcap, const char *dir, const char *what, int rc)
{
    struct statvfs fs;
    if (rc == EIO && statvfs(dir, &fs) == 0 && fs.f_bavail == 0)
        rc = ENOSPC;
    snprintf(err, errcap, "%s: %s%s%s", dir, what, *what ? ": " : "", mdb_strerror(rc));
}

/* Room in the map for the data and for one run that rewrites all of it in
 * a single transaction (the old pages are free only after its commit).
 * The file grows only as pages are written, so a generous map costs
 * address space, not disk. */
static size_t lmdb_map_for(int64_t used_bytes)
{
    return (size_t)(used_bytes * 3 + ((int64_t)256 << 20));
}

/* ---- the environments open in this process ----------------------------- */

/* Their handles, one per directory, by slot of the table of open stores
 * (store_kv_open.h). */
struct lmdb_env {
    const char *dir;            /* the table's copy */
    MDB_env *mdb;
    MDB_dbi dbi;
    unsigned flags;
};

static struct lmdb_env envs[STORE_KV_OPEN_MAX];

static int env_same(int i, const void *want)
{
    return envs[i].flags == *(const unsigned *)want;
}

static int env_open(int i, const char *dir, const void *want, char *err, size_t errcap)
{
    unsigned flags = *(const unsigned *)want;
    MDB_env *env;
    int rc = mdb_env_create(&env);
    if (rc) {
        lmdb_say(err, errcap, dir, "", rc);
        return -1;
    }
    mdb_env_set_maxreaders(env, 1024);
    rc = mdb_env_open(env, dir, flags | MDB_NOTLS, 0644);
    if ((rc == EACCES || rc == EROFS) && (flags & MDB_RDONLY)) {
        /* A read-only directory cannot take lock.mdb: read without the
         * lock table, safe as long as nothing writes meanwhile. */
        mdb_env_close(env);
        mdb_env_create(&env);
        mdb_env_set_maxreaders(env, 1024);
        rc = mdb_env_open(env, dir, flags | MDB_NOTLS | MDB_NOLOCK, 0644);
    }
    MDB_txn *txn = NULL;
    if (rc == 0 && !(flags & MDB_RDONLY)) {
        MDB_envinfo info;
        MDB_stat st;
        mdb_env_info(env, &info);
        mdb_env_stat(env, &st);
        size_t want_map = lmdb_map_for((int64_t)(info.me_last_pgno + 1) * st.ms_psize);
        if (want_map > info.me_mapsize)
            rc = mdb_env_set_mapsize(env, want_map);
    }
    if (rc == 0)
        rc = mdb_txn_begin(env, NULL, MDB_RDONLY, &txn);
    if (rc == 0)
        rc = mdb_dbi_open(txn, NULL, 0, &envs[i].dbi);
    if (txn)
        mdb_txn_abort(txn);
    if (rc) {
        lmdb_say(err, errcap, dir, "", rc);
        mdb_env_close(env);
        return -1;
    }
    envs[i].mdb = env;
    envs[i].dir = dir;
    envs[i].flags = flags;
    return 0;
}

static void env_close(int i)
{
    mdb_env_close(envs[i].mdb);
    envs[i].mdb = NULL;
}

static struct store_kv_open_table opened = {
    .what = "LMDB environments",
    .same = env_same,
    .open = env_open,
    .close = env_close,
    .mu = PTHREAD_MUTEX_INITIALIZER,
};

/* ---- the store ---------------------------------------------------------- */

struct lmdb_store {
    struct store base;          /* first: struct store * <-> struct lmdb_store * */
    int slot;                   /* in the table of open environments */
    const struct lmdb_env *env; /* its environment */
    MDB_txn *txn;               /* the open transaction, or NULL */
    int txn_reset;              /* a read transaction reset, to be renewed */
    int update, multitrans;
    unsigned page;              /* bytes per page, the touch stride */
    unsigned char sink;         /* where the touched bytes go */
};

static struct lmdb_store *lmdb_of(struct store *s)
{
    return (struct lmdb_store *)s;
}

static int lmdb_open(struct store **out, const struct store_opts *o, char *err, size_t errcap)
{
    const char *dir = layout_fs_path(o->path);
    unsigned flags = o->update ? 0 : MDB_RDONLY;
    if (o->kv.nosync)
        flags |= MDB_NOSYNC;
    if (o->fadvise == 1)
        flags |= MDB_NORDAHEAD;   /* --fadvise random: no readahead on the map */
    struct lmdb_store *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(err, errcap, "out of memory");
        return -1;
    }
    s->slot = store_kv_open_get(&opened, dir, &flags, err, errcap);
    if (s->slot < 0) {
        free(s);
        return -1;
    }
    s->env = &envs[s->slot];
    MDB_stat st;
    mdb_env_stat(s->env->mdb, &st);
    s->page = st.ms_psize ? st.ms_psize : 4096;
    s->base.ops = &store_lmdb_ops;
    s->update = o->update;
    s->multitrans = o->kv.multitrans;
    *out = &s->base;
    return 0;
}

/* A transaction of the store's kind, open and usable. 0 or -1. */
static int txn_ready(struct lmdb_store *s, char *err, size_t errcap)
{
    int rc = 0;
    if (s->txn && s->txn_reset) {
        rc = mdb_txn_renew(s->txn);
        s->txn_reset = rc != 0;
    } else if (!s->txn) {
        rc = mdb_txn_begin(s->env->mdb, NULL, s->update ? 0 : MDB_RDONLY, &s->txn);
        if (rc)
            s->txn = NULL;
    }
    if (rc)
        lmdb_say(err, errcap, s->env->dir, "begin", rc);
    return rc ? -1 : 0;
}

/* key's value in the store's transaction (begun or renewed here): k
 * points into kb. 1 found and not empty, 0 missing, -1 error. */
static int get(struct lmdb_store *s, int64_t key, unsigned char kb[8], MDB_val *k, MDB_val *v,
               char *err, size_t errcap)
{
    if (txn_ready(s, err, errcap) != 0)
        return -1;
    store_kv_key(kb, key);
    *k = (MDB_val){8, kb};
    int rc = mdb_get(s->txn, s->env->dbi, k, v);
    if (rc == MDB_NOTFOUND || (rc == 0 && v->mv_size == 0))
        return 0;
    if (rc) {
        lmdb_say(err, errcap, s->env->dir, "get", rc);
        return -1;
    }
    return 1;
}

static int lmdb_read(struct store *base, int64_t key, const void **data, int64_t *n, char *err,
                     size_t errcap)
{
    struct lmdb_store *s = lmdb_of(base);
    *n = 0;
    /* --multitrans: each read its own transaction. The previous value
     * stays valid until this call (the store contract), so the previous
     * transaction ends here rather than after its read. */
    if (s->multitrans && s->txn && !s->txn_reset) {
        mdb_txn_reset(s->txn);
        s->txn_reset = 1;
    }
    MDB_val k, v;
    unsigned char kb[8];
    int rc = get(s, key, kb, &k, &v, err, errcap);
    if (rc != 1)
        return rc;
    /* Read in place, not copied; one byte per page makes every page of
     * the value come in from the map (a fault when it is cold), as the
     * other stores' reads bring in every byte. */
    const volatile unsigned char *p = v.mv_data;
    unsigned char x = s->sink;
    for (size_t off = 0; off < v.mv_size; off += s->page)
        x ^= p[off];
    s->sink = (unsigned char)(x ^ p[v.mv_size - 1]);
    *data = v.mv_data;
    *n = (int64_t)v.mv_size;
    return 1;
}

static int lmdb_update(struct store *base, int64_t key, rng_t *r, int64_t *n, char *err,
                       size_t errcap)
{
    struct lmdb_store *s = lmdb_of(base);
    *n = 0;
    MDB_val k, v;
    unsigned char kb[8];
    int rc = get(s, key, kb, &k, &v, err, errcap);
    if (rc != 1)
        return rc;
    const char *stage = "put";
    /* MDB_RESERVE: the new value is written straight into its pages. */
    size_t len = v.mv_size;
    MDB_val nv = {len, NULL};
    rc = mdb_put(s->txn, s->env->dbi, &k, &nv, MDB_RESERVE);
    if (rc == 0) {
        rng_fill(r, nv.mv_data, len);
        blobsum_seal(nv.mv_data, len);
        *n = (int64_t)len;
    }
    if (rc == 0 && s->multitrans) {
        stage = "commit";
        rc = mdb_txn_commit(s->txn);
        s->txn = NULL;
    }
    if (rc) {
        if (s->txn)
            mdb_txn_abort(s->txn);
        s->txn = NULL;
        lmdb_say(err, errcap, s->env->dir, stage, rc);
        return -1;
    }
    return 1;
}

static int lmdb_commit(struct store *base, char *err, size_t errcap)
{
    struct lmdb_store *s = lmdb_of(base);
    if (!s->txn)
        return 0;
    int rc = 0;
    if (s->update)
        rc = mdb_txn_commit(s->txn);   /* synced unless MDB_NOSYNC */
    else
        mdb_txn_abort(s->txn);
    s->txn = NULL;
    if (rc) {
        lmdb_say(err, errcap, s->env->dir, "commit", rc);
        return -1;
    }
    return 0;
}

static int lmdb_close(struct store *base, char *err, size_t errcap)
{
    (void)err;
    (void)errcap;
    struct lmdb_store *s = lmdb_of(base);
    if (s->txn)
        mdb_txn_abort(s->txn);   /* an uncommitted write is not kept */
    store_kv_open_put(&opened, s->slot);
    free(s);
    return 0;
}

static void lmdb_describe(struct store *base, struct store_desc *d, int with_stats)
{
    (void)with_stats;
    d->page_size = lmdb_of(base)->page;
}

const struct store_ops store_lmdb_ops = {
    .name = "lmdb",
    .open = lmdb_open,
    .read = lmdb_read,
    .update = lmdb_update,
    .commit = lmdb_commit,
    .close = lmdb_close,
    .describe = lmdb_describe,
};

/* ---- whole-environment functions --------------------------------------- */

/* A read transaction and cursor on dir's shared environment. */
struct walk {
    int slot;
    const struct lmdb_env *env;
    MDB_txn *txn;
    MDB_cursor *cur;
};

static int walk_open(struct walk *w, const char *dir, char *err, size_t errcap)
{
    memset(w, 0, sizeof *w);
    unsigned flags = MDB_RDONLY;
    w->slot = store_kv_open_get(&opened, dir, &flags, err, errcap);
    if (w->slot < 0)
        return -1;
    w->env = &envs[w->slot];
    int rc = mdb_txn_begin(w->env->mdb, NULL, MDB_RDONLY, &w->txn);
    if (rc == 0)
        rc = mdb_cursor_open(w->txn, w->env->dbi, &w->cur);
    if (rc) {
        if (w->txn)
            mdb_txn_abort(w->txn);
        store_kv_open_put(&opened, w->slot);
        lmdb_say(err, errcap, dir, "", rc);
        return -1;
    }
    return 0;
}

static void walk_close(struct walk *w)
{
    mdb_cursor_close(w->cur);
    mdb_txn_abort(w->txn);
    store_kv_open_put(&opened, w->slot);
}

static int64_t lmdb_max_key(const char *dir, char *err, size_t errcap)
{
    struct walk w;
    if (walk_open(&w, dir, err, errcap) != 0)
        return -1;
    MDB_val k, v;
    int rc = mdb_cursor_get(w.cur, &k, &v, MDB_LAST);
    int64_t top = rc == 0 ? store_kv_key_parse(k.mv_data, k.mv_size) : 0;
    walk_close(&w);
    if (rc && rc != MDB_NOTFOUND) {
        lmdb_say(err, errcap, dir, "", rc);
        return -1;
    }
    if (top < 0) {
        snprintf(err, errcap, "%s: a key is not one kvtest writes", dir);
        return -1;
    }
    return top;
}

/* Keys 1..max_id: the cursor walks keys only (a value on overflow pages
 * is not touched), so counting costs the leaf pages. */
static int lmdb_count(const char *dir, int64_t max_id, int64_t *present, int64_t *largest,
                      char *err, size_t errcap)
{
    struct walk w;
    if (walk_open(&w, dir, err, errcap) != 0)
        return -1;
    unsigned char kb[8];
    store_kv_key(kb, 1);
    MDB_val k = {sizeof kb, kb}, v;
    *present = *largest = 0;
    int rc = mdb_cursor_get(w.cur, &k, &v, MDB_SET_RANGE);
    while (rc == 0) {
        int64_t key = store_kv_key_parse(k.mv_data, k.mv_size);
        if (key > *largest)
            *largest = key;
        if (key >= 1 && key <= max_id)
            (*present)++;
        rc = mdb_cursor_get(w.cur, &k, &v, MDB_NEXT);
    }
    walk_close(&w);
    if (rc != MDB_NOTFOUND) {
        lmdb_say(err, errcap, dir, "", rc);
        return -1;
    }
    return 1;
}

static int lmdb_facts(const char *dir, void (*size)(void *, int64_t), void *arg,
                      struct store_kv_facts *f, char *err, size_t errcap)
{
    struct walk w;
    if (walk_open(&w, dir, err, errcap) != 0)
        return -1;
    MDB_val k, v;
    int rc = mdb_cursor_get(w.cur, &k, &v, MDB_FIRST);
    while (rc == 0) {
        f->entries++;
        f->value_bytes += (int64_t)v.mv_size;
        int64_t key = store_kv_key_parse(k.mv_data, k.mv_size);
        if (key > f->max_key)
            f->max_key = key;
        if (size)
            size(arg, (int64_t)v.mv_size);
        rc = mdb_cursor_get(w.cur, &k, &v, MDB_NEXT);
    }
    MDB_envinfo info;
    MDB_stat st;
    mdb_env_info(w.env->mdb, &info);
    mdb_env_stat(w.env->mdb, &st);
    f->page_size = st.ms_psize;
    f->pages_used = (int64_t)info.me_last_pgno + 1;
    f->map_size = (int64_t)info.me_mapsize;
    walk_close(&w);
    if (rc != MDB_NOTFOUND) {
        lmdb_say(err, errcap, dir, "", rc);
        return -1;
    }
    return 0;
}

/* ---- making one (export DBFILE lmdb:DIR) ------------------------------- */

/* A write transaction may dirty at most about 128k pages (LMDB's
 * MDB_IDL_UM_MAX); export commits long before that. */
#define LMDB_TXN_BYTES ((int64_t)64 << 20)

struct lmdb_writer {
    struct store_kv_writer base;
    char dir[PATH_MAX];
    MDB_env *env;
    MDB_dbi dbi;
    MDB_txn *txn;
    int64_t txn_bytes;
};

static int lmdb_create(struct store_kv_writer **out, const char *dir, int64_t count,
                       int64_t bytes, char *err, size_t errcap)
{
    struct lmdb_writer *w = calloc(1, sizeof *w);
    if (!w) {
        snprintf(err, errcap, "out of memory");
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
        lmdb_say(err, errcap, dir, "create", rc);
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

static int lmdb_put(struct store_kv_writer *base, int64_t key, const void *v, int64_t n,
                    char *err, size_t errcap)
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
        lmdb_say(err, errcap, w->dir, "write", rc);
        return -1;
    }
    return 0;
}

static void lmdb_abandon(struct store_kv_writer *base)
{
    struct lmdb_writer *w = (struct lmdb_writer *)base;
    if (w->txn)
        mdb_txn_abort(w->txn);
    mdb_env_close(w->env);
    free(w);
}

static int lmdb_finish(struct store_kv_writer *base, char *err, size_t errcap)
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
        lmdb_say(err, errcap, w->dir, stage, rc);
    lmdb_abandon(base);
    return rc ? -1 : 0;
}

const struct store_kv_engine store_lmdb_engine = {
    .ops = &store_lmdb_ops,
    .version = VERSION_TEXT(MDB_VERSION_MAJOR, MDB_VERSION_MINOR, MDB_VERSION_PATCH),
    .max_key = lmdb_max_key,
    .count = lmdb_count,
    .facts = lmdb_facts,
    .create = lmdb_create,
    .put = lmdb_put,
    .finish = lmdb_finish,
    .abandon = lmdb_abandon,
};
