/* sweep: at which blob size do separate files start to beat the database?
 *
 * For each size the same experiment as the article, at the same total bytes:
 * a fresh database (init), its flat export, then random reads of every key
 * from the database through SQL and through the blob API, and from the
 * files -- the same keys in the same order for all three. The crossover is
 * interpolated where files/blob-api crosses 1.
 *
 * Safety: DIR may hold the user's own files (with --force), so sweep checks
 * up front that none of the names it will create exist, and deletes only
 * those names afterwards: the database (and the -wal/-shm/-journal SQLite
 * makes beside it), the export's files by key, then the emptied export
 * directory and, if sweep made it, DIR itself, both with rmdir so anything
 * else stays. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>
#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <time.h>

#include "base/cli.h"
#include "commands/commands.h"
#include "commands/export.h"
#include "commands/init.h"
#include "stores/layout.h"
#include "measure/report.h"
#include "commands/run.h"
#include "commands/sweep.h"
#include "base/units.h"

/* ---- crossover (pure) ------------------------------------------------ */

int sweep_crossover(const double *sizes, const double *ratios, int n,
                    struct sweep_crossing *out)
{
    memset(out, 0, sizeof *out);
    out->kind = SWEEP_BAD;
    out->lo = -1;
    if (!sizes || !ratios || n < 1)
        return SWEEP_BAD;
    for (int i = 0; i < n; i++) {
        if (!(sizes[i] > 0) || !isfinite(sizes[i]) || !(ratios[i] > 0) ||
            !isfinite(ratios[i]))
            return SWEEP_BAD;
        if (i > 0 && !(sizes[i] > sizes[i - 1]))
            return SWEEP_BAD;
    }
    for (int i = 1; i < n; i++)
        out->crossings += (ratios[i] < 1.0) != (ratios[i - 1] < 1.0);
    if (ratios[0] < 1.0) {
        out->kind = SWEEP_FILES_WIN;
        return out->kind;
    }
    for (int i = 1; i < n; i++) {
        if (ratios[i] < 1.0) {
            /* ratios[i-1] >= 1 > ratios[i]: t in [0, 1). Linear in
             * log(size) because the sizes are spaced geometrically and
             * per-blob cost grows roughly with log(size) between them. */
            double r0 = ratios[i - 1], r1 = ratios[i];
            double t = (r0 - 1.0) / (r0 - r1);
            double l0 = log(sizes[i - 1]), l1 = log(sizes[i]);
            out->size = exp(l0 + t * (l1 - l0));
            if (t == 0.0)
                out->size = sizes[i - 1];   /* exact, not exp(log(x)) */
            out->lo = i - 1;
            out->kind = SWEEP_CROSS;
            return out->kind;
        }
    }
    out->kind = SWEEP_DB_WINS;
    return out->kind;
}

/* Decimal units, as users type them: 1k, 4k, 23.4k, 1M. */
static void fmt_size(char *buf, size_t cap, double v)
{
    if (v >= 1e9)
        snprintf(buf, cap, "%.3gG", v / 1e9);
    else if (v >= 1e6)
        snprintf(buf, cap, "%.3gM", v / 1e6);
    else if (v >= 1e3)
        snprintf(buf, cap, "%.3gk", v / 1e3);
    else
        snprintf(buf, cap, "%.0f", v);
}

void sweep_crossover_line(const struct sweep_crossing *c, const double *sizes,
                          int n, char *buf, size_t cap)
{
    char lo[32] = "?", hi[32] = "?", at[32];
    if (n >= 1) {
        fmt_size(lo, sizeof lo, sizes[0]);
        fmt_size(hi, sizeof hi, sizes[n - 1]);
    }
    char more[96] = "";
    if (c->crossings > 1)
        snprintf(more, sizeof more,
                 "; the ratio crosses 1 %d times (not monotonic), first crossing shown",
                 c->crossings);
    switch (c->kind) {
    case SWEEP_CROSS: {
        char a[32], b[32];
        fmt_size(at, sizeof at, c->size);
        fmt_size(a, sizeof a, sizes[c->lo]);
        fmt_size(b, sizeof b, sizes[c->lo + 1]);
        snprintf(buf, cap, "Crossover: %s bytes (files faster than the database "
                 "above this blob size; interpolated between %s and %s%s)",
                 at, a, b, more);
        break;
    }
    case SWEEP_DB_WINS:
        snprintf(buf, cap, "Crossover: none in range %s..%s (the database is "
                 "faster at every size)", lo, hi);
        break;
    case SWEEP_FILES_WIN:
        snprintf(buf, cap, "Crossover: none in range %s..%s (files are already "
                 "faster at the smallest size%s)", lo, hi, more);
        break;
    default:
        snprintf(buf, cap, "Crossover: unknown (no valid measurements)");
        break;
    }
}

