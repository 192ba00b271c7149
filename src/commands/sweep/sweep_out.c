/* sweep_out: the sweep's table or JSON object, and a crossover per page
 * size. With one page size the output is the one sweep printed before
 * --page-sizes existed (scripts read its "Crossover:" line and its JSON
 * "rows" and "crossover"); several page sizes add a page column, one
 * "Crossover (page P):" line each, and a "pages" array in the JSON. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cli.h"
#include "commands/sweep/sweep.h"
#include "commands/sweep/sweep_int.h"
#include "measure/report.h"

#define LINE_CAP 512

/* What the report derives from the rows: per page size p, the ratios
 * files / blob API (ratio[p * n + i]) and the crossover with its line. */
struct sweep_calc {
    int n;
    double sizes[SWEEP_MAX_SIZES];
    double ratio[SWEEP_MAX_PAGES * SWEEP_MAX_SIZES];
    struct sweep_crossing cross[SWEEP_MAX_PAGES];
    struct sweep_cross_ci ci[SWEEP_MAX_PAGES];
    int ci_ok[SWEEP_MAX_PAGES];   /* the bootstrap ran (0: bad input or memory) */
    char line[SWEEP_MAX_PAGES][LINE_CAP];
};

static const char *cross_kind(enum sweep_cross_kind k)
{
    return k == SWEEP_CROSS ? "cross" : k == SWEEP_DB_WINS ? "db_wins"
           : k == SWEEP_FILES_WIN ? "files_win" : "unknown";
}

static cJSON *result_json(const struct run_result *r)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "us_per_blob", r->us_per_blob);
    cJSON_AddNumberToObject(o, "us_min", r->us_min);
    cJSON_AddNumberToObject(o, "us_max", r->us_max);
    cJSON_AddNumberToObject(o, "mb_per_s", r->mb_per_s);
    cJSON_AddNumberToObject(o, "count", (double)r->count);
    cJSON_AddNumberToObject(o, "misses", (double)r->misses);
    cJSON_AddNumberToObject(o, "bytes", (double)r->bytes);
    if (r->latency)
        cJSON_AddItemToObject(o, "latency", report_hist_json(r->latency));
    cJSON *runs = cJSON_AddArrayToObject(o, "runs_us");
    for (int i = 0; i < r->nruns; i++)
        cJSON_AddItemToArray(runs, cJSON_CreateNumber(r->us_runs[i]));
    return o;
}

static cJSON *row_json(const struct sweep_row *row, int p, double ratio)
{
    cJSON *r = cJSON_CreateObject();
    cJSON_AddNumberToObject(r, "size", (double)row->size);
    cJSON_AddNumberToObject(r, "count", (double)row->count);
    cJSON_AddItemToObject(r, "sql", result_json(&row->db[p][0]));
    cJSON_AddItemToObject(r, "blob", result_json(&row->db[p][1]));
    cJSON_AddItemToObject(r, "files", result_json(&row->files));
    cJSON_AddNumberToObject(r, "ratio_files_blob", ratio);
    double sq = row->db[p][0].us_per_blob;
    cJSON_AddNumberToObject(r, "ratio_files_sql", sq > 0 ? row->files.us_per_blob / sq : 0.0);
    return r;
}

/* null when a single round leaves nothing to resample. */
static void ci_json(cJSON *j, const struct sweep_cross_ci *ci, int ok)
{
    if (!ok || !ci->estimable) {
        cJSON_AddNullToObject(j, "ci");
        return;
    }
    cJSON *c = cJSON_AddObjectToObject(j, "ci");
    if (ci->lo_open)
        cJSON_AddNullToObject(c, "lo");
    else
        cJSON_AddNumberToObject(c, "lo", ci->lo);
    if (ci->hi_open)
        cJSON_AddNullToObject(c, "hi");
    else
        cJSON_AddNumberToObject(c, "hi", ci->hi);
    cJSON_AddBoolToObject(c, "lo_open", ci->lo_open);
    cJSON_AddBoolToObject(c, "hi_open", ci->hi_open);
    cJSON_AddStringToObject(c, "beyond", ci->beyond > 0 ? "above" : ci->beyond < 0 ? "below"
                                                                                   : "none");
    cJSON_AddNumberToObject(c, "resamples", ci->resamples);
    cJSON_AddNumberToObject(c, "rounds", ci->rounds);
    cJSON_AddStringToObject(c, "method", "percentile bootstrap over rounds");
}

