/* sweep: at which blob size do separate files start to beat the database?
 *
 * For each size the same experiment as the article, at the same total bytes:
 * a fresh database (init), its flat export, then random reads of every key
 * from the database through SQL and through the blob API, and from the
 * files -- the same keys in the same order for all three. The crossover is
 * interpolated where files/blob-api crosses 1 (sweep_cross.c).
 *
 * Ctrl-C (or SIGTERM/SIGHUP) in the middle of a size would leave up to
 * twice --total bytes behind: the size in progress is registered with
 * cleanup, whose watcher removes it (sweep_files.c says what may be
 * removed) and exits 128+signal. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/cleanup.h"
#include "base/cli.h"
#include "base/units.h"
#include "commands/commands.h"
#include "commands/export.h"
#include "commands/init.h"
#include "commands/run.h"
#include "commands/sweep.h"
#include "commands/sweep_int.h"
#include "measure/coldcache.h"
#include "measure/report.h"

const char help_sweep[] =
    "Usage: kvtest sweep DIR [options]\n"
    "\n"
    "Find the blob size where separate files start to beat the database.\n"
    "For each size: create a database of about --total bytes in DIR\n"
    "(count = total/size blobs, at least 10), export it flat, then read every\n"
    "key in random order from the database with SQL, with the blob API, and\n"
    "from the files (the same keys in the same order for all three). Prints a\n"
    "table of microseconds per blob and the ratio files/blob-api (< 1: files\n"
    "faster), then a line \"Crossover: SIZE\" interpolated (linear in\n"
    "log size) where that ratio crosses 1, or \"Crossover: none in range\".\n"
    "\n"
    "Options:\n"
    "  --sizes LIST     blob sizes, comma-separated (default\n"
    "                   1k,4k,10k,30k,100k,300k,1M; k/M = x1000, KiB = x1024)\n"
    "  --total N        bytes of blobs per size (default 200M)\n"
    "  --pagesize N     database page size (default 4096)\n"
    "  --repeat N       measured runs per layout; medians are shown (default 1)\n"
    "  --warmup N       discarded runs before them (default 1; 0 with --cold\n"
    "                   is fine, each measured run is cold anyway)\n"
    "  --cold           evict the page cache before each measured run\n"
    "                   (see kvtest help run)\n"
    "  --update         time overwrites instead of reads\n"
    "  --seed S         content and order seed (default 1)\n"
    "  --keep           keep each size's database and export\n"
    "  --force          sweep inside a DIR that is not empty\n"
    "  --json           one JSON object with every figure\n"
    "\n"
    "DIR is created if missing. sweep refuses a non-empty DIR unless --force,\n"
    "never overwrites an existing file, and deletes only what it created:\n"
    "DIR/sweep-SIZE.db (with its -wal/-shm/-journal) and DIR/sweep-SIZE/.\n"
    "It needs about 2.5 x --total of free space (more with --keep).\n";

#define MAX_SIZES 32
#define MIN_COUNT 10

struct sweep_row {
    int64_t size, count;
    struct run_result res[3];   /* sql, blob api, files */
    int have;
};

static const char *const api_names[3] = {"sql", "blob", "files"};

static int parse_sizes(const char *s, int64_t *out, int *n)
{
    *n = 0;
    const char *p = s;
    while (*p) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        char item[64];
        if (len == 0 || len >= sizeof item)
            return cli_usage("sweep", "invalid --sizes '%s' (expected a list such as 1k,10k,100k)", s);
        memcpy(item, p, len);
        item[len] = '\0';
        int64_t v;
        if (units_parse_int(item, &v) != 0 || v < 1)
            return cli_usage("sweep", "invalid size '%s' in --sizes", item);
        if (v > 1000000000)
            return cli_usage("sweep", "size '%s' in --sizes is above 1G", item);
        if (*n >= MAX_SIZES)
            return cli_usage("sweep", "--sizes lists more than %d sizes", MAX_SIZES);
        out[(*n)++] = v;
        if (!comma)
            break;
        p = comma + 1;
        if (!*p)
            return cli_usage("sweep", "invalid --sizes '%s' (trailing comma)", s);
    }
    if (*n == 0)
        return cli_usage("sweep", "--sizes is empty");
    /* Sorted ascending, duplicates refused: the crossover needs an order. */
    for (int i = 1; i < *n; i++)
        for (int j = i; j > 0 && out[j] < out[j - 1]; j--) {
            int64_t t = out[j];
            out[j] = out[j - 1];
            out[j - 1] = t;
        }
    for (int i = 1; i < *n; i++)
        if (out[i] == out[i - 1])
            return cli_usage("sweep", "size %" PRId64 " appears twice in --sizes", out[i]);
    return 0;
}

