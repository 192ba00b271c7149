/* run: "kvtest run" -- help, options, and run_measure(), which reads as
 * plan (run_plan.c), measure (run_series.c over run_loop.c), report
 * (run_out.c); see run.h and run_int.h. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "commands/run/run.h"
#include "commands/run/run_int.h"
#include "base/cli.h"
#include "commands/commands.h"
#ifdef KVTEST_INJECT
#include <sys/stat.h>
#include "measure/inject.h"

/* The test build's slowdown (measure/inject.h): this run's path name. */
static void run_inject_arm(const struct run_opts *o)
{
    struct stat st;
    int files = stat(o->path, &st) == 0 && S_ISDIR(st.st_mode);
    inject_arm(o->update ? (files ? "files-write" : "db-write")
                         : files ? "files-read" : o->blob_api ? "blob-read" : "sql-read");
}
#endif
#include "stores/store.h"
#include "base/units.h"
#include "measure/report.h"

const char help_run[] =
    "Usage: kvtest run PATH [options]\n"
    "\n"
    "Time reads (or, with --update, overwrites) of --count blobs from PATH: a\n"
    "database made by \"kvtest init\", or a flat or tree directory made by\n"
    "\"kvtest export\" (a tree has a 00 subdirectory), or lmdb:DIR / rocksdb:DIR\n"
    "made by \"kvtest export DBFILE lmdb:DIR\". Databases are read with\n"
    "SELECT v FROM kv WHERE k=?1 or the incremental blob API; files with\n"
    "fopen, fread of the whole file and fclose per blob; LMDB in place in its\n"
    "map (every page of the value touched, nothing copied); RocksDB pinned in\n"
    "its block cache. The timer spans open to close (a WAL checkpoint counts\n"
    "unless --nocheckpoint).\n"
    "\n"
    "Options of SQLite's kvtest (same meaning and defaults):\n"
    "  --count N           blobs to access (default 1000)\n"
    "  --max-id N          largest key to use (default: the largest key present,\n"
    "                      for databases and directories alike)\n"
    "  --asc | --desc | --random   access order (default --asc); --random is a\n"
    "                      reproducible permutation of the whole key range\n"
    "  --start N           first key (asc/desc), or where the permutation starts\n"
    "  --blob-api          incremental blob I/O (open once, reopen per key)\n"
    "  --cache-size N      PRAGMA cache_size in pages, or -N for N KiB (default 1000)\n"
    "  --mmap N            PRAGMA mmap_size in bytes (default 0)\n"
    "  --jmode MODE        PRAGMA journal_mode: delete truncate persist memory wal off\n"
    "  --nosync            PRAGMA synchronous=OFF\n"
    "  --synchronous MODE  PRAGMA synchronous: off, normal, full or extra (default:\n"
    "                      SQLite's, FULL; WAL with normal is the common setting)\n"
    "  --fsync             fsync each file written (directories)\n"
    "  --nocheckpoint      WAL: no checkpoint, and the timer stops before close\n"
    "  --multitrans        each access in its own transaction\n"
    "  --update            overwrite each blob with fresh random content of the\n"
    "                      same size (SQL UPDATE, blob write, or fopen/fwrite)\n"
    "  --integrity-check   PRAGMA integrity_check after the run\n"
    "  --stats             SQLite memory and page-cache counters and /proc/self/io\n"
    "                      counters of the measured runs\n"
    "\n"
    "Beyond SQLite's kvtest:\n"
    "  --repeat N          N measured runs (default 1): min/median/max are reported,\n"
    "                      and with N >= 2 the median's 95% confidence interval,\n"
    "                      distribution-free: order statistics of the median\n"
    "                      (binomial, Hettmansperger-Sheather interpolation). Below\n"
    "                      6 runs no pair reaches 95%: min-max is shown instead\n"
    "  --warmup W          W discarded runs first (default 0)\n"
    "  --cold              evict the files from the page cache before each measured\n"
    "                      run (write-back + posix_fadvise DONTNEED, no root needed) and\n"
    "                      report how much stayed resident (mincore)\n"
    "  --fadvise random|normal   readahead off or on, for the database and files\n"
    "  --threads T         T concurrent readers, each with its own connection or\n"
    "                      file handles (reads only)\n"
    "  --zipf S            Zipf-distributed keys with exponent S > 0, hot keys\n"
    "                      scattered over the key range\n"
    "  --seed S            seed of --random, --zipf and update content (default 1)\n"
    "  --verify            check every blob read against its checksum; a mismatch\n"
    "                      is an error naming the key; data kvtest did not make is\n"
    "                      reported as unverifiable. With --update, the written\n"
    "                      blobs are read back and checked after the runs.\n"
    "  --no-latency        do not time each access (to measure the timer's cost)\n"
    "  --json              one JSON object with options, environment and figures\n"
    "  --timeline FILE     also write FILE, CSV: one row per interval of the last\n"
    "                      measured run (t_s,requests,failures,p50_us,p99_us,max_us;\n"
    "                      requests: accesses completed in the interval, failures\n"
    "                      always 0, as a failed access ends the run)\n"
    "  --interval D        the --timeline interval (default 1s; also 200ms, 2s)\n"
    "  --csv               the --json fields as CSV: one row per round (result.runs)\n"
    "\n"
    "LMDB and RocksDB (the other database options are ignored, said on stderr):\n"
    "  --multitrans        each read its own read transaction (LMDB), each write\n"
    "                      its own synced transaction (LMDB commit, RocksDB sync\n"
    "                      write); without it, one transaction for the run: LMDB\n"
    "                      commits once, RocksDB syncs its WAL once, at the end\n"
    "  --nosync            no sync of the writes (LMDB MDB_NOSYNC, RocksDB's WAL\n"
    "                      never synced; opening RocksDB still syncs its MANIFEST)\n"
    "  --fadvise random    LMDB: MDB_NORDAHEAD (no readahead on its map)\n"
    "  --block-cache B     RocksDB's LRU block cache in bytes (default 8388608,\n"
    "                      RocksDB 7's own default, stated in the result)\n"
    "\n"
    "Output: the lines of SQLite's kvtest (SQLite version, --count/--max-id,\n"
    "--cache-size/--jmode, --mmap, Database page size, Total elapsed time,\n"
    "Microseconds per BLOB read|write, Content read|write rate), then latency\n"
    "percentiles per access and the extras above.\n"
    "\n"
    "Example: kvtest run x1.db --count 100k --random --blob-api --repeat 5 --warmup 1\n";