/* ---- kvtest sweep -------------------------------------------------------- */

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

struct names {
    char db[PATH_MAX], exp[PATH_MAX];
};

static int make_names(struct names *nm, const char *dir, int64_t size)
{
    int a = snprintf(nm->db, sizeof nm->db, "%s/sweep-%" PRId64 ".db", dir, size);
    int b = snprintf(nm->exp, sizeof nm->exp, "%s/sweep-%" PRId64, dir, size);
    /* Room for the -journal suffix. */
    return (a < 0 || (size_t)a + 9 >= sizeof nm->db || b < 0 ||
            (size_t)b + 8 >= sizeof nm->exp) ? -1 : 0;
}

static const char *const db_suffixes[] = {"", "-wal", "-shm", "-journal"};

/* init builds the database in "DB.kvtest-tmp-XXXXXX" (and its -journal)
 * beside DB, then renames it. Calls fn on each such file in DIR (or only
 * counts them when fn is NULL); the last name found is left in buf. */
static int for_each_tmp(const struct names *nm, char *buf, size_t cap,
                        void (*fn)(const char *path))
{
    const char *slash = strrchr(nm->db, '/');
    char dir[PATH_MAX];
    snprintf(dir, sizeof dir, "%.*s", (int)(slash - nm->db), nm->db);
    char prefix[300];
    snprintf(prefix, sizeof prefix, "%s.kvtest-tmp-", slash + 1);
    size_t plen = strlen(prefix);
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, prefix, plen) != 0)
            continue;
        if (snprintf(buf, cap, "%s/%s", dir, e->d_name) >= (int)cap)
            continue;
        n++;
        if (fn)
            fn(buf);
    }
    closedir(d);
    return n;
}

static void unlink_quiet(const char *path)
{
    unlink(path);
}

/* Does any name this size will create already exist? Returns the first
 * one found in buf, or 0. */
static int names_taken(const struct names *nm, char *buf, size_t cap)
{
    struct stat sb;
    for (size_t i = 0; i < sizeof db_suffixes / sizeof db_suffixes[0]; i++) {
        snprintf(buf, cap, "%s%s", nm->db, db_suffixes[i]);
        if (lstat(buf, &sb) == 0)
            return 1;
    }
    snprintf(buf, cap, "%s", nm->exp);
    if (lstat(buf, &sb) == 0)
        return 1;
    return for_each_tmp(nm, buf, cap, NULL) > 0;
}

/* Remove what one size created: names checked absent before it started. */
static void cleanup_size(const struct names *nm, int64_t count, int quiet)
{
    char p[PATH_MAX + 16];
    for_each_tmp(nm, p, sizeof p, unlink_quiet);
    for (size_t i = 0; i < sizeof db_suffixes / sizeof db_suffixes[0]; i++) {
        snprintf(p, sizeof p, "%s%s", nm->db, db_suffixes[i]);
        if (unlink(p) != 0 && errno != ENOENT && !quiet)
            cli_warn("sweep", "could not remove %s: %s", p, strerror(errno));
    }
    struct stat sb;
    if (lstat(nm->exp, &sb) != 0)
        return;
    for (int64_t k = 1; k <= count; k++) {
        if (layout_path(p, sizeof p, nm->exp, 0, k) < 0)
            continue;
        if (unlink(p) != 0 && errno != ENOENT && !quiet)
            cli_warn("sweep", "could not remove %s: %s", p, strerror(errno));
    }
    if (rmdir(nm->exp) != 0 && !quiet)
        cli_warn("sweep", "could not remove %s: %s", nm->exp, strerror(errno));
}

static int progress_on(void)
{
    return isatty(STDERR_FILENO);
}

