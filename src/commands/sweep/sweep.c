/* sweep: at which blob size do separate files start to beat the database?
 *
 * For each size the same experiment as the article, at the same total bytes:
 * a fresh database (init), its flat export, then random reads of every key
 * from the database through SQL and through the blob API, and from the
 * files -- the same keys in the same order for all three. The crossover is
 * interpolated where files/blob-api crosses 1 (sweep_cross.c). With several
 * page sizes, the database side is repeated per page size over the same
 * content; the files are read once per size (sweep_build says why).
 * --stores puts LMDB and RocksDB beside the files (or instead of them):
 * exported from the same database, timed in the same rounds with the same
 * keys, each with its own ratio over the blob API and its own crossover.
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
#include "commands/export/export.h"
#include "commands/init/init.h"
#include "commands/run/run.h"
#include "commands/sweep/sweep.h"
#include "commands/sweep/sweep_int.h"
#include "measure/coldcache.h"
#include "measure/report.h"
#include "stores/kv/store_kv.h"

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
    "With --repeat 2 or more the line gives the crossover's 95% confidence\n"
    "interval: a percentile bootstrap (4000 resamples, fixed seed) that draws\n"
    "each size's files and blob-API rounds with replacement and recomputes the\n"
    "crossover; an end where the resamples do not cross reads \"above SIZE\"\n"
    "or \"below SIZE\" (not within the sizes measured).\n"
    "\n"
    "With several --page-sizes, each size gets one database per page size\n"
    "(the same keys and bytes: the same seed), timed with SQL and the blob\n"
    "API; the files do not depend on the page size and are timed once per\n"
    "size. The table gets a page column and the crossover one line per page\n"
    "size: \"Crossover (page 16384): SIZE\" or \"... none in range\".\n"
    "\n"
    "--stores puts other stores beside the database: each size's database\n"
    "is also exported into LMDB (DIR/sweep-SIZE.lmdb) and/or RocksDB\n"
    "(DIR/sweep-SIZE.rocksdb), as \"kvtest export DBFILE lmdb:DIR\" does, and\n"
    "each store is timed in the same rounds with the same keys in the same\n"
    "order. The database is the reference: the table gets each store's\n"
    "microseconds per blob and its ratio STORE/blob-api (< 1: the store\n"
    "faster), and the crossover a line per store, \"Crossover (lmdb): SIZE\".\n"
    "Like the files, a store does not depend on the page size: it is made\n"
    "from the first page size's database and timed once per size; with\n"
    "several page sizes each store gets a line per page size, \"Crossover\n"
    "(lmdb, page 16384): SIZE\" (the files keep \"Crossover (page 16384):\").\n"
    "Without files in the list, no flat export is made.\n"
    "\n"
    "Options:\n"
    "  --sizes LIST     blob sizes, comma-separated (default\n"
    "                   1k,4k,10k,30k,100k,300k,1M; k/M = x1000, KiB = x1024)\n"
    "  --total N        bytes of blobs per size (default 200M)\n"
    "  --page-sizes LIST  database page sizes, comma-separated, each a power\n"
    "                   of two from 512 to 64k (here k = 1024: 4k,16k,64k);\n"
    "                   default 4k\n"
    "  --pagesize N     one database page size (default 4096); not with\n"
    "                   --page-sizes\n"
    "  --stores LIST    what to time, comma-separated, from db, files, lmdb\n"
    "                   and rocksdb, in any order (default db,files); db must\n"
    "                   be listed (every ratio divides its blob-API time), with\n"
    "                   at least one other\n"
    "  --mmap N         PRAGMA mmap_size for the database reads (default 0)\n"
    "  --repeat N       measured rounds; each round times every layout once,\n"
    "                   starting one layout further each time, so drift hits\n"
    "                   both sides of a ratio alike; medians are shown\n"
    "                   (default 1; 5 or more for a useful crossover interval)\n"
    "  --warmup N       discarded runs of each layout before its first round\n"
    "                   (default 1; 0 with --cold is fine, each measured run\n"
    "                   is cold anyway)\n"
    "  --cold           evict the page cache before each measured run\n"
    "                   (see kvtest help run)\n"
    "  --update         time overwrites instead of reads\n"
    "  --seed S         content and order seed (default 1)\n"
    "  --keep           keep each size's databases, export and stores\n"
    "  --force          sweep inside a DIR that is not empty\n"
    "  --json           one JSON object with every figure\n"
    "  --csv            the --json fields as CSV: one row per blob size (rows)\n"
    "\n"
    "DIR is created if missing. sweep refuses a non-empty DIR unless --force,\n"
    "never overwrites an existing file, and deletes only what it created:\n"
    "DIR/sweep-SIZE.db (with its -wal/-shm/-journal; DIR/sweep-SIZE-pPAGE.db\n"
    "with several page sizes), DIR/sweep-SIZE/ and DIR/sweep-SIZE.lmdb/,\n"
    "DIR/sweep-SIZE.rocksdb/ (the files their engine names). It needs about\n"
    "1.25 x --total x (number of page sizes + stores besides db) of free\n"
    "space: one size's databases, export and stores exist together while its\n"
    "rounds run.\n";

#define MIN_COUNT 10

/* What measure() times: 0 SQL, 1 blob API, then 2 + enum sweep_store (the
 * names are the --keys-out suffixes). */