void run_defaults(struct run_opts *o)
{
    memset(o, 0, sizeof *o);
    o->count = 1000;
    o->order = ORDER_ASC;
    o->seed = 1;
    o->cache_size = 1000;
    o->repeat = 1;
    o->fadvise = -1;
    o->threads = 1;
    o->latency = 1;
}

void run_result_free(struct run_result *r)
{
    if (!r)
        return;
    hist_free(r->latency);
    r->latency = NULL;
    free(r->us_runs);
    r->us_runs = NULL;
    r->nruns = 0;
}

int run_measure(const struct run_opts *o, struct run_result *r, const char *cmd)
{
    if (r)
        memset(r, 0, sizeof *r);
    struct run_plan plan;
    int ret = run_plan_make(&plan, o, cmd);
    if (ret)
        return ret;
    struct run_summary sum;
    ret = run_series(&plan, &sum, cmd);
    if (!ret && o->timeline &&
        timeline_write_csv(&sum.timeline, o->timeline, sum.figs[sum.nruns - 1].seconds) != 0)
        ret = cli_fail(cmd, "cannot write the --timeline file: %s", strerror(errno));
    if (!ret && !o->quiet)
        ret = run_report(&plan, &sum, cmd);
    if (!ret && r) {
        const struct run_fig *fm = &sum.figs[sum.med];
        *r = (struct run_result){
            .kind = plan.kind, .max_id = plan.max_id, .count = fm->count, .misses = fm->misses,
            .bytes = fm->bytes, .seconds = fm->seconds, .us_per_blob = sum.us[sum.med],
            .us_min = sum.us_spread[0], .us_max = sum.us_spread[2], .mb_per_s = sum.mb[sum.med],
            .mb_min = sum.mb_spread[0], .mb_max = sum.mb_spread[2],
            .resident_max = sum.resident_max, .cold_effective = o->cold ? sum.cold_effective : 0,
            .missing_keys = plan.missing_keys, .latency = sum.merged};
        sum.merged = NULL;   /* now the result's */
        r->us_runs = malloc(sizeof(double) * (size_t)sum.nruns);
        if (r->us_runs) {
            memcpy(r->us_runs, sum.us, sizeof(double) * (size_t)sum.nruns);
            r->nruns = sum.nruns;
        } else {
            ret = cli_fail(cmd, "out of memory");
        }
    }
    run_summary_free(&sum);
    return ret;
}