static int progress_on(void)
{
    return isatty(STDERR_FILENO);
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
    if (r->latency)
        cJSON_AddItemToObject(o, "latency", report_hist_json(r->latency));
    return o;
}

struct sweep_opts {
    const char *dir;
    int64_t sizes[MAX_SIZES];
    int nsizes;
    int64_t total, pagesize, repeat, warmup, seed;
    int cold, update, keep, force, json;
};

static void progress(const char *fmt, const char *what, int64_t size)
{
    if (!progress_on())
        return;
    char s[32];
    sweep_fmt_size(s, sizeof s, (double)size);
    fprintf(stderr, "\rsweep: size %s: ", s);
    fprintf(stderr, fmt, what);
    fprintf(stderr, "\033[K");
    fflush(stderr);
}

/* One size: create, export, measure. Returns 0/1/2; cleanup by caller. */
static int sweep_one(const struct sweep_opts *o, const struct sweep_names *nm, struct sweep_row *row)
{
    struct init_opts io;
    init_defaults(&io);
    io.path = nm->db;
    io.count = row->count;
    io.size = row->size;
    io.variance = 0;
    io.pagesize = o->pagesize;
    io.seed = (uint64_t)o->seed;
    io.quiet = 1;
    progress("%s", "creating the database", row->size);
    int rc = init_create(&io, "sweep");
    if (rc)
        return rc;

    struct export_opts eo;
    export_defaults(&eo);
    eo.db = nm->db;
    eo.dir = nm->exp;
    eo.quiet = 1;
    progress("%s", "exporting", row->size);
    rc = export_write(&eo, "sweep");
    if (rc)
        return rc;

    for (int a = 0; a < 3; a++) {
        struct run_opts ro;
        run_defaults(&ro);
        ro.path = a == 2 ? nm->exp : nm->db;
        ro.count = row->count;
        ro.max_id = row->count;
        ro.order = ORDER_RANDOM;
        ro.seed = (uint64_t)o->seed;
        ro.blob_api = a == 1;
        ro.update = o->update;
        ro.repeat = o->repeat;
        ro.warmup = o->warmup;
        ro.cold = o->cold;
        ro.quiet = 1;
        progress("timing %s", api_names[a], row->size);
        rc = run_measure(&ro, &row->res[a], "sweep");
        if (rc)
            return rc;
        row->have = a + 1;
    }
    return 0;
}

static int sweep_parse(int argc, char **argv, struct sweep_opts *o)
{
    memset(o, 0, sizeof *o);
    const char *sizes = "1k,4k,10k,30k,100k,300k,1M";
    o->total = 200000000;
    o->pagesize = 4096;
    o->repeat = 1;
    o->warmup = -1;
    o->seed = 1;
    const struct cli_opt opts[] = {
        {"sizes", CLI_STR, &sizes, 0, 0, 0, 0},
        {"total", CLI_INT, &o->total, 1, INT64_C(1) << 40, 0, 0},
        {"pagesize", CLI_INT, &o->pagesize, 512, 65536, 0, 0},
        {"repeat", CLI_INT, &o->repeat, 1, 1000, 0, 0},
        {"warmup", CLI_INT, &o->warmup, 0, 1000, 0, 0},
        {"seed", CLI_INT, &o->seed, 0, INT64_MAX, 0, 0},
        {"cold", CLI_FLAG, &o->cold, 0, 0, 0, 0},
        {"update", CLI_FLAG, &o->update, 0, 0, 0, 0},
        {"keep", CLI_FLAG, &o->keep, 0, 0, 0, 0},
        {"force", CLI_FLAG, &o->force, 0, 0, 0, 0},
        {"json", CLI_FLAG, &o->json, 0, 0, 0, 0},
    };
    const char *pos[1];
    int npos = 0;
    int rc = cli_parse("sweep", argc, argv, opts, (int)(sizeof opts / sizeof opts[0]),
                       pos, 1, &npos);
    if (rc)
        return rc;
    if (npos < 1)
        return cli_usage("sweep", "expected DIR (try: kvtest help sweep)");
    o->dir = pos[0];
    if (o->cold && coldcache_missing())   /* before building anything */
        return cli_usage("sweep", "--cold is not available here: %s", coldcache_missing());
    if (o->pagesize & (o->pagesize - 1))
        return cli_usage("sweep", "--pagesize must be a power of two between 512 and 65536, got %" PRId64,
                         o->pagesize);
    rc = parse_sizes(sizes, o->sizes, &o->nsizes);
    if (rc)
        return rc;
    if (o->warmup < 0)
        o->warmup = 1;
    return 0;
}