static cJSON *cross_json(const struct sweep_crossing *c, const char *line,
                         const struct sweep_cross_ci *ci, int ci_ok)
{
    cJSON *j = cJSON_CreateObject();
    cJSON_AddStringToObject(j, "kind", cross_kind(c->kind));
    if (c->kind == SWEEP_CROSS)
        cJSON_AddNumberToObject(j, "size", c->size);
    else
        cJSON_AddNullToObject(j, "size");
    cJSON_AddNumberToObject(j, "crossings", c->crossings);
    cJSON_AddStringToObject(j, "line", line);
    ci_json(j, ci, ci_ok);
    return j;
}

static void options_json(cJSON *j, const struct sweep_opts *o)
{
    cJSON *op = cJSON_AddObjectToObject(j, "options");
    cJSON *sz = cJSON_AddArrayToObject(op, "sizes");
    for (int i = 0; i < o->nsizes; i++)
        cJSON_AddItemToArray(sz, cJSON_CreateNumber((double)o->sizes[i]));
    cJSON_AddNumberToObject(op, "total", (double)o->total);
    cJSON_AddNumberToObject(op, "pagesize", (double)o->pages[0]);
    cJSON *ps = cJSON_AddArrayToObject(op, "page_sizes");
    for (int p = 0; p < o->npages; p++)
        cJSON_AddItemToArray(ps, cJSON_CreateNumber((double)o->pages[p]));
    cJSON_AddNumberToObject(op, "mmap", (double)o->mmap);
    cJSON_AddNumberToObject(op, "repeat", (double)o->repeat);
    cJSON_AddNumberToObject(op, "warmup", (double)o->warmup);
    cJSON_AddNumberToObject(op, "seed", (double)o->seed);
    cJSON_AddBoolToObject(op, "cold", o->cold);
    cJSON_AddBoolToObject(op, "update", o->update);
    cJSON_AddBoolToObject(op, "keep", o->keep);
    cJSON_AddStringToObject(op, "order", "random");
}

/* "rows" and "crossover" are those of the first (smallest) page size, as
 * before; "pages" has every page size. */
static void report_json(const struct sweep_opts *o, const struct sweep_row *rows,
                        const struct sweep_calc *k)
{
    cJSON *j = report_json_new("sweep", o->dir);
    options_json(j, o);
    cJSON *arr = cJSON_AddArrayToObject(j, "rows");
    for (int i = 0; i < k->n; i++)
        cJSON_AddItemToArray(arr, row_json(&rows[i], 0, k->ratio[i]));
    cJSON_AddItemToObject(j, "crossover", cross_json(&k->cross[0], k->line[0], &k->ci[0], k->ci_ok[0]));
    cJSON_AddBoolToObject(j, "files_measured_once", 1);
    cJSON *pages = cJSON_AddArrayToObject(j, "pages");
    for (int p = 0; p < o->npages; p++) {
        cJSON *pj = cJSON_CreateObject();
        cJSON_AddNumberToObject(pj, "pagesize", (double)o->pages[p]);
        cJSON *pr = cJSON_AddArrayToObject(pj, "rows");
        for (int i = 0; i < k->n; i++)
            cJSON_AddItemToArray(pr, row_json(&rows[i], p, k->ratio[p * k->n + i]));
        cJSON_AddItemToObject(pj, "crossover", cross_json(&k->cross[p], k->line[p], &k->ci[p], k->ci_ok[p]));
        cJSON_AddItemToArray(pages, pj);
    }
    cJSON_AddBoolToObject(j, "complete", k->n == o->nsizes);
    report_json_print(j);
}

