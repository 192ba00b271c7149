/* init_fill: the inserting loop of "kvtest init". Content comes from
 * xoshiro (several GB/s, vs SQLite's ChaCha20 randomness) and is generated
 * in a second thread, a ring of RING blobs ahead of the thread that
 * inserts. The SQLite side (and the original randomblob() method, kept as
 * a baseline) is stores/db_create.c. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands/init/init_int.h"
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

int init_fill_fast(struct db_create *c, const struct init_opts *o, const char *cmd,
                   int64_t *bytes)
{
    int rc = db_create_begin(c, o->pagesize);
    if (rc != 0)
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
            db_create_puts_done(c);
            return -1;
        }
    pthread_t th;
    int threaded = nslots == RING && pthread_create(&th, NULL, producer, &g) == 0;

    struct progress pr;
    progress_start(&pr, cmd, o->count);
    unsigned char *own = threaded ? NULL : g.slot[0];
    int64_t committed = 0;
    for (int64_t k = 1; k <= o->count && rc == 0; k++) {
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
        rc = db_create_put(c, k, blob, n);
        *bytes += n;
        /* Commit every 32 MB: a commit writes the dirty pages sorted by
         * page number, i.e. in long contiguous runs that the wbuf shim turns
         * into 1 MiB writes; letting the page cache spill instead writes
         * single pages in LRU order. No journal, so a commit costs nothing
         * else. */
        if (rc == 0 && *bytes - committed >= 32000000) {
            rc = db_create_batch(c);
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
    db_create_puts_done(c);
    if (rc == 0)
        rc = db_create_commit(c);
    return rc;
}