/* Every name we will create must be free before we start anything. */
static int check_names(const struct sweep_opts *o)
{
    struct sweep_names nm;
    if (access(o->dir, W_OK) != 0)
        return cli_fail("sweep", "%s: %s", o->dir, strerror(errno));
    for (int i = 0; i < o->nsizes; i++) {
        char taken[PATH_MAX + 16];
        if (sweep_names_make(&nm, o->dir, o->sizes[i]) != 0)
            return cli_usage("sweep", "%s: path too long", o->dir);
        if (sweep_names_taken(&nm, taken, sizeof taken))
            return cli_fail("sweep", "%s already exists; sweep never overwrites "
                            "(remove it or choose another DIR)", taken);
    }
    return 0;
}

/* Measure each size in turn; *done gets the number measured completely.
 * Returns the status of the first size that failed, or 0. */
static int run_sizes(const struct sweep_opts *o, struct sweep_row *rows, int made_dir,
                     int *done)
{
    struct sweep_guard g;
    memset(&g, 0, sizeof g);
    g.dir = o->dir;
    g.made_dir = made_dir;
    cleanup_begin("sweep");
    int hg = cleanup_add_fn(sweep_guard_run, &g);
    int rc = 0;
    *done = 0;
    for (int i = 0; i < o->nsizes && rc == 0; i++) {
        struct sweep_row *row = &rows[i];
        row->size = o->sizes[i];
        row->count = o->total / row->size;
        if (row->count < MIN_COUNT)
            row->count = MIN_COUNT;
        cleanup_lock();
        sweep_names_make(&g.nm, o->dir, row->size);
        g.count = row->count;
        g.active = 1;
        cleanup_unlock();
        /* Database + export, each a little over the content, plus slack
         * for the WAL or journal of --update. */
        int64_t need = (int64_t)(2.5 * (double)row->count * (double)row->size) + (1 << 20);
        rc = sweep_check_space(o->dir, need);
        if (rc == 0)
            rc = sweep_one(o, &g.nm, row);
        if (progress_on())
            fprintf(stderr, "\r\033[K");
        cleanup_lock();
        if (!o->keep || rc)   /* a failed size is incomplete: never kept */
            sweep_names_remove(&g.nm, row->count, 0);
        g.active = 0;
        cleanup_unlock();
        if (rc == 0)
            (*done)++;
    }
    cleanup_drop(hg);
    cleanup_end();
    return rc;
}

static const char *cross_kind(enum sweep_cross_kind k)
{
    return k == SWEEP_CROSS ? "cross" : k == SWEEP_DB_WINS ? "db_wins"
           : k == SWEEP_FILES_WIN ? "files_win" : "unknown";
}

static void report_json(const struct sweep_opts *o, const struct sweep_row *rows, int done,
                        const double *ratios, const struct sweep_crossing *cross,
                        const char *line)
{
    cJSON *j = report_json_new("sweep", o->dir);
    cJSON *op = cJSON_AddObjectToObject(j, "options");
    cJSON *sz = cJSON_AddArrayToObject(op, "sizes");
    for (int i = 0; i < o->nsizes; i++)
        cJSON_AddItemToArray(sz, cJSON_CreateNumber((double)o->sizes[i]));
    cJSON_AddNumberToObject(op, "total", (double)o->total);
    cJSON_AddNumberToObject(op, "pagesize", (double)o->pagesize);
    cJSON_AddNumberToObject(op, "repeat", (double)o->repeat);
    cJSON_AddNumberToObject(op, "warmup", (double)o->warmup);
    cJSON_AddNumberToObject(op, "seed", (double)o->seed);
    cJSON_AddBoolToObject(op, "cold", o->cold);
    cJSON_AddBoolToObject(op, "update", o->update);
    cJSON_AddBoolToObject(op, "keep", o->keep);
    cJSON_AddStringToObject(op, "order", "random");
    cJSON *arr = cJSON_AddArrayToObject(j, "rows");
    for (int i = 0; i < done; i++) {
        cJSON *r = cJSON_CreateObject();
        cJSON_AddNumberToObject(r, "size", (double)rows[i].size);
        cJSON_AddNumberToObject(r, "count", (double)rows[i].count);
        for (int a = 0; a < 3; a++)
            cJSON_AddItemToObject(r, api_names[a], result_json(&rows[i].res[a]));
        cJSON_AddNumberToObject(r, "ratio_files_blob", ratios[i]);
        double sq = rows[i].res[0].us_per_blob;
        cJSON_AddNumberToObject(r, "ratio_files_sql",
                                sq > 0 ? rows[i].res[2].us_per_blob / sq : 0.0);
        cJSON_AddItemToArray(arr, r);
    }
    cJSON *c = cJSON_AddObjectToObject(j, "crossover");
    cJSON_AddStringToObject(c, "kind", cross_kind(cross->kind));
    if (cross->kind == SWEEP_CROSS)
        cJSON_AddNumberToObject(c, "size", cross->size);
    else
        cJSON_AddNullToObject(c, "size");
    cJSON_AddNumberToObject(c, "crossings", cross->crossings);
    cJSON_AddStringToObject(c, "line", line);
    cJSON_AddBoolToObject(j, "complete", done == o->nsizes);
    report_json_print(j);
}

