/* service_share: counters of several service processes in a shared
 * mapping. See service_share.h. */
#include "shortener/service/service_share.h"

#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include <cjson/cJSON.h>

#include "measure/clock.h"

/* A row is padded to whole 64-byte lines: two workers (two threads, maybe
 * two processes) never write the same cache line. */
#define ROW_WORDS ((SERVICE_TALLY_WORDS + 7) / 8 * 8)

struct service_share {
    size_t bytes;             /* of the whole mapping, for munmap */
    int nprocs, nworkers;
    struct service_kind kind;
    uint64_t started_ns;
    _Atomic uint64_t restarts;
    _Atomic long pid[SERVICE_SHARE_PROCS_MAX];
    _Alignas(64) _Atomic uint64_t rows[];   /* nprocs * nworkers rows */
};

struct service_share *service_share_new(int nprocs, int nworkers,
                                        const struct service_kind *kind)
{
    if (nprocs < 1 || nprocs > SERVICE_SHARE_PROCS_MAX || nworkers < 1)
        return NULL;
    size_t bytes = sizeof(struct service_share) +
                   (size_t)nprocs * (size_t)nworkers * ROW_WORDS * sizeof(uint64_t);
    /* Anonymous and shared: the children forked after this see the same
     * pages, and the pages vanish with the last process (no file, no name
     * anybody else could open). Zero-filled by the kernel. */
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
        return NULL;
    struct service_share *sh = p;
    sh->bytes = bytes;
    sh->nprocs = nprocs;
    sh->nworkers = nworkers;
    sh->kind = *kind;
    sh->started_ns = clock_now_ns();
    return sh;
}

void service_share_free(struct service_share *sh)
{
    if (sh)
        munmap(sh, sh->bytes);
}

int service_share_procs(const struct service_share *sh) { return sh->nprocs; }
int service_share_workers(const struct service_share *sh) { return sh->nworkers; }
const struct service_kind *service_share_kind(const struct service_share *sh)
{
    return &sh->kind;
}
uint64_t service_share_started_ns(const struct service_share *sh) { return sh->started_ns; }

void service_share_set_pid(struct service_share *sh, int k, long pid)
{
    atomic_store_explicit(&sh->pid[k], pid, memory_order_relaxed);
}

long service_share_pid(const struct service_share *sh, int k)
{
    return atomic_load_explicit(&((struct service_share *)sh)->pid[k], memory_order_relaxed);
}

void service_share_restarted(struct service_share *sh)
{
    atomic_fetch_add_explicit(&sh->restarts, 1, memory_order_relaxed);
}

uint64_t service_share_restarts(const struct service_share *sh)
{
    return atomic_load_explicit(&((struct service_share *)sh)->restarts, memory_order_relaxed);
}

_Atomic uint64_t *service_share_tally(struct service_share *sh, int k, int i)
{
    return &sh->rows[((size_t)k * (size_t)sh->nworkers + (size_t)i) * ROW_WORDS];
}

void service_share_sum(struct service_share *sh, struct service_totals *out)
{
    uint64_t sum[SERVICE_TALLY_WORDS];
    memset(sum, 0, sizeof sum);
    for (int k = 0; k < sh->nprocs; k++)
        for (int i = 0; i < sh->nworkers; i++) {
            _Atomic uint64_t *row = service_share_tally(sh, k, i);
            for (size_t j = 0; j < SERVICE_TALLY_WORDS; j++)
                sum[j] += atomic_load_explicit(&row[j], memory_order_relaxed);
        }
    memset(out, 0, sizeof *out);
    memcpy(out, sum, sizeof sum);
}

char *service_share_stats_json(struct service_share *sh)
{
    struct service_totals t;
    service_share_sum(sh, &t);
    cJSON *o = service_totals_object(&t, &sh->kind, sh->started_ns);
    if (!o)
        return NULL;
    cJSON_AddNumberToObject(o, "processes", sh->nprocs);
    cJSON_AddNumberToObject(o, "restarts", (double)service_share_restarts(sh));
    char *txt = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    return txt;
}

void service_share_stats_print(struct service_share *sh, FILE *fp)
{
    struct service_totals t;
    service_share_sum(sh, &t);
    service_totals_print(&t, &sh->kind, fp);
    fprintf(fp, "Processes: %d (restarts %llu)\n", sh->nprocs,
            (unsigned long long)service_share_restarts(sh));
}