/* Ctrl-C (or SIGTERM/SIGHUP) in the middle of a size would leave up to
 * twice --total bytes behind. Signals are blocked in every thread of
 * the sweep and taken by one watcher thread, which can then use ordinary
 * calls (readdir, snprintf) to remove the size in progress while the other
 * threads keep running: it repeats until two passes in a row find nothing
 * (a writer may create a file just after a pass), then exits the process. */
struct watch {
    pthread_mutex_t mu;
    const char *dir;
    int made_dir;            /* remove DIR too (if empty) */
    int active;              /* a size is in progress */
    struct names nm;
    int64_t count;
    atomic_int stop;         /* the sweep finished: the watcher returns */
    sigset_t set;
};

static int size_present(const struct names *nm)
{
    char p[PATH_MAX + 16];
    struct stat sb;
    if (lstat(nm->exp, &sb) == 0)
        return 1;
    for (size_t i = 0; i < sizeof db_suffixes / sizeof db_suffixes[0]; i++) {
        snprintf(p, sizeof p, "%s%s", nm->db, db_suffixes[i]);
        if (lstat(p, &sb) == 0)
            return 1;
    }
    return for_each_tmp(nm, p, sizeof p, NULL) > 0;
}

static void *watch_main(void *arg)
{
    struct watch *w = arg;
    int sig = 0;
    if (sigwait(&w->set, &sig) != 0 || atomic_load(&w->stop))
        return NULL;
    pthread_mutex_lock(&w->mu);
    fprintf(stderr, "%skvtest sweep: interrupted by signal %d; removing what this "
            "size created\n", progress_on() ? "\r\033[K" : "", sig);
    if (w->active) {
        int clean = 0;
        for (int i = 0; i < 500 && clean < 2; i++) {
            cleanup_size(&w->nm, w->count, 1);
            clean = size_present(&w->nm) ? 0 : clean + 1;
            struct timespec ts = {0, 10 * 1000 * 1000};
            nanosleep(&ts, NULL);
        }
        if (clean < 2)
            fprintf(stderr, "kvtest sweep: could not remove all of %s and %s\n",
                    w->nm.db, w->nm.exp);
    }
    if (w->made_dir)
        rmdir(w->dir);   /* only if empty: --keep'd sizes stay */
    _exit(128 + sig);
}

static int dir_is_empty(const char *dir, int *empty)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    struct dirent *e;
    *empty = 1;
    while ((e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0) {
            *empty = 0;
            break;
        }
    closedir(d);
    return 0;
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
    fmt_size(s, sizeof s, (double)size);
    fprintf(stderr, "\rsweep: size %s: ", s);
    fprintf(stderr, fmt, what);
    fprintf(stderr, "\033[K");
    fflush(stderr);
}

/* One size: create, export, measure. Returns 0/1/2; cleanup by caller. */
static int sweep_one(const struct sweep_opts *o, const struct names *nm, struct sweep_row *row)
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

static int check_space(const char *dir, int64_t need)
{
    struct statvfs vf;
    if (statvfs(dir, &vf) != 0)
        return 0;   /* cannot tell: the writes themselves will report it */
    double avail = (double)vf.f_bavail * (double)vf.f_frsize;
    if (avail < (double)need) {
        char a[32], b[32];
        units_format_bytes(a, sizeof a, need);
        units_format_bytes(b, sizeof b, (int64_t)avail);
        return cli_fail("sweep", "%s: not enough free space (about %s needed, %s free)",
                        dir, a, b);
    }
    return 0;
}