static void report_text(const struct sweep_opts *o, const struct sweep_row *rows, int done,
                        const double *ratios, const char *line)
{
    char tot[32];
    sweep_fmt_size(tot, sizeof tot, (double)o->total);
    printf("Sweep of %s: %s bytes per size, page size %" PRId64 ", random %s of "
           "every key, %" PRId64 " warm-up + %" PRId64 " measured run%s%s\n",
           o->dir, tot, o->pagesize, o->update ? "writes" : "reads", o->warmup,
           o->repeat, o->repeat > 1 ? "s (medians)" : "", o->cold ? ", cold cache" : "");
    printf("%8s %9s %13s %13s %13s %11s\n", "size", "count", "sql us/blob",
           "blob us/blob", "files us/blob", "files/blob");
    for (int i = 0; i < done; i++) {
        char s[32];
        sweep_fmt_size(s, sizeof s, (double)rows[i].size);
        printf("%8s %9" PRId64 " %13.2f %13.2f %13.2f %11.3f\n", s, rows[i].count,
               rows[i].res[0].us_per_blob, rows[i].res[1].us_per_blob,
               rows[i].res[2].us_per_blob, ratios[i]);
    }
    if (o->cold) {
        int eff = 1;
        for (int i = 0; i < done; i++)
            for (int a = 0; a < 3; a++)
                eff &= rows[i].res[a].cold_effective;
        if (!eff)
            printf("Note: page-cache eviction did not fully take hold on this "
                   "filesystem; these runs were not fully cold\n");
    }
    printf("%s\n", line);
    printf("Command: %s\n", cli_cmdline());
}

/* The table (or JSON) of the sizes measured, and the crossover. */
static void sweep_report(const struct sweep_opts *o, const struct sweep_row *rows, int done)
{
    double xs[MAX_SIZES], ratios[MAX_SIZES];
    for (int i = 0; i < done; i++) {
        xs[i] = (double)rows[i].size;
        double db = rows[i].res[1].us_per_blob;
        ratios[i] = db > 0 ? rows[i].res[2].us_per_blob / db : NAN;
    }
    struct sweep_crossing cross;
    sweep_crossover(xs, ratios, done, &cross);
    char line[512];
    sweep_crossover_line(&cross, xs, done, line, sizeof line);
    if (o->json)
        report_json(o, rows, done, ratios, &cross, line);
    else
        report_text(o, rows, done, ratios, line);
    fflush(stdout);
}

int cmd_sweep(int argc, char **argv)
{
    struct sweep_opts o;
    int rc = sweep_parse(argc, argv, &o);
    if (rc)
        return rc;
    int made_dir = 0;
    rc = sweep_dir_prepare(o.dir, o.force, &made_dir);
    if (rc)
        return rc;
    rc = check_names(&o);
    if (rc == 0) {
        struct sweep_row rows[MAX_SIZES];
        memset(rows, 0, sizeof rows);
        int done = 0;
        rc = run_sizes(&o, rows, made_dir, &done);
        if (done > 0)
            sweep_report(&o, rows, done);
        for (int i = 0; i < o.nsizes; i++)
            for (int a = 0; a < 3; a++)
                run_result_free(&rows[i].res[a]);
    }
    if (made_dir && !o.keep && rmdir(o.dir) != 0 && errno != ENOTEMPTY)
        cli_warn("sweep", "could not remove %s: %s", o.dir, strerror(errno));
    return rc;
}
