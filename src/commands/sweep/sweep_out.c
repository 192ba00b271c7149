/* sweep_out: the sweep's table or JSON object, and a crossover per store
 * and page size. With one page size and the default stores the output is
 * the one sweep printed before --page-sizes existed (scripts read its
 * "Crossover:" line and its JSON "rows" and "crossover"); several page
 * sizes add a page column, one "Crossover (page P):" line each, and a
 * "pages" array in the JSON. Other --stores add two columns per store, a
 * "Crossover (STORE):" line each, the store's figures in every JSON row
 * and a "crossovers" object keyed by store; the default stores add
 * nothing, so that output stays what it was byte for byte. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cli.h"
#include "base/cli_json.h"
#include "commands/sweep/sweep.h"
#include "commands/sweep/sweep_int.h"
#include "measure/report.h"

#define LINE_CAP 512

/* What the report derives from the rows: per store (by enum sweep_store;
 * only those of --stores are filled) and page size p, the ratios store /
 * blob API (ratio[s][p * n + i]) and the crossover with its line. */
struct sweep_calc {
    int n;
    double sizes[SWEEP_MAX_SIZES];
    double ratio[SWEEP_NSTORES][SWEEP_MAX_PAGES * SWEEP_MAX_SIZES];
    struct sweep_crossing cross[SWEEP_NSTORES][SWEEP_MAX_PAGES];
    struct sweep_cross_ci ci[SWEEP_NSTORES][SWEEP_MAX_PAGES];
    int ci_ok[SWEEP_NSTORES][SWEEP_MAX_PAGES];   /* the bootstrap ran (0: bad input or memory) */
    char line[SWEEP_NSTORES][SWEEP_MAX_PAGES][LINE_CAP];
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

/* Row i of page size p: the database's figures, then per store its
 * figures and its ratios over the blob API and over SQL ("files",
 * "ratio_files_blob", "ratio_files_sql"; "lmdb", "ratio_lmdb_blob", ...). */
static cJSON *row_json(const struct sweep_opts *o, const struct sweep_row *row, int p, int i,
                       const struct sweep_calc *k)
{
    cJSON *r = cJSON_CreateObject();
    cJSON_AddNumberToObject(r, "size", (double)row->size);
    cJSON_AddNumberToObject(r, "count", (double)row->count);
    cJSON_AddItemToObject(r, "sql", result_json(&row->db[p][0]));
    cJSON_AddItemToObject(r, "blob", result_json(&row->db[p][1]));
    double sq = row->db[p][0].us_per_blob;
    for (int j = 0; j < o->nstores; j++) {
        enum sweep_store s = o->stores[j];
        const char *name = sweep_store_name(s);
        char key[48];
        cJSON_AddItemToObject(r, name, result_json(&row->st[s]));
        snprintf(key, sizeof key, "ratio_%s_blob", name);
        cJSON_AddNumberToObject(r, key, k->ratio[s][p * k->n + i]);
        snprintf(key, sizeof key, "ratio_%s_sql", name);
        cJSON_AddNumberToObject(r, key, sq > 0 ? row->st[s].us_per_blob / sq : 0.0);
    }
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

/* --- options: the table's rows (sweep_opts.c), with these exceptions --- */

static void add_sizes(cJSON *j, const char *key, const int64_t *v, int n)
{
    cJSON *a = cJSON_AddArrayToObject(j, key);
    for (int i = 0; i < n; i++)
        cJSON_AddItemToArray(a, cJSON_CreateNumber((double)v[i]));
}

/* Lists given as text, stated as the numbers they parsed to. */
static void json_sizes(cJSON *j, const char *key, const void *obj, const void *ctx)
{
    (void)ctx;
    const struct sweep_opts *o = obj;
    add_sizes(j, key, o->sizes, o->nsizes);
}

static void json_page_sizes(cJSON *j, const char *key, const void *obj, const void *ctx)
{
    (void)ctx;
    const struct sweep_opts *o = obj;
    add_sizes(j, key, o->pages, o->npages);
}

/* Derived: 4096 when not given, the first of --page-sizes when they are. */
static void json_pagesize(cJSON *j, const char *key, const void *obj, const void *ctx)
{
    (void)ctx;
    cJSON_AddNumberToObject(j, key, (double)((const struct sweep_opts *)obj)->pages[0]);
}

/* The rows named here with no writer are left out by cli_json_options:
 * --force, --json and --csv (how to run and print, not what was measured), --keys-out (a test hook), and
 * --stores, which options_json writes last, and only when not the
 * default, so that the default output stays what it was before --stores
 * existed. */
static const struct cli_json_rule json_rules[] = {
    {"sizes", json_sizes},
    {"pagesize", json_pagesize},
    {"page-sizes", json_page_sizes},
    {"stores", NULL},
    {"force", NULL},
    {"json", NULL},
    {"csv", NULL},
    {"keys-out", NULL},
};

static void options_json(cJSON *j, const struct sweep_opts *o)
{
    cJSON *op = cJSON_AddObjectToObject(j, "options");
    struct sweep_args scratch;
    struct cli_opt rows[SWEEP_MAX_OPTS];
    int n = sweep_opts_table(&scratch, rows);
    cli_json_options(op, rows, n, &scratch.o, sizeof scratch.o, o, json_rules,
                     CLI_COUNT(json_rules), NULL);
    /* Not an option: the sweep always reads in a random order. */
    cJSON_AddStringToObject(op, "order", "random");
    if (!sweep_default_stores(o)) {
        cJSON *st = cJSON_AddArrayToObject(op, "stores");
        cJSON_AddItemToArray(st, cJSON_CreateString("db"));
        for (int i = 0; i < o->nstores; i++)
            cJSON_AddItemToArray(st, cJSON_CreateString(sweep_store_name(o->stores[i])));
    }
}

/* Page size p's crossovers: "crossover" is the files' (when timed), as
 * before --stores; "crossovers" has every store's, keyed by its name
 * (only with other stores than the default). */
static void crossovers_json(cJSON *j, const struct sweep_opts *o, const struct sweep_calc *k,
                            int p)
{
    const int f = SWEEP_STORE_FILES;
    if (sweep_has_store(o, SWEEP_STORE_FILES))
        cJSON_AddItemToObject(j, "crossover", cross_json(&k->cross[f][p], k->line[f][p],
                                                         &k->ci[f][p], k->ci_ok[f][p]));
    if (sweep_default_stores(o))
        return;
    cJSON *all = cJSON_AddObjectToObject(j, "crossovers");
    for (int i = 0; i < o->nstores; i++) {
        enum sweep_store s = o->stores[i];
        cJSON_AddItemToObject(all, sweep_store_name(s),
                              cross_json(&k->cross[s][p], k->line[s][p], &k->ci[s][p],
                                         k->ci_ok[s][p]));
    }
}

/* "rows" and the crossovers are those of the first (smallest) page size,
 * as before; "pages" has every page size. */
static void report_json(const struct sweep_opts *o, const struct sweep_row *rows,
                        const struct sweep_calc *k)
{
    cJSON *j = report_json_new("sweep", o->dir);
    options_json(j, o);
    cJSON *arr = cJSON_AddArrayToObject(j, "rows");
    for (int i = 0; i < k->n; i++)
        cJSON_AddItemToArray(arr, row_json(o, &rows[i], 0, i, k));
    crossovers_json(j, o, k, 0);
    if (sweep_has_store(o, SWEEP_STORE_FILES))
        cJSON_AddBoolToObject(j, "files_measured_once", 1);
    if (!sweep_default_stores(o))
        cJSON_AddBoolToObject(j, "stores_measured_once", 1);
    cJSON *pages = cJSON_AddArrayToObject(j, "pages");
    for (int p = 0; p < o->npages; p++) {
        cJSON *pj = cJSON_CreateObject();
        cJSON_AddNumberToObject(pj, "pagesize", (double)o->pages[p]);
        cJSON *pr = cJSON_AddArrayToObject(pj, "rows");
        for (int i = 0; i < k->n; i++)
            cJSON_AddItemToArray(pr, row_json(o, &rows[i], p, i, k));
        crossovers_json(pj, o, k, p);
        cJSON_AddItemToArray(pages, pj);
    }
    cJSON_AddBoolToObject(j, "complete", k->n == o->nsizes);
    report_json_print(j);
}

/* The stores of --stores as the text names them: "files, lmdb". */
static void store_list(const struct sweep_opts *o, char *buf, size_t cap)
{
    size_t len = 0;
    buf[0] = '\0';
    for (int i = 0; i < o->nstores && len < cap; i++)
        len += (size_t)snprintf(buf + len, cap - len, "%s%s", i ? ", " : "",
                                sweep_store_name(o->stores[i]));
}

static void text_header(const struct sweep_opts *o)
{
    char tot[32], pages[160] = "", mm[48] = "", stores[64] = "", names[48];
    sweep_fmt_size(tot, sizeof tot, (double)o->total);
    size_t len = 0;
    for (int p = 0; p < o->npages && len < sizeof pages; p++)
        len += (size_t)snprintf(pages + len, sizeof pages - len, "%s%" PRId64,
                                p ? ", " : "", o->pages[p]);
    if (o->mmap)
        snprintf(mm, sizeof mm, ", mmap %" PRId64, o->mmap);
    store_list(o, names, sizeof names);
    if (!sweep_default_stores(o))
        snprintf(stores, sizeof stores, ", stores db, %s", names);
    printf("Sweep of %s: %s bytes per size, page size%s %s%s%s, random %s of "
           "every key, %" PRId64 " warm-up + %" PRId64 " measured run%s%s\n",
           o->dir, tot, o->npages > 1 ? "s" : "", pages, mm, stores,
           o->update ? "writes" : "reads", o->warmup, o->repeat,
           o->repeat > 1 ? "s (medians)" : "", o->cold ? ", cold cache" : "");
    if (o->npages > 1 && sweep_default_stores(o))
        printf("The files do not depend on the page size: they are timed once per "
               "size, and each page size's ratio divides that figure.\n");
    else if (o->npages > 1 && o->nstores == 1)
        printf("%s does not depend on the page size: it is timed once per size, and "
               "each page size's ratio divides that figure.\n", names);
    else if (o->npages > 1)
        printf("The stores %s do not depend on the page size: each is timed once per "
               "size, and each page size's ratio divides its own figure.\n", names);
}

/* Column widths: a store's "NAME us/blob" and "NAME/blob" headers, at
 * least as wide as the files' columns always were (13 and 11). */
static int col_width(const char *name, const char *suffix, int least)
{
    int w = (int)(strlen(name) + strlen(suffix));
    return w > least ? w : least;
}

static void table_head(const struct sweep_opts *o)
{
    int many = o->npages > 1;
    printf("%8s %9s %*s%13s %13s", "size", "count", many ? 6 : 0, many ? "page " : "",
           "sql us/blob", "blob us/blob");
    for (int j = 0; j < o->nstores; j++) {
        const char *name = sweep_store_name(o->stores[j]);
        char us[48], ratio[48];
        snprintf(us, sizeof us, "%s us/blob", name);
        snprintf(ratio, sizeof ratio, "%s/blob", name);
        printf(" %*s %*s", col_width(name, " us/blob", 13), us,
               col_width(name, "/blob", 11), ratio);
    }
    printf("\n");
}

static void report_text(const struct sweep_opts *o, const struct sweep_row *rows,
                        const struct sweep_calc *k)
{
    int many = o->npages > 1;
    text_header(o);
    table_head(o);
    for (int i = 0; i < k->n; i++) {
        char s[32];
        sweep_fmt_size(s, sizeof s, (double)rows[i].size);
        for (int p = 0; p < o->npages; p++) {
            char page[16] = "";
            if (many)
                snprintf(page, sizeof page, "%5" PRId64 " ", o->pages[p]);
            printf("%8s %9" PRId64 " %s%13.2f %13.2f", s, rows[i].count, page,
                   rows[i].db[p][0].us_per_blob, rows[i].db[p][1].us_per_blob);
            for (int j = 0; j < o->nstores; j++) {
                enum sweep_store st = o->stores[j];
                const char *name = sweep_store_name(st);
                printf(" %*.2f %*.3f", col_width(name, " us/blob", 13),
                       rows[i].st[st].us_per_blob, col_width(name, "/blob", 11),
                       k->ratio[st][p * k->n + i]);
            }
            printf("\n");
        }
    }
    if (o->cold) {
        int eff = 1;
        for (int i = 0; i < k->n; i++) {
            for (int j = 0; j < o->nstores; j++)
                eff &= rows[i].st[o->stores[j]].cold_effective;
            for (int p = 0; p < o->npages; p++)
                eff &= rows[i].db[p][0].cold_effective & rows[i].db[p][1].cold_effective;
        }
        if (!eff)
            printf("Note: page-cache eviction did not fully take hold on this "
                   "filesystem; these runs were not fully cold\n");
    }
    for (int j = 0; j < o->nstores; j++)
        for (int p = 0; p < o->npages; p++)
            printf("%s\n", k->line[o->stores[j]][p]);
    printf("Command: %s\n", cli_cmdline());
}

/* Store s over the blob API at every done size and page size: ratios,
 * crossovers, bootstrap intervals and lines into k. */
static void calc_store(const struct sweep_opts *o, const struct sweep_row *rows, int done,
                       enum sweep_store s, struct sweep_calc *k)
{
    double st[SWEEP_MAX_SIZES], db[SWEEP_MAX_PAGES * SWEEP_MAX_SIZES];
    for (int i = 0; i < done; i++) {
        st[i] = rows[i].st[s].us_per_blob;
        for (int p = 0; p < o->npages; p++)
            db[p * done + i] = rows[i].db[p][1].us_per_blob;
    }
    sweep_crossover_pages(k->sizes, st, db, done, o->npages, k->ratio[s], k->cross[s]);
    for (int p = 0; p < o->npages; p++) {
        struct sweep_rounds fr[SWEEP_MAX_SIZES], dr[SWEEP_MAX_SIZES];
        for (int i = 0; i < done; i++) {
            fr[i] = (struct sweep_rounds){rows[i].st[s].us_runs, rows[i].st[s].nruns};
            dr[i] = (struct sweep_rounds){rows[i].db[p][1].us_runs, rows[i].db[p][1].nruns};
        }
        /* The same resamples (seed) for every store: their intervals
         * differ by their rounds alone. */
        k->ci_ok[s][p] = sweep_crossover_boot(k->sizes, done, fr, dr, SWEEP_BOOT_RESAMPLES,
                                              SWEEP_BOOT_SEED, &k->ci[s][p]) == 0;
        sweep_crossover_line_store_ci(&k->cross[s][p], k->ci_ok[s][p] ? &k->ci[s][p] : NULL,
                                      sweep_store_name(s), k->sizes, done,
                                      o->npages > 1 ? (long)o->pages[p] : 0, k->line[s][p],
                                      LINE_CAP);
    }
}

void sweep_report(const struct sweep_opts *o, const struct sweep_row *rows, int done)
{
    struct sweep_calc *k = calloc(1, sizeof *k);
    if (!k) {
        cli_warn("sweep", "out of memory for the report");
        return;
    }
    k->n = done;
    for (int i = 0; i < done; i++)
        k->sizes[i] = (double)rows[i].size;
    for (int j = 0; j < o->nstores; j++)
        calc_store(o, rows, done, o->stores[j], k);
    if (o->out.json)
        report_json(o, rows, k);
    else
        report_text(o, rows, k);
    fflush(stdout);
    free(k);
}
