/* init_fill: the inserting loop of "kvtest init". Content comes from
 * xoshiro (several GB/s, vs SQLite's ChaCha20 randomness) and is generated
 * in a second thread, a ring of RING blobs ahead of the thread that
 * inserts; the original randomblob() method is kept as a baseline. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands/init_int.h"
#include "measure/progress.h"

/* --- producer: blobs generated ahead of the inserting thread ----------- */

#define RING 32   /* slots; 32 x (size+variance) bytes of memory */
#define RING_MAX_BYTES (512LL << 20)

struct ring {
    const struct init_opts *o;
    unsigned char *slot[RING];
    int64_t len[RING];
    int64_t produced, consumed;   /* keys 1..produced are ready */
    int64_t consumer_need;        /* consumer sleeps until produced >= this */
    int producer_waits, consumer_waits;
    int stop;
    pthread_mutex_t mu;
    pthread_cond_t cv;
};

/* Each side sleeps until the other is half a ring ahead and is woken only
 * then, so a balanced pair does not pay a futex call per blob. */
static void *producer(void *arg)
{
    struct ring *g = arg;
    for (int64_t k = 1; k <= g->o->count; k++) {
        pthread_mutex_lock(&g->mu);
        if (!g->stop && g->produced - g->consumed >= RING) {
            g->producer_waits = 1;
            while (!g->stop && g->produced - g->consumed > RING / 2)
                pthread_cond_wait(&g->cv, &g->mu);
            g->producer_waits = 0;
        }
        int stop = g->stop;
        pthread_mutex_unlock(&g->mu);
        if (stop)
            break;
        int i = (int)(k % RING);
        int64_t n = init_blob_size(g->o, k);
        init_blob_fill(g->o, k, g->slot[i], n);
        g->len[i] = n;
        pthread_mutex_lock(&g->mu);
        g->produced = k;
        if (g->consumer_waits && k >= g->consumer_need)
            pthread_cond_broadcast(&g->cv);
        pthread_mutex_unlock(&g->mu);
    }
    return NULL;
}

/* Consumer side: wait for key k to be ready. */
static void ring_wait(struct ring *g, int64_t k)
{
    pthread_mutex_lock(&g->mu);
    if (g->produced < k) {
        g->consumer_need = k + RING / 2 < g->o->count ? k + RING / 2 : g->o->count;
        g->consumer_waits = 1;
        while (g->produced < g->consumer_need)
            pthread_cond_wait(&g->cv, &g->mu);
        g->consumer_waits = 0;
    }
    pthread_mutex_unlock(&g->mu);
}

/* Consumer side: key k's slot may be reused. */
static void ring_release(struct ring *g, int64_t k)
{
    pthread_mutex_lock(&g->mu);
    g->consumed = k;
    if (g->producer_waits && g->produced - k <= RING / 2)
        pthread_cond_broadcast(&g->cv);
    pthread_mutex_unlock(&g->mu);
}

/* The original program's method, kept (hidden option --method randomblob)
 * so the speed of ours can be compared against it in one binary. */
int init_fill_randomblob(sqlite3 *db, const struct init_opts *o)
{
    char *sql = sqlite3_mprintf(
        "PRAGMA page_size=%lld;"
        "VACUUM;"
        "BEGIN;"
        "CREATE TABLE kv(k INTEGER PRIMARY KEY, v BLOB);"
        "WITH RECURSIVE c(x) AS (VALUES(1) UNION ALL SELECT x+1 FROM c WHERE x<%lld)"
        " INSERT INTO kv(k,v) SELECT x, randomblob(%lld+(random()%%(%lld))) FROM c;"
        "COMMIT;",
        (long long)o->pagesize, (long long)o->count, (long long)o->size,
        (long long)o->variance + 1);
    int rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
    sqlite3_free(sql);
    return rc;
}

int init_fill_fast(sqlite3 *db, const struct init_opts *o, const char *cmd, int64_t *bytes)
{
    char sql[256];
    snprintf(sql, sizeof sql,
             "PRAGMA page_size=%lld; PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
             "PRAGMA locking_mode=EXCLUSIVE; PRAGMA cache_size=-65536;"
             "CREATE TABLE kv(k INTEGER PRIMARY KEY, v BLOB); BEGIN;",
             (long long)o->pagesize);
    int rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
    if (rc != SQLITE_OK)
        return rc;
    sqlite3_stmt *st = NULL;
    rc = sqlite3_prepare_v2(db, "INSERT INTO kv(k,v) VALUES(?1,?2)", -1, &st, NULL);
    if (rc != SQLITE_OK)
        return rc;

    struct ring g;
    memset(&g, 0, sizeof g);
    g.o = o;
    pthread_mutex_init(&g.mu, NULL);
    pthread_cond_init(&g.cv, NULL);
    int64_t maxlen = o->nsizes ? o->sizes_max : o->size + o->variance;
    /* A ring of very large blobs would cost RING x the largest blob of
     * memory: above RING_MAX_BYTES in all, one buffer and one thread. */
    int nslots = maxlen <= RING_MAX_BYTES / RING ? RING : 1;
    for (int i = 0; i < nslots; i++)
        if (!(g.slot[i] = malloc((size_t)maxlen))) {
            for (int j = 0; j < i; j++)
                free(g.slot[j]);
            sqlite3_finalize(st);
            return SQLITE_NOMEM;
        }
    pthread_t th;
    int threaded = nslots == RING && pthread_create(&th, NULL, producer, &g) == 0;

    struct progress pr;
    progress_start(&pr, cmd, o->count);
    unsigned char *own = threaded ? NULL : g.slot[0];
    int64_t committed = 0;
    for (int64_t k = 1; k <= o->count && rc == SQLITE_OK; k++) {
        const unsigned char *blob;
        int64_t n;
        int i = (int)(k % RING);
        if (threaded) {
            ring_wait(&g, k);
            blob = g.slot[i];
            n = g.len[i];
        } else {
            n = init_blob_size(o, k);
            init_blob_fill(o, k, own, n);
            blob = own;
        }
        sqlite3_bind_int64(st, 1, k);
        sqlite3_bind_blob64(st, 2, blob, (sqlite3_uint64)n, SQLITE_STATIC);
        rc = sqlite3_step(st);
        sqlite3_reset(st);
        if (rc == SQLITE_DONE)
            rc = SQLITE_OK;
        *bytes += n;
        /* Commit every 32 MB: a commit writes the dirty pages sorted by
         * page number, i.e. in long contiguous runs that the wbuf shim turns
         * into 1 MiB writes; letting the page cache spill instead writes
         * single pages in LRU order. No journal, so a commit costs nothing
         * else. */
        if (rc == SQLITE_OK && *bytes - committed >= 32000000) {
            rc = sqlite3_exec(db, "COMMIT; BEGIN", NULL, NULL, NULL);
            committed = *bytes;
        }
        if (threaded)
            ring_release(&g, k);
        if ((k & 63) == 0)
            progress_update(&pr, k, *bytes);
    }
    progress_end(&pr);
    if (threaded) {
        pthread_mutex_lock(&g.mu);
        g.stop = 1;
        pthread_cond_broadcast(&g.cv);
        pthread_mutex_unlock(&g.mu);
        pthread_join(th, NULL);
    }
    for (int i = 0; i < RING; i++)
        free(g.slot[i]);
    pthread_mutex_destroy(&g.mu);
    pthread_cond_destroy(&g.cv);
    sqlite3_finalize(st);
    if (rc == SQLITE_OK)
        rc = sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
    return rc;
}