#define API_STORE 2
static const char *const api_names[API_STORE + SWEEP_NSTORES] = {"sql", "blob", "files",
                                                                  "lmdb", "rocksdb"};

/* The layout export and run know store s by: LAYOUT_MISSING (export's
 * "one file per blob") for the files. */
static enum layout_kind store_layout(enum sweep_store s)
{
    return s == SWEEP_STORE_LMDB ? LAYOUT_LMDB
           : s == SWEEP_STORE_ROCKSDB ? LAYOUT_ROCKSDB : LAYOUT_MISSING;
}

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
        if (*n >= SWEEP_MAX_SIZES)
            return cli_usage("sweep", "--sizes lists more than %d sizes", SWEEP_MAX_SIZES);
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

static void progress(const char *what, int64_t size, int64_t page)
{
    if (!progress_on())
        return;
    char s[32];
    sweep_fmt_size(s, sizeof s, (double)size);
    if (page)
        fprintf(stderr, "\rsweep: size %s, page %" PRId64 ": %s\033[K", s, page, what);
    else
        fprintf(stderr, "\rsweep: size %s: %s\033[K", s, what);
    fflush(stderr);
}

/* Time one round of one layout: api 0 SQL, 1 blob API (database db), 2 +
 * a store (its directory); the warm-up runs go before the layout's first
 * round (round 0). Every call asks for the same keys in the same order:
 * count, max_id and seed depend on the blob size only. */
static int measure(const struct sweep_opts *o, const char *path, int api, int64_t page,
                   const struct sweep_row *row, int round, struct run_result *res)
{
    struct run_opts ro;
    run_defaults(&ro);
    char kvpath[PATH_MAX + 16];
    if (api > API_STORE) {   /* a key-value store is named by its prefix */
        enum layout_kind k = store_layout((enum sweep_store)(api - API_STORE));
        snprintf(kvpath, sizeof kvpath, "%s%s",
                 k == LAYOUT_LMDB ? LAYOUT_LMDB_PREFIX : LAYOUT_ROCKSDB_PREFIX, path);
        path = kvpath;
    }
    ro.path = path;
    ro.count = row->count;
    ro.max_id = row->count;
    ro.order = ORDER_RANDOM;
    ro.seed = (uint64_t)o->seed;
    ro.blob_api = api == 1;
    ro.mmap = api >= API_STORE ? 0 : o->mmap;
    ro.update = o->update;
    ro.repeat = 1;
    ro.warmup = round == 0 ? o->warmup : 0;
    ro.cold = o->cold;
    ro.quiet = 1;
    char keys[PATH_MAX];
    if (o->keys_out) {
        if (api >= API_STORE)
            snprintf(keys, sizeof keys, "%s-%" PRId64 "-%s", o->keys_out, row->size,
                     api_names[api]);
        else
            snprintf(keys, sizeof keys, "%s-%" PRId64 "-p%" PRId64 "-%s", o->keys_out,
                     row->size, page, api_names[api]);
        ro.keys_out = keys;
    }
    char what[48];
    snprintf(what, sizeof what, "timing %s, round %d", api_names[api], round + 1);
    progress(what, row->size, api >= API_STORE ? 0 : page);
    return run_measure(&ro, res, "sweep");
}

/* Page size p of one size: create its database (the same seed, so the
 * same bytes under the same keys for every page size). The first page
 * size also exports its database into every store of --stores: a store
 * is the same whatever the page size it came from, so it is timed once
 * per size, and every page size's ratio divides the same store figure
 * (the crossovers differ by the database alone, and make bench stays
 * within its budget). */
