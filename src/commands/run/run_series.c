/* run_series: the passes of one "kvtest run" -- warm-up, cold eviction and
 * measured runs, the --update read-back, --keys-out, the integrity check --
 * and the figures made of them (see run_int.h). Prints nothing but errors. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands/run/run_int.h"
#include "base/cli.h"
#include "measure/report.h"
#include "stores/store.h"

void run_summary_free(struct run_summary *s)
{
    free(s->figs);
    free(s->us);
    free(s->mb);
    hist_free(s->merged);
    timeline_free(&s->timeline);
    for (int i = 0; i < s->integrity.n; i++)
        free(s->integrity.rows[i]);
    free(s->integrity.rows);
    memset(s, 0, sizeof *s);
}

static int write_keys(const char *path, const int64_t *keys, int64_t n, const char *cmd)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return cli_fail(cmd, "%s: %s", path, strerror(errno));
    for (int64_t i = 0; i < n; i++)
        fprintf(f, "%" PRId64 "\n", keys[i]);
    if (fclose(f) != 0)
        return cli_fail(cmd, "%s: %s", path, strerror(errno));
    return 0;
}

/* Warm-up runs, then the measured runs (each after eviction with --cold).
 * 0, or 1 after the error. */
static int measure_runs(const struct run_plan *p, struct run_pass *ps, struct run_workers *ws,
                        struct run_summary *s, const char *cmd)
{
    const struct run_opts *o = p->o;
    struct coldcache_set cset = {layout_fs_path(o->path), p->is_db, p->kind == LAYOUT_TREE,
                                 p->max_id, layout_is_kv(p->kind)};
    struct run_fig scratch;
    char why[1024];
    int ret;
    for (int64_t w = 0; w < o->warmup; w++)
        if ((ret = run_pass_once(ps, ws, NULL, &scratch, cmd)) != 0)
            return ret;
    ps->timeline = o->timeline ? &s->timeline : NULL;   /* measured runs only */
    for (int i = 0; i < s->nruns; i++) {
        struct run_fig *f = &s->figs[i];
        struct coldcache_stat cst;
        memset(&cst, 0, sizeof cst);
        if (o->cold && coldcache_evict(&cset, &cst, why, sizeof why) != 0)
            return cli_fail(cmd, "cannot evict %s from the page cache: %s", o->path, why);
        if ((ret = run_pass_once(ps, ws, s->merged, f, cmd)) != 0)
            return ret;
        f->cold = o->cold;
        f->cst = cst;
        f->resident = cst.pages ? (double)cst.resident / (double)cst.pages : 0.0;
    }
    return 0;
}

/* Read back what --update wrote: replay the same sequence, check all.
 * 0, or 1 after the error. */
static int read_back(const struct run_pass *measured, struct run_workers *ws,
                     struct run_summary *s, const char *cmd, int verify)
{
    struct run_opts ro = *measured->o;
    ro.update = 0;
    ro.latency = 0;
    struct run_pass ps = *measured;
    ps.o = &ro;
    ps.so.update = 0;
    ps.so.fadvise = -1;
    ps.verify = verify;
    ps.latency = 0;
    ps.keys = NULL;
    ps.timeline = NULL;
    struct run_fig vf;
    int ret = run_pass_once(&ps, ws, NULL, &vf, cmd);
    if (ret == 0) {
        s->checked += vf.checked;
        s->unverifiable += vf.unverifiable;
    }
    return ret;
}

static void spread(const double *v, double *sorted, int n, double out[3])
{
    memcpy(sorted, v, sizeof(double) * (size_t)n);
    out[1] = report_median(sorted, n);
    out[0] = sorted[0], out[2] = sorted[n - 1];
}