int cmd_sweep(int argc, char **argv)
{
    struct sweep_opts o = {0};
    const char *sizes = "1k,4k,10k,30k,100k,300k,1M";
    o.total = 200000000;
    o.pagesize = 4096;
    o.repeat = 1;
    o.warmup = -1;
    o.seed = 1;
    const struct cli_opt opts[] = {
        {"sizes", CLI_STR, &sizes, 0, 0, 0, 0},
        {"total", CLI_INT, &o.total, 1, INT64_C(1) << 40, 0, 0},
        {"pagesize", CLI_INT, &o.pagesize, 512, 65536, 0, 0},
        {"repeat", CLI_INT, &o.repeat, 1, 1000, 0, 0},
        {"warmup", CLI_INT, &o.warmup, 0, 1000, 0, 0},
        {"seed", CLI_INT, &o.seed, 0, INT64_MAX, 0, 0},
        {"cold", CLI_FLAG, &o.cold, 0, 0, 0, 0},
        {"update", CLI_FLAG, &o.update, 0, 0, 0, 0},
        {"keep", CLI_FLAG, &o.keep, 0, 0, 0, 0},
        {"force", CLI_FLAG, &o.force, 0, 0, 0, 0},
        {"json", CLI_FLAG, &o.json, 0, 0, 0, 0},
    };
    const char *pos[1];
    int npos = 0;
    int rc = cli_parse("sweep", argc, argv, opts, (int)(sizeof opts / sizeof opts[0]),
                       pos, 1, &npos);
    if (rc)
        return rc;
    if (npos < 1)
        return cli_usage("sweep", "expected DIR (try: kvtest help sweep)");
    o.dir = pos[0];
    if (o.pagesize & (o.pagesize - 1))
        return cli_usage("sweep", "--pagesize must be a power of two between 512 and 65536, got %" PRId64,
                         o.pagesize);
    rc = parse_sizes(sizes, o.sizes, &o.nsizes);
    if (rc)
        return rc;
    if (o.warmup < 0)
        o.warmup = 1;

    /* DIR: create it, or accept it empty (or anything with --force). */
    int made_dir = 0;
    struct stat sb;
    if (stat(o.dir, &sb) != 0) {
        if (errno != ENOENT)
            return cli_fail("sweep", "%s: %s", o.dir, strerror(errno));
        if (mkdir(o.dir, 0777) != 0)
            return cli_fail("sweep", "cannot create %s: %s", o.dir, strerror(errno));
        made_dir = 1;
    } else if (!S_ISDIR(sb.st_mode)) {
        return cli_usage("sweep", "%s: not a directory", o.dir);
    } else {
        int empty;
        if (dir_is_empty(o.dir, &empty) != 0)
            return cli_fail("sweep", "%s: %s", o.dir, strerror(errno));
        if (!empty && !o.force)
            return cli_fail("sweep", "%s is not empty (use --force to sweep inside it; "
                            "sweep deletes only what it creates)", o.dir);
    }
    if (access(o.dir, W_OK) != 0) {
        rc = cli_fail("sweep", "%s: %s", o.dir, strerror(errno));
        goto out_dir;
    }

    /* Every name we will create must be free before we start anything. */
    struct names nm;
    for (int i = 0; i < o.nsizes; i++) {
        char taken[PATH_MAX + 16];
        if (make_names(&nm, o.dir, o.sizes[i]) != 0) {
            rc = cli_usage("sweep", "%s: path too long", o.dir);
            goto out_dir;
        }
        if (names_taken(&nm, taken, sizeof taken)) {
            rc = cli_fail("sweep", "%s already exists; sweep never overwrites "
                          "(remove it or choose another DIR)", taken);
            goto out_dir;
        }
    }

    struct sweep_row rows[MAX_SIZES];
    memset(rows, 0, sizeof rows);
    int done = 0;

    struct watch w;
    memset(&w, 0, sizeof w);
    pthread_mutex_init(&w.mu, NULL);
    w.dir = o.dir;
    w.made_dir = made_dir;
    sigemptyset(&w.set);
    sigaddset(&w.set, SIGINT);
    sigaddset(&w.set, SIGTERM);
    sigaddset(&w.set, SIGHUP);
    sigset_t old_mask;
    pthread_sigmask(SIG_BLOCK, &w.set, &old_mask);
    pthread_t watcher;
    int watching = pthread_create(&watcher, NULL, watch_main, &w) == 0;

    for (int i = 0; i < o.nsizes; i++) {
        struct sweep_row *row = &rows[i];
        row->size = o.sizes[i];
        row->count = o.total / row->size;
        if (row->count < MIN_COUNT)
            row->count = MIN_COUNT;
        make_names(&nm, o.dir, row->size);
        pthread_mutex_lock(&w.mu);
        w.nm = nm;
        w.count = row->count;
        w.active = 1;
        pthread_mutex_unlock(&w.mu);
        /* Database + export, each a little over the content, plus slack
         * for the WAL or journal of --update. */
        int64_t need = (int64_t)(2.5 * (double)row->count * (double)row->size) + (1 << 20);
        rc = check_space(o.dir, need);
        if (rc == 0)
            rc = sweep_one(&o, &nm, row);
        if (progress_on())
            fprintf(stderr, "\r\033[K");
        pthread_mutex_lock(&w.mu);
        if (!o.keep || rc)   /* a failed size is incomplete: never kept */
            cleanup_size(&nm, row->count, 0);
        w.active = 0;
        pthread_mutex_unlock(&w.mu);
        if (rc)
            break;
        done++;
    }

    /* Stop the watcher: wake its sigwait with a signal it takes as "done".
     * A real signal that raced in is simply lost; nothing is in progress. */
    if (watching) {
        atomic_store(&w.stop, 1);
        pthread_kill(watcher, SIGHUP);
        pthread_join(watcher, NULL);
    }
    pthread_sigmask(SIG_SETMASK, &old_mask, NULL);
    pthread_mutex_destroy(&w.mu);

    if (done > 0) {
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

        if (o.json) {
            cJSON *j = report_json_new("sweep", o.dir);
            cJSON *op = cJSON_AddObjectToObject(j, "options");
            cJSON *sz = cJSON_AddArrayToObject(op, "sizes");
            for (int i = 0; i < o.nsizes; i++)
                cJSON_AddItemToArray(sz, cJSON_CreateNumber((double)o.sizes[i]));
            cJSON_AddNumberToObject(op, "total", (double)o.total);
            cJSON_AddNumberToObject(op, "pagesize", (double)o.pagesize);
            cJSON_AddNumberToObject(op, "repeat", (double)o.repeat);
            cJSON_AddNumberToObject(op, "warmup", (double)o.warmup);
            cJSON_AddNumberToObject(op, "seed", (double)o.seed);
            cJSON_AddBoolToObject(op, "cold", o.cold);
            cJSON_AddBoolToObject(op, "update", o.update);
            cJSON_AddBoolToObject(op, "keep", o.keep);
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
            const char *kind = cross.kind == SWEEP_CROSS ? "cross"
                               : cross.kind == SWEEP_DB_WINS ? "db_wins"
                               : cross.kind == SWEEP_FILES_WIN ? "files_win" : "unknown";
            cJSON_AddStringToObject(c, "kind", kind);
            if (cross.kind == SWEEP_CROSS)
                cJSON_AddNumberToObject(c, "size", cross.size);
            else
                cJSON_AddNullToObject(c, "size");
            cJSON_AddNumberToObject(c, "crossings", cross.crossings);
            cJSON_AddStringToObject(c, "line", line);
            cJSON_AddBoolToObject(j, "complete", done == o.nsizes);
            report_json_print(j);
        } else {
            char tot[32];
            fmt_size(tot, sizeof tot, (double)o.total);
            printf("Sweep of %s: %s bytes per size, page size %" PRId64 ", random %s of "
                   "every key, %" PRId64 " warm-up + %" PRId64 " measured run%s%s\n",
                   o.dir, tot, o.pagesize, o.update ? "writes" : "reads", o.warmup,
                   o.repeat, o.repeat > 1 ? "s (medians)" : "", o.cold ? ", cold cache" : "");
            printf("%8s %9s %13s %13s %13s %11s\n", "size", "count", "sql us/blob",
                   "blob us/blob", "files us/blob", "files/blob");
            for (int i = 0; i < done; i++) {
                char s[32];
                fmt_size(s, sizeof s, (double)rows[i].size);
                printf("%8s %9" PRId64 " %13.2f %13.2f %13.2f %11.3f\n", s, rows[i].count,
                       rows[i].res[0].us_per_blob, rows[i].res[1].us_per_blob,
                       rows[i].res[2].us_per_blob, ratios[i]);
            }
            if (o.cold) {
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
        fflush(stdout);
    }
    for (int i = 0; i < o.nsizes; i++)
        for (int a = 0; a < 3; a++)
            run_result_free(&rows[i].res[a]);

out_dir:
    if (made_dir && !o.keep && rmdir(o.dir) != 0 && errno != ENOTEMPTY)
        cli_warn("sweep", "could not remove %s: %s", o.dir, strerror(errno));
    return rc;
}