static int sweep_build(const struct sweep_opts *o, const struct sweep_names *nm, int p,
                       const struct sweep_row *row)
{
    struct init_opts io;
    init_defaults(&io);
    io.path = nm->db[p];
    io.count = row->count;
    io.size = row->size;
    io.variance = 0;
    io.pagesize = o->pages[p];
    io.seed = (uint64_t)o->seed;
    io.quiet = 1;
    progress("creating the database", row->size, o->pages[p]);
    int rc = init_create(&io, "sweep");
    for (int i = 0; i < o->nstores && rc == 0 && p == 0; i++) {
        enum sweep_store s = o->stores[i];
        struct export_opts eo;
        export_defaults(&eo);
        eo.db = nm->db[p];
        eo.dir = nm->st[s];
        eo.kv = store_layout(s);
        eo.quiet = 1;
        char what[48];
        snprintf(what, sizeof what, "exporting%s%s", s == SWEEP_STORE_FILES ? "" : " to ",
                 s == SWEEP_STORE_FILES ? "" : sweep_store_name(s));
        progress(what, row->size, 0);
        rc = export_write(&eo, "sweep");
    }
    return rc;
}

/* The rounds of one size, interleaved: each round times every layout once
 * (the stores, then SQL and the blob API per page size), starting one
 * layout further each round. The ratios pair layouts of the same round,
 * so drift on a shared machine (other jobs, the page cache, CPU frequency)
 * hits both sides of a ratio alike instead of landing between them, as it
 * did when each layout ran all its rounds in a row. */
static int sweep_rounds(const struct sweep_opts *o, const struct sweep_names *nm,
                        struct sweep_row *row)
{
    int ns = o->nstores, nl = ns + 2 * o->npages, n = (int)o->repeat;
    struct run_result *got = calloc((size_t)nl * (size_t)n, sizeof *got);
    if (!got)
        return cli_fail("sweep", "out of memory");
    int rc = 0;
    for (int r = 0; r < n && rc == 0; r++)
        for (int k = 0; k < nl && rc == 0; k++) {
            int l = (r + k) % nl, p = (l - ns) / 2;
            struct run_result *res = &got[l * n + r];
            rc = l < ns ? measure(o, nm->st[o->stores[l]], API_STORE + (int)o->stores[l], 0,
                                  row, r, res)
                        : measure(o, nm->db[p], (l - ns) % 2, o->pages[p], row, r, res);
        }
    for (int l = 0; l < nl && rc == 0; l++) {
        struct run_result *dst = l < ns ? &row->st[o->stores[l]]
                                        : &row->db[(l - ns) / 2][(l - ns) % 2];
        rc = sweep_rounds_merge(&got[l * n], n, dst);
        if (rc)
            rc = cli_fail("sweep", "out of memory");
    }
    for (int i = 0; i < nl * n; i++)
        run_result_free(&got[i]);
    free(got);
    return rc;
}

static int sweep_parse(int argc, char **argv, struct sweep_opts *o)
{
    /* The table (sweep_opts.c) writes into a; *o is made of it below. */
    struct sweep_args a = {.sizes = "1k,4k,10k,30k,100k,300k,1M", .stores = "db,files"};
    a.o.total = 200000000;
    a.o.repeat = 1;
    a.o.warmup = -1;
    a.o.seed = 1;
    struct cli_opt opts[SWEEP_MAX_OPTS];
    int nopts = sweep_opts_table(&a, opts);
    int rc = cli_parse_one("sweep", argc, argv, opts, nopts, &a.o.dir,
                           "expected DIR (try: kvtest help sweep)");
    *o = a.o;
    char err[256];
    if (rc || (rc = cli_status("sweep", report_out_begin(&o->out, "rows", err, sizeof err), err)))
        return rc;
    if (o->cold && coldcache_missing())   /* before building anything */
        return cli_usage("sweep", "--cold is not available here: %s", coldcache_missing());
    if (a.pagesize && a.pages)
        return cli_usage("sweep", "--pagesize and --page-sizes together: give the page "
                         "sizes once (--page-sizes 4k,64k)");
    if (a.pagesize & (a.pagesize - 1))
        return cli_usage("sweep", "--pagesize must be a power of two between 512 and 65536, got %" PRId64,
                         a.pagesize);
    o->pages[0] = a.pagesize ? a.pagesize : 4096;
    o->npages = 1;
    if (a.pages && sweep_parse_pages(a.pages, o->pages, SWEEP_MAX_PAGES, &o->npages,
                                     err, sizeof err) != 0)
        return cli_usage("sweep", "%s", err);
    if (sweep_parse_stores(a.stores, o->stores, &o->nstores, err, sizeof err) != 0)
        return cli_usage("sweep", "%s", err);
    for (int i = 0; i < o->nstores; i++) {
        enum layout_kind k = store_layout(o->stores[i]);
        const char *missing = k == LAYOUT_MISSING ? NULL : store_kv_missing(k);
        if (missing)
            return cli_usage("sweep", "--stores %s: %s", sweep_store_name(o->stores[i]), missing);
    }
    rc = parse_sizes(a.sizes, o->sizes, &o->nsizes);
    if (rc)
        return rc;
    if (o->warmup < 0)
        o->warmup = 1;
    return 0;
}