/* Per-run rates, spreads, the median run and the sums. 0 or -1 (memory). */
static int figures(const struct run_plan *p, struct run_summary *s)
{
    int n = s->nruns;
    double *sorted = malloc(sizeof(double) * (size_t)n);
    if (!sorted)
        return -1;
    s->io_sum.ok = 1;
    int64_t blobs_all = 0, storage_all = 0;
    for (int i = 0; i < n; i++) {
        const struct run_fig *f = &s->figs[i];
        int64_t cycles = f->count + f->misses;
        s->us[i] = cycles ? f->seconds * 1e6 / (double)cycles : 0;
        s->mb[i] = f->seconds > 0 ? (double)f->bytes / 1e6 / f->seconds : 0;
        if (f->resident > s->resident_max)
            s->resident_max = f->resident;
        s->io_sum.ok &= f->io_delta.ok;
        for (int k = 0; k < 7; k++)
            s->io_sum.v[k] += f->io_delta.v[k];
        blobs_all += f->count;
        storage_all += f->io_read;
        s->checked += f->checked;
        s->unverifiable += f->unverifiable;
    }
    spread(s->mb, sorted, n, s->mb_spread);
    spread(s->us, sorted, n, s->us_spread);
    free(sorted);
    /* Distribution-free: order statistics of the median, so a skewed round
     * (a preempted pass) widens the interval without moving its centre.
     * A zero figure (no cycles) has no interval: [v, v], not covered. */
    if (stats_median_ci(s->us, (size_t)n, &s->us_ci) != 0)
        s->us_ci = (struct stats_ci){s->us_spread[1], s->us_spread[0], s->us_spread[2], 0};
    if (stats_median_ci(s->mb, (size_t)n, &s->mb_ci) != 0)
        s->mb_ci = (struct stats_ci){s->mb_spread[1], s->mb_spread[0], s->mb_spread[2], 0};
    /* The median run is the one nearest the median us-per-blob (for even N
     * the median is between two runs), so the printed lines are one real,
     * consistent run. */
    s->med = 0;
    for (int i = 1; i < n; i++)
        if (fabs(s->us[i] - s->us_spread[1]) < fabs(s->us[s->med] - s->us_spread[1]))
            s->med = i;
    s->cold_effective = !p->o->cold || coldcache_is_cold(s->resident_max);
    s->storage_per_blob = blobs_all ? (double)storage_all / (double)blobs_all : 0;
    return 0;
}

static void integrity_row(void *arg, const char *text)
{
    struct run_integrity *in = arg;
    if (in->n == in->cap) {
        int cap = in->cap ? in->cap * 2 : 4;
        char **rows = realloc(in->rows, sizeof *rows * (size_t)cap);
        if (!rows)
            return;
        in->rows = rows;
        in->cap = cap;
    }
    char *t = strdup(text);
    if (t)
        in->rows[in->n++] = t;
}

/* PRAGMA integrity_check after the runs (--integrity-check, databases). */
static void integrity(const struct run_plan *p, struct run_summary *s, const char *cmd)
{
    char why[1024];
    int rc = store_db_integrity(p->o->path, integrity_row, &s->integrity, why, sizeof why);
    if (rc < 0)
        cli_fail(cmd, "%s", why);
    s->integrity.ran = rc >= 0;
    s->integrity.bad = rc != 0;
}

/* Allocate what the runs fill. 0, or 1 after the error. */
static int allocate(const struct run_plan *p, struct run_summary *s, struct run_workers **ws,
                    struct run_pass *ps, const char *cmd)
{
    const struct run_opts *o = p->o;
    s->nruns = (int)o->repeat;
    s->figs = calloc((size_t)s->nruns, sizeof *s->figs);
    s->us = calloc((size_t)s->nruns, sizeof *s->us);
    s->mb = calloc((size_t)s->nruns, sizeof *s->mb);
    s->merged = o->latency ? hist_new() : NULL;
    *ws = run_workers_new(o->threads, o->latency);
    if (!s->figs || !s->us || !s->mb || (o->latency && !s->merged) || !*ws)
        return cli_fail(cmd, "out of memory");
    if (o->keys_out && o->threads == 1) {
        ps->keys = malloc((size_t)(2 * o->count) * sizeof *ps->keys);
        if (!ps->keys)
            return cli_fail(cmd, "out of memory for --keys-out");
    }
    return 0;
}

int run_series(const struct run_plan *p, struct run_summary *s, const char *cmd)
{
    const struct run_opts *o = p->o;
    memset(s, 0, sizeof *s);
    struct run_pass ps = {.o = o, .so = p->so, .max_id = p->max_id,
                          .verify = o->update              ? 0
                                    : p->vs == RUN_VERIFY_ON   ? 1
                                    : p->vs == RUN_VERIFY_USER ? 2
                                                               : 0,
                          .latency = o->latency,
                          .threads = o->threads, .keys = NULL};
    struct run_workers *ws = NULL;
    int ret = allocate(p, s, &ws, &ps, cmd);
    if (!ret)
        ret = measure_runs(p, &ps, ws, s, cmd);
    if (!ret && ps.keys) {
        const struct run_fig *last = &s->figs[s->nruns - 1];
        ret = write_keys(o->keys_out, ps.keys, last->count + last->misses, cmd);
    }
    if (!ret && o->update && (p->vs == RUN_VERIFY_ON || p->vs == RUN_VERIFY_USER))
        ret = read_back(&ps, ws, s, cmd, p->vs == RUN_VERIFY_USER ? 2 : 1);
    if (!ret && figures(p, s) != 0)
        ret = cli_fail(cmd, "out of memory");
    if (!ret && p->is_db && o->integrity_check)
        integrity(p, s, cmd);
    run_workers_free(ws);
    free(ps.keys);
    return ret;
}