static void text_header(const struct sweep_opts *o)
{
    char tot[32], pages[160] = "", mm[48] = "";
    sweep_fmt_size(tot, sizeof tot, (double)o->total);
    size_t len = 0;
    for (int p = 0; p < o->npages && len < sizeof pages; p++)
        len += (size_t)snprintf(pages + len, sizeof pages - len, "%s%" PRId64,
                                p ? ", " : "", o->pages[p]);
    if (o->mmap)
        snprintf(mm, sizeof mm, ", mmap %" PRId64, o->mmap);
    printf("Sweep of %s: %s bytes per size, page size%s %s%s, random %s of "
           "every key, %" PRId64 " warm-up + %" PRId64 " measured run%s%s\n",
           o->dir, tot, o->npages > 1 ? "s" : "", pages, mm, o->update ? "writes" : "reads",
           o->warmup, o->repeat, o->repeat > 1 ? "s (medians)" : "", o->cold ? ", cold cache" : "");
    if (o->npages > 1)
        printf("The files do not depend on the page size: they are timed once per "
               "size, and each page size's ratio divides that figure.\n");
}

static void report_text(const struct sweep_opts *o, const struct sweep_row *rows,
                        const struct sweep_calc *k)
{
    int many = o->npages > 1;
    text_header(o);
    printf("%8s %9s %*s%13s %13s %13s %11s\n", "size", "count", many ? 6 : 0,
           many ? "page " : "", "sql us/blob", "blob us/blob", "files us/blob", "files/blob");
    for (int i = 0; i < k->n; i++) {
        char s[32];
        sweep_fmt_size(s, sizeof s, (double)rows[i].size);
        for (int p = 0; p < o->npages; p++) {
            char page[16] = "";
            if (many)
                snprintf(page, sizeof page, "%5" PRId64 " ", o->pages[p]);
            printf("%8s %9" PRId64 " %s%13.2f %13.2f %13.2f %11.3f\n", s, rows[i].count, page,
                   rows[i].db[p][0].us_per_blob, rows[i].db[p][1].us_per_blob,
                   rows[i].files.us_per_blob, k->ratio[p * k->n + i]);
        }
    }
    if (o->cold) {
        int eff = 1;
        for (int i = 0; i < k->n; i++) {
            eff &= rows[i].files.cold_effective;
            for (int p = 0; p < o->npages; p++)
                eff &= rows[i].db[p][0].cold_effective & rows[i].db[p][1].cold_effective;
        }
        if (!eff)
            printf("Note: page-cache eviction did not fully take hold on this "
                   "filesystem; these runs were not fully cold\n");
    }
    for (int p = 0; p < o->npages; p++)
        printf("%s\n", k->line[p]);
    printf("Command: %s\n", cli_cmdline());
}

void sweep_report(const struct sweep_opts *o, const struct sweep_row *rows, int done)
{
    struct sweep_calc *k = calloc(1, sizeof *k);
    if (!k) {
        cli_warn("sweep", "out of memory for the report");
        return;
    }
    k->n = done;
    double files[SWEEP_MAX_SIZES], db[SWEEP_MAX_PAGES * SWEEP_MAX_SIZES];
    for (int i = 0; i < done; i++) {
        k->sizes[i] = (double)rows[i].size;
        files[i] = rows[i].files.us_per_blob;
        for (int p = 0; p < o->npages; p++)
            db[p * done + i] = rows[i].db[p][1].us_per_blob;
    }
    sweep_crossover_pages(k->sizes, files, db, done, o->npages, k->ratio, k->cross);
    for (int p = 0; p < o->npages; p++) {
        struct sweep_rounds fr[SWEEP_MAX_SIZES], dr[SWEEP_MAX_SIZES];
        for (int i = 0; i < done; i++) {
            fr[i] = (struct sweep_rounds){rows[i].files.us_runs, rows[i].files.nruns};
            dr[i] = (struct sweep_rounds){rows[i].db[p][1].us_runs, rows[i].db[p][1].nruns};
        }
        k->ci_ok[p] = sweep_crossover_boot(k->sizes, done, fr, dr, SWEEP_BOOT_RESAMPLES,
                                           SWEEP_BOOT_SEED, &k->ci[p]) == 0;
        sweep_crossover_line_ci(&k->cross[p], k->ci_ok[p] ? &k->ci[p] : NULL, k->sizes, done,
                                o->npages > 1 ? (long)o->pages[p] : 0, k->line[p], LINE_CAP);
    }
    if (o->json)
        report_json(o, rows, k);
    else
        report_text(o, rows, k);
    fflush(stdout);
    free(k);
}