/* Every name we will create must be free before we start anything. */
static int check_names(const struct sweep_opts *o)
{
    struct sweep_names *nm = malloc(sizeof *nm);
    if (!nm)
        return cli_fail("sweep", "out of memory");
    int rc = 0;
    if (access(o->dir, W_OK) != 0)
        rc = cli_fail("sweep", "%s: %s", o->dir, strerror(errno));
    for (int i = 0; i < o->nsizes && rc == 0; i++) {
        char taken[PATH_MAX + 16];
        if (sweep_names_make(nm, o, o->sizes[i]) != 0)
            rc = cli_usage("sweep", "%s: path too long", o->dir);
        else if (sweep_names_taken(nm, taken, sizeof taken))
            rc = cli_fail("sweep", "%s already exists; sweep never overwrites "
                          "(remove it or choose another DIR)", taken);
    }
    free(nm);
    return rc;
}

/* One size: a database per page size and the stores, then the rounds
 * (interleaved, so every database exists at once), then each database is
 * removed (unless --keep). Returns 0/1/2; the caller removes a failed
 * size. */
static int sweep_size(const struct sweep_opts *o, struct sweep_guard *g, struct sweep_row *row)
{
    /* Every database + every store, each a little over the content, plus
     * slack for the WAL or journal of --update; RocksDB's --update logs a
     * round's blobs before they reach a table file, so one content more. */
    double content = (double)row->count * (double)row->size;
    double wal = o->update && sweep_has_store(o, SWEEP_STORE_ROCKSDB) ? content : 0;
    int rc = sweep_check_space(o->dir, (int64_t)(1.25 * content * (o->nstores + o->npages) + wal)
                                       + (1 << 20));
    for (int p = 0; p < o->npages && rc == 0; p++)
        rc = sweep_build(o, &g->nm, p, row);
    if (rc == 0)
        rc = sweep_rounds(o, &g->nm, row);
    for (int p = 0; p < o->npages && rc == 0 && !o->keep; p++) {
        cleanup_lock();
        sweep_names_remove_db(&g->nm, p, 0);
        cleanup_unlock();
    }
    return rc;
}

/* Measure each size in turn; *done gets the number measured completely.
 * Returns the status of the first size that failed, or 0. */
static int run_sizes(const struct sweep_opts *o, struct sweep_row *rows, int made_dir,
                     int *done)
{
    struct sweep_guard *g = calloc(1, sizeof *g);
    if (!g)
        return cli_fail("sweep", "out of memory");
    g->dir = o->dir;
    g->made_dir = made_dir;
    cleanup_begin("sweep");
    int hg = cleanup_add_fn(sweep_guard_run, g);
    int rc = 0;
    *done = 0;
    for (int i = 0; i < o->nsizes && rc == 0; i++) {
        struct sweep_row *row = &rows[i];
        row->size = o->sizes[i];
        row->count = o->total / row->size;
        if (row->count < MIN_COUNT)
            row->count = MIN_COUNT;
        cleanup_lock();
        sweep_names_make(&g->nm, o, row->size);
        g->count = row->count;
        g->active = 1;
        cleanup_unlock();
        rc = sweep_size(o, g, row);
        if (progress_on())
            fprintf(stderr, "\r\033[K");
        cleanup_lock();
        if (!o->keep || rc)   /* a failed size is incomplete: never kept */
            sweep_names_remove(&g->nm, row->count, 0);
        g->active = 0;
        cleanup_unlock();
        if (rc == 0)
            (*done)++;
    }
    cleanup_drop(hg);
    cleanup_end();
    free(g);
    return rc;
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
    struct sweep_row *rows = rc ? NULL : calloc((size_t)o.nsizes, sizeof *rows);
    if (rc == 0 && !rows)
        rc = cli_fail("sweep", "out of memory");
    if (rows) {
        int done = 0;
        rc = run_sizes(&o, rows, made_dir, &done);
        if (done > 0)
            sweep_report(&o, rows, done);
        for (int i = 0; i < o.nsizes; i++) {
            for (int s = 0; s < SWEEP_NSTORES; s++)
                run_result_free(&rows[i].st[s]);
            for (int p = 0; p < o.npages; p++)
                for (int a = 0; a < 2; a++)
                    run_result_free(&rows[i].db[p][a]);
        }
        free(rows);
    }
    if (made_dir && !o.keep && rmdir(o.dir) != 0 && errno != ENOTEMPTY)
        cli_warn("sweep", "could not remove %s: %s", o.dir, strerror(errno));
    return rc;
}