/* --timeline FILE [--interval D]: checked and opened before anything is
 * measured, so an unwritable path costs no run. 0 or the usage status. */
static int open_timeline(struct run_opts *o, const char *path, const char *interval)
{
    if (!path)
        return interval ? cli_usage("run", "--interval needs --timeline FILE") : 0;
    if (!o->latency)
        return cli_usage("run", "--timeline needs the per-access timer: drop --no-latency");
    o->timeline_ns = 1000000000u;
    if (interval && timeline_parse_interval(interval, &o->timeline_ns) != 0)
        return cli_usage("run", "invalid --interval '%s' (1ms to 1h: seconds, or with "
                         "ms/s/m/h)", interval);
    if (!(o->timeline = fopen(path, "w")))
        return cli_usage("run", "cannot write --timeline %s: %s", path, strerror(errno));
    return 0;
}

int cmd_run(int argc, char **argv)
{
    /* The table (run_opts.c) writes into a; the checks and conversions
     * below make o of it. */
    struct run_args a = {.order = -1, .jmode = -1, .sync = -1, .fadvise = -1, .seed = 1};
    run_defaults(&a.o);
    struct cli_opt opts[RUN_MAX_OPTS];
    int nopts = run_opts_table(&a, opts);
    int rc = cli_parse_one("run", argc, argv, opts, nopts, &a.o.path,
                           "missing PATH (usage: kvtest run PATH [options])");
    struct run_opts o = a.o;
    char err[128];
    if (rc || (rc = cli_status("run", report_out_begin(&o.out, "result.runs", err, sizeof err), err)))
        return rc;
    o.jmode = a.jmode >= 0 ? run_jmodes[a.jmode] : NULL;
    o.synchronous = a.sync >= 0 ? run_syncs[a.sync] : NULL;
    o.seed = (uint64_t)a.seed;
    if (a.cache_size) {
        /* Negative means KiB to SQLite (PRAGMA cache_size=-N), and SQLite's
         * kvtest passes the number through, so a sign is allowed here only. */
        int neg = a.cache_size[0] == '-';
        int64_t v;
        if (units_parse_int(a.cache_size + neg, &v) != 0 || v > 1000000000LL)
            return cli_usage("run", "invalid number for --cache-size: '%s' (pages, or -KiB)",
                             a.cache_size);
        o.cache_size = neg ? -v : v;
    }
    o.latency = !a.nolat;
    if (o.zipf > 0) {
        if (a.order >= 0)
            return cli_usage("run", "options --zipf and --%s conflict", run_order_name(a.order));
        o.order = ORDER_ZIPF;
    } else if (a.order >= 0) {
        o.order = (enum order_kind)a.order;
    }
    if (a.fadvise >= 0)
        o.fadvise = a.fadvise == 0;   /* 1: random (readahead off), 0: normal */
    o.keys_out = a.keys_out;
    if ((rc = open_timeline(&o, a.timeline, a.interval)) != 0)
        return rc;
    /* Must precede SQLite's initialisation, which nothing above does. */
    store_db_memstatus(o.stats);
#ifdef KVTEST_INJECT
    run_inject_arm(&o);
#endif
    rc = run_measure(&o, NULL, "run");
    if (o.timeline && fclose(o.timeline) != 0 && rc == 0)
        rc = cli_fail("run", "cannot write --timeline %s: %s", a.timeline, strerror(errno));
    return rc;
}
