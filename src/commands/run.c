/* run: the measured loop of "kvtest run" (see run.h).
 *
 * Every store is driven by the same key sequence: asc/desc come from one
 * shared index (so T threads together visit exactly the keys one thread
 * would), random and zipf from src/order.h with one stream per thread.
 * The whole-run timer spans open to close, as in SQLite's kvtest; the
 * per-access timer brackets only the store call. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "commands/run.h"
#include "commands/run_int.h"
#include "stores/blobsum.h"
#include "base/cli.h"
#include "measure/clock.h"
#include "measure/coldcache.h"
#include "commands/commands.h"
#include "measure/report.h"
#include "measure/rng.h"
#include "sqlite3.h"
#include "stores/store.h"
#include "base/units.h"

const char help_run[] =
    "Usage: kvtest run PATH [options]\n"
    "\n"
    "Time reads (or, with --update, overwrites) of --count blobs from PATH: a\n"
    "database made by \"kvtest init\", or a flat or tree directory made by\n"
    "\"kvtest export\" (a tree has a 00 subdirectory). Databases are read with\n"
    "SELECT v FROM kv WHERE k=?1 or the incremental blob API; files with\n"
    "fopen, fread of the whole file and fclose per blob. The timer spans open\n"
    "to close (a WAL checkpoint counts unless --nocheckpoint).\n"
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
    "  --repeat N          N measured runs (default 1): min/median/max are reported\n"
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
}

/* ---- one run ----------------------------------------------------------- */

struct ctx {
    const struct run_opts *o;
    struct store_opts so;
    int64_t max_id, start;
    int verify;                 /* check blobsum of every read */
    int latency;
    int64_t threads;
    /* Written by every thread: a cache line of its own, claimed in chunks,
     * so concurrent readers do not bounce it on every access. */
    _Alignas(64) atomic_llong next;   /* shared index of the key sequence */
    _Alignas(64) atomic_llong limit;  /* count + extra cycles for misses */
    atomic_llong misses;
    atomic_int failed;
    int64_t *keys;              /* --keys-out: keys visited (one thread) */
    uint64_t content_seed;
};

struct worker {
    struct ctx *c;
    int index;
    struct hist *h;
    int64_t count, misses, bytes, checked, unverifiable;
    uint64_t t_end;
    struct sql_stats stats;
    char jmode[32];             /* journal mode in effect during the run */
    char err[1024];
    int failed;
};

static int64_t key_at(const struct ctx *c, int64_t i)
{
    int64_t m = c->max_id;
    if (c->o->order == ORDER_DESC) {
        int64_t s0 = c->start ? c->start : m;
        int64_t k = s0 - (i % m);
        return k < 1 ? k + m : k;
    }
    int64_t s0 = c->start ? c->start : 1;
    return (s0 - 1 + i % m) % m + 1;
}

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    struct ctx *c = w->c;
    const struct run_opts *o = c->o;
    struct store *s = NULL;
    struct order ord;
    int shared = o->order == ORDER_ASC || o->order == ORDER_DESC;
    rng_t content;
    rng_seed(&content, rng_mix(c->content_seed, (uint64_t)w->index));
    if (!shared && order_init(&ord, o->order, c->max_id, c->start, o->seed, (uint64_t)w->index,
                              o->zipf) != 0) {
        snprintf(w->err, sizeof w->err, "bad order parameters");
        goto fail;
    }
    if (store_open(&s, &c->so, w->err, sizeof w->err) != 0)
        goto fail;
    if (store_jmode(s))
        snprintf(w->jmode, sizeof w->jmode, "%s", store_jmode(s));
    /* One clock read per access: each interval starts where the previous
     * one ended, so it also holds the loop's own bookkeeping (a shared
     * counter and the next key, tens of ns) but halves the timer's cost on
     * a microsecond-scale access. With --verify the checksum must not count
     * as access time, so each access then gets its own start stamp. */
    int chain = c->latency && !c->verify;
    uint64_t t_prev = c->latency ? clock_now_ns() : 0;
    /* One thread takes indices one at a time (so --keys-out and the miss
     * accounting match upstream exactly); several take chunks. */
    const int64_t chunk = c->threads > 1 ? 32 : 1;
    int64_t i = 0, chunk_end = 0;
    for (;;) {
        if (i >= chunk_end) {
            i = atomic_fetch_add_explicit(&c->next, chunk, memory_order_relaxed);
            chunk_end = i + chunk;
        }
        if (atomic_load_explicit(&c->failed, memory_order_relaxed) ||
            i >= atomic_load_explicit(&c->limit, memory_order_relaxed))
            break;
        int64_t idx = i++;
        int64_t key = shared ? key_at(c, idx) : order_next(&ord);
        if (c->keys)
            c->keys[idx] = key;
        const void *data = NULL;
        int64_t n = 0;
        int rc;
        uint64_t t0 = chain ? t_prev : c->latency ? clock_now_ns() : 0;
        if (c->so.update)
            rc = store_update(s, key, &content, &n, w->err, sizeof w->err);
        else
            rc = store_read(s, key, &data, &n, w->err, sizeof w->err);
        if (c->latency) {
            t_prev = clock_now_ns();
            hist_record(w->h, t_prev - t0);
        }
        if (rc < 0)
            goto fail;
        if (rc == 0) {
            w->misses++;
            /* As SQLite's kvtest: a miss costs an extra cycle, so --count
             * blobs are really accessed; bounded so a range with no data
             * cannot loop forever. */
            if (atomic_fetch_add(&c->misses, 1) < o->count)
                atomic_fetch_add(&c->limit, 1);
            continue;
        }
        w->count++;
        w->bytes += n;
        if (c->verify) {
            int v = blobsum_check(data, (size_t)n);
            if (v == 1) {
                w->checked++;
            } else if (v < 0) {
                w->unverifiable++;
            } else {
                snprintf(w->err, sizeof w->err,
                         "content mismatch at key %" PRId64 " of %s: checksum does not match",
                         key, o->path);
                goto fail;
            }
        }
    }
    if (w->index == 0 && o->stats && store_sqlite(s))
        runstats_sql_take(&w->stats, store_sqlite(s));
    if (store_commit(s, w->err, sizeof w->err) != 0)
        goto fail;
    if (o->nocheckpoint) {
        w->t_end = clock_now_ns();
        if (store_close(s, w->err, sizeof w->err) != 0) {
            s = NULL;
            goto fail;
        }
    } else {
        int rc = store_close(s, w->err, sizeof w->err);
        w->t_end = clock_now_ns();
        if (rc != 0) {
            s = NULL;
            goto fail;
        }
    }
    return NULL;
fail:
    if (s) {
        char dummy[64];
        store_close(s, dummy, sizeof dummy);
    }
    w->failed = 1;
    w->t_end = clock_now_ns();
    atomic_store(&c->failed, 1);
    return NULL;
}

/* Fresh content per run, so an update really changes the bytes. */
static uint64_t content_nonce(void)
{
    uint64_t v;
    if (rng_os_bytes(&v, sizeof v) != 0)
        v = clock_now_ns();
    return v;
}

/* Run once with T workers. Returns 0, or 1 after printing the error. */
static int run_once(struct ctx *c, struct worker *ws, int64_t threads, struct hist *merged,
                    struct run_fig *f, const char *cmd)
{
    atomic_store(&c->next, 0);
    atomic_store(&c->limit, c->o->count);
    atomic_store(&c->misses, 0);
    atomic_store(&c->failed, 0);
    c->content_seed = content_nonce();
    for (int64_t t = 0; t < threads; t++) {
        struct hist *h = ws[t].h;
        memset(&ws[t], 0, sizeof ws[t]);
        ws[t].c = c;
        ws[t].index = (int)t;
        ws[t].h = h;
        if (h)
            hist_reset(h);
    }
    pthread_t th[256];
    struct io_counters io0, io1;
    runstats_io_read(&io0);
    uint64_t t0 = clock_now_ns();
    int64_t started = 0;
    if (threads == 1) {
        worker_main(&ws[0]);
    } else {
        for (int64_t t = 0; t < threads; t++) {
            if (pthread_create(&th[t], NULL, worker_main, &ws[t]) != 0) {
                snprintf(ws[t].err, sizeof ws[t].err, "cannot start a thread: %s",
                         strerror(errno));
                ws[t].failed = 1;
                atomic_store(&c->failed, 1);
                break;
            }
            started++;
        }
        for (int64_t t = 0; t < started; t++)
            pthread_join(th[t], NULL);
    }
    uint64_t t1 = t0;
    for (int64_t t = 0; t < threads; t++)
        if (ws[t].t_end > t1)
            t1 = ws[t].t_end;
    runstats_io_read(&io1);
    for (int64_t t = 0; t < threads; t++)
        if (ws[t].failed)
            return cli_fail(cmd, "%s", ws[t].err);
    memset(f, 0, sizeof *f);
    f->seconds = (double)(t1 - t0) / 1e9;
    for (int64_t t = 0; t < threads; t++) {
        f->count += ws[t].count;
        f->misses += ws[t].misses;
        f->bytes += ws[t].bytes;
        f->checked += ws[t].checked;
        f->unverifiable += ws[t].unverifiable;
        if (merged && ws[t].h)
            hist_merge(merged, ws[t].h);
    }
    f->stats = ws[0].stats;
    memcpy(f->jmode, ws[0].jmode, sizeof f->jmode);
    if (io0.ok && io1.ok) {
        f->io_delta.ok = 1;
        for (int i = 0; i < 7; i++)
            f->io_delta.v[i] = io1.v[i] - io0.v[i];
        f->io_read = f->io_delta.v[4];
        f->io_write = f->io_delta.v[5];
    }
    return 0;
}

/* ---- options ------------------------------------------------------------ */

static int jmode_ok(const char *m)
{
    static const char *const modes[] = {"delete", "truncate", "persist", "memory", "wal", "off"};
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++)
        if (strcasecmp(m, modes[i]) == 0)
            return 1;
    return 0;
}

static int validate(const struct run_opts *o, const char *cmd)
{
    if (!o->path || !*o->path)
        return cli_usage(cmd, "missing PATH");
    if (o->count < 1)
        return cli_usage(cmd, "--count must be at least 1");
    if (o->max_id < 0 || o->start < 0 || o->cache_size < -1000000000LL ||
        o->cache_size > 1000000000LL || o->mmap < 0)
        return cli_usage(cmd, "negative --max-id, --start or --mmap");
    if (o->repeat < 1 || o->repeat > 10000 || o->warmup < 0 || o->warmup > 10000)
        return cli_usage(cmd, "--repeat must be in 1..10000 and --warmup in 0..10000");
    if (o->threads < 1 || o->threads > 256)
        return cli_usage(cmd, "--threads must be between 1 and 256");
    if (o->update && o->threads > 1)
        return cli_usage(cmd, "--update with --threads %lld: concurrent writers are not "
                         "supported (use --threads 1)", (long long)o->threads);
    if (o->order == ORDER_ZIPF && !(o->zipf > 0))
        return cli_usage(cmd, "--zipf needs an exponent greater than 0");
    if (o->synchronous) {
        static const char *const modes[] = {"off", "normal", "full", "extra"};
        size_t i = 0;
        while (i < 4 && strcasecmp(o->synchronous, modes[i]) != 0)
            i++;
        if (i == 4)
            return cli_usage(cmd, "--synchronous must be one of off, normal, full, extra; got '%s'",
                             o->synchronous);
        if (o->nosync && i != 0)
            return cli_usage(cmd, "options --nosync and --synchronous %s conflict", o->synchronous);
    }
    if (o->jmode && !jmode_ok(o->jmode))
        return cli_usage(cmd, "--jmode must be one of delete, truncate, persist, memory, wal, "
                         "off; got '%s'", o->jmode);
    if (o->fadvise < -1 || o->fadvise > 1)
        return cli_usage(cmd, "--fadvise must be random or normal");
    return 0;
}

/* The blobs at a few keys spread over the range: do any carry our tag?
 * 1 yes (verify), 0 none did (unverifiable), -1 error printed. */
static int verify_probe(struct ctx *c, const char *cmd)
{
    struct store_opts so = c->so;
    so.update = 0;
    so.fadvise = -1;
    so.multitrans = 1;
    struct store *s;
    char err[1024];
    if (store_open(&s, &so, err, sizeof err) != 0) {
        cli_fail(cmd, "%s", err);
        return -1;
    }
    int tagged = 0, seen = 0;
    for (int i = 0; i < 8; i++) {
        int64_t k = 1 + (c->max_id - 1) * i / 7;
        const void *d;
        int64_t n;
        int rc = store_read(s, k, &d, &n, err, sizeof err);
        if (rc < 0) {
            store_close(s, err, sizeof err);
            cli_fail(cmd, "%s", err);
            return -1;
        }
        if (rc == 1) {
            seen++;
            tagged += blobsum_check(d, (size_t)n) == 1;
        }
    }
    store_close(s, err, sizeof err);
    return tagged > 0 || seen == 0;
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

int run_measure(const struct run_opts *o, struct run_result *r, const char *cmd)
{
    int rc = validate(o, cmd);
    if (rc)
        return rc;
    if (r)
        memset(r, 0, sizeof *r);
    char why[1024];
    enum layout_kind kind = layout_detect(o->path, why, sizeof why);
    if (kind == LAYOUT_MISSING || kind == LAYOUT_OTHER)
        return cli_fail(cmd, "%s", why);
    int is_db = kind == LAYOUT_DB;
    if (is_db) {
        if (store_db_check(o->path, why, sizeof why) != 0)
            return cli_fail(cmd, "%s", why);
        /* As SQLite's kvtest: recover a crashed transaction before timing. */
        sqlite3 *db = NULL;
        if (sqlite3_open_v2(o->path, &db, SQLITE_OPEN_READWRITE, NULL) == SQLITE_OK)
            sqlite3_exec(db, "SELECT rowid FROM sqlite_schema LIMIT 1", NULL, NULL, NULL);
        sqlite3_close(db);
    } else {
        char given[160] = "";
        const struct { int on; const char *name; } dbonly[] = {
            {o->blob_api, "--blob-api"}, {o->jmode != NULL, "--jmode"}, {o->mmap != 0, "--mmap"},
            {o->nosync, "--nosync"}, {o->synchronous != NULL, "--synchronous"},
            {o->nocheckpoint, "--nocheckpoint"},
            {o->multitrans, "--multitrans"}, {o->integrity_check, "--integrity-check"}};
        for (size_t i = 0; i < sizeof dbonly / sizeof dbonly[0]; i++)
            if (dbonly[i].on)
                snprintf(given + strlen(given), sizeof given - strlen(given), "%s%s",
                         given[0] ? " " : "", dbonly[i].name);
        /* Ignored, as SQLite's kvtest does, so one command line can drive
         * every layout; but said, so nobody thinks it mattered. */
        if (given[0] && !o->quiet)
            cli_warn(cmd, "%s: database option(s) ignored for a %s directory", given,
                     layout_kind_name(kind));
        if (o->update && access(o->path, W_OK) != 0)
            return cli_fail(cmd, "%s: %s", o->path, strerror(errno));
    }
    int64_t max_id = o->max_id;
    if (max_id == 0) {
        max_id = store_max_key(o->path, kind, why, sizeof why);
        if (max_id < 0)
            return cli_fail(cmd, "%s", why);
        if (max_id == 0)
            return cli_fail(cmd, "%s holds no blobs", o->path);
    }
    if (o->start > max_id)
        return cli_usage(cmd, "--start %lld is beyond --max-id %lld", (long long)o->start,
                         (long long)max_id);
    {
        struct order probe;
        if (order_init(&probe, o->order, max_id, o->start, o->seed, 0, o->zipf) != 0)
            return cli_usage(cmd, "bad order parameters (--zipf %g, --max-id %lld)", o->zipf,
                             (long long)max_id);
    }

    struct ctx c;
    memset(&c, 0, sizeof c);
    c.o = o;
    c.max_id = max_id;
    c.start = o->start;
    c.latency = o->latency;
    c.threads = o->threads;
    c.so = (struct store_opts){
        .path = o->path, .kind = kind, .blob_api = o->blob_api, .cache_size = o->cache_size,
        .mmap = o->mmap, .jmode = o->jmode, .nosync = o->nosync, .synchronous = o->synchronous, .fsync = o->fsync,
        .nocheckpoint = o->nocheckpoint, .multitrans = o->multitrans, .update = o->update,
        .fadvise = o->fadvise};

    enum verify_state vs = VERIFY_OFF;
    if (o->verify) {
        int p = verify_probe(&c, cmd);
        if (p < 0)
            return 1;
        vs = p ? VERIFY_ON : VERIFY_UNVERIFIABLE;
    }
    c.verify = vs == VERIFY_ON && !o->update;

    /* Facts for the result lines from one untimed look at the database. */
    int64_t page_size = 0, cache_size = 0;
    if (is_db) {
        struct store_opts so = c.so;
        so.update = 0;
        so.multitrans = 1;
        so.fadvise = -1;
        so.jmode = NULL;
        struct store *s;
        if (store_open(&s, &so, why, sizeof why) != 0)
            return cli_fail(cmd, "%s", why);
        page_size = store_page_size(s);
        cache_size = store_cache_size(s);
        store_close(s, why, sizeof why);
    }

    int64_t threads = o->threads;
    struct worker *ws = calloc((size_t)threads, sizeof *ws);
    int nruns = (int)o->repeat;
    struct run_fig *figs = calloc((size_t)nruns, sizeof *figs);
    struct hist *merged = o->latency ? hist_new() : NULL;
    int ret = 0;
    if (!ws || !figs || (o->latency && !merged)) {
        ret = cli_fail(cmd, "out of memory");
        goto out;
    }
    for (int64_t t = 0; t < threads && o->latency; t++)
        if (!(ws[t].h = hist_new())) {
            ret = cli_fail(cmd, "out of memory");
            goto out;
        }
    if (o->keys_out && threads == 1) {
        c.keys = malloc((size_t)(2 * o->count) * sizeof *c.keys);
        if (!c.keys) {
            ret = cli_fail(cmd, "out of memory for --keys-out");
            goto out;
        }
    }
    struct coldcache_set cset = {o->path, is_db, kind == LAYOUT_TREE, max_id};
    struct run_fig scratch;
    for (int64_t w = 0; w < o->warmup; w++)
        if ((ret = run_once(&c, ws, threads, NULL, &scratch, cmd)) != 0)
            goto out;
    for (int i = 0; i < nruns; i++) {
        struct run_fig *f = &figs[i];
        struct coldcache_stat cst;
        memset(&cst, 0, sizeof cst);
        int cold = 0;
        if (o->cold) {
            if (coldcache_evict(&cset, &cst, why, sizeof why) != 0) {
                ret = cli_fail(cmd, "cannot evict %s from the page cache: %s", o->path, why);
                goto out;
            }
            cold = 1;
        }
        if ((ret = run_once(&c, ws, threads, merged, f, cmd)) != 0)
            goto out;
        f->cold = cold;
        f->cst = cst;
        f->resident = cst.pages ? (double)cst.resident / (double)cst.pages : 0.0;
    }
    if (c.keys)
        if ((ret = write_keys(o->keys_out, c.keys, figs[nruns - 1].count +
                              figs[nruns - 1].misses, cmd)) != 0)
            goto out;

    /* Read back what --update wrote: replay the same sequence, check all. */
    int64_t checked_after = 0, unver_after = 0;
    if (o->update && vs == VERIFY_ON) {
        struct run_opts ro = *o;
        ro.update = 0;
        ro.latency = 0;
        struct ctx vc = c;
        vc.o = &ro;
        vc.so.update = 0;
        vc.so.fadvise = -1;
        vc.verify = 1;
        vc.latency = 0;
        vc.keys = NULL;
        struct run_fig vf;
        struct hist *h0 = ws[0].h;
        ws[0].h = NULL;
        ret = run_once(&vc, ws, 1, NULL, &vf, cmd);
        ws[0].h = h0;
        if (ret)
            goto out;
        checked_after = vf.checked;
        unver_after = vf.unverifiable;
    }

    /* ---- figures ---- */
    double *us = malloc(sizeof(double) * (size_t)nruns);
    double *mb = malloc(sizeof(double) * (size_t)nruns);
    double *sorted = malloc(sizeof(double) * (size_t)nruns);
    if (!us || !mb || !sorted) {
        free(us), free(mb), free(sorted);
        ret = cli_fail(cmd, "out of memory");
        goto out;
    }
    double resident_max = 0;
    struct io_counters io_sum;
    memset(&io_sum, 0, sizeof io_sum);
    io_sum.ok = 1;
    int64_t blobs_all = 0, storage_all = 0;
    for (int i = 0; i < nruns; i++) {
        struct run_fig *f = &figs[i];
        int64_t cycles = f->count + f->misses;
        us[i] = cycles ? f->seconds * 1e6 / (double)cycles : 0;
        mb[i] = f->seconds > 0 ? (double)f->bytes / 1e6 / f->seconds : 0;
        if (f->resident > resident_max)
            resident_max = f->resident;
        io_sum.ok &= f->io_delta.ok;
        for (int k = 0; k < 7; k++)
            io_sum.v[k] += f->io_delta.v[k];
        blobs_all += f->count;
        storage_all += f->io_read;
    }
    double us_spread[3], mb_spread[3];   /* min, median, max */
    memcpy(sorted, mb, sizeof(double) * (size_t)nruns);
    mb_spread[1] = report_median(sorted, nruns);
    mb_spread[0] = sorted[0], mb_spread[2] = sorted[nruns - 1];
    memcpy(sorted, us, sizeof(double) * (size_t)nruns);
    us_spread[1] = report_median(sorted, nruns);
    us_spread[0] = sorted[0], us_spread[2] = sorted[nruns - 1];
    free(sorted);
    /* The median run is the one nearest the median us-per-blob (for even N
     * the median is between two runs), so the printed lines are one real,
     * consistent run. */
    int med = 0;
    for (int i = 1; i < nruns; i++)
        if (fabs(us[i] - us_spread[1]) < fabs(us[med] - us_spread[1]))
            med = i;
    int cold_effective = !(o->cold && resident_max > RUN_COLD_THRESHOLD);
    struct run_fig *fm = &figs[med];
    double us_med = us[med], mb_med = mb[med];
    double storage_per_blob = blobs_all ? (double)storage_all / (double)blobs_all : 0;

    if (r) {
        r->kind = kind;
        r->max_id = max_id;
        r->count = fm->count;
        r->misses = fm->misses;
        r->bytes = fm->bytes;
        r->seconds = fm->seconds;
        r->us_per_blob = us_med;
        r->us_min = us_spread[0], r->us_max = us_spread[2];
        r->mb_per_s = mb_med;
        r->mb_min = mb_spread[0], r->mb_max = mb_spread[2];
        r->resident_max = resident_max;
        r->cold_effective = o->cold ? cold_effective : 0;
        r->latency = merged;
    }

    if (!o->quiet) {
        struct run_summary sm = {
            .o = o, .kind = kind, .is_db = is_db, .max_id = max_id, .page_size = page_size,
            .cache_size = cache_size, .threads = threads, .nruns = nruns, .med = med,
            .figs = figs, .us = us, .mb = mb, .resident_max = resident_max,
            .storage_per_blob = storage_per_blob, .cold_effective = cold_effective,
            .io_sum = io_sum, .merged = merged, .vs = vs, .checked_after = checked_after,
            .unver_after = unver_after};
        memcpy(sm.us_spread, us_spread, sizeof us_spread);
        memcpy(sm.mb_spread, mb_spread, sizeof mb_spread);
        ret = run_emit(&sm, cmd);
    }
    fflush(stdout);
    free(us), free(mb);
out:
    if (ws)
        for (int64_t t = 0; t < threads; t++)
            hist_free(ws[t].h);
    free(ws);
    free(figs);
    free(c.keys);
    if (!r || ret != 0) {
        hist_free(merged);
        if (r)
            r->latency = NULL;
    }
    return ret;
}

int cmd_run(int argc, char **argv)
{
    struct run_opts o;
    run_defaults(&o);
    int order = -1;
    double zipf = 0;
    int64_t seed = 1;
    const char *fadvise = NULL;
    int nolat = 0;
    const char *cache_size = NULL;
    const char *keys_out = NULL;
    const struct cli_opt opts[] = {
        {"count", CLI_INT, &o.count, 1, INT64_MAX / 4, 0, 0},
        {"max-id", CLI_INT, &o.max_id, 1, INT64_MAX / 4, 0, 0},
        {"start", CLI_INT, &o.start, 1, INT64_MAX / 4, 0, 0},
        {"asc", CLI_SET, &order, ORDER_ASC, 0, 0, 0},
        {"desc", CLI_SET, &order, ORDER_DESC, 0, 0, 0},
        {"random", CLI_SET, &order, ORDER_RANDOM, 0, 0, 0},
        {"zipf", CLI_DOUBLE, &zipf, 0, 0, 1e-9, 100},
        {"seed", CLI_INT, &seed, 0, INT64_MAX, 0, 0},
        {"blob-api", CLI_FLAG, &o.blob_api, 0, 0, 0, 0},
        {"cache-size", CLI_STR, &cache_size, 0, 0, 0, 0},
        {"mmap", CLI_INT, &o.mmap, 0, INT64_MAX / 2, 0, 0},
        {"jmode", CLI_STR, &o.jmode, 0, 0, 0, 0},
        {"nosync", CLI_FLAG, &o.nosync, 0, 0, 0, 0},
        {"synchronous", CLI_STR, &o.synchronous, 0, 0, 0, 0},
        {"fsync", CLI_FLAG, &o.fsync, 0, 0, 0, 0},
        {"nocheckpoint", CLI_FLAG, &o.nocheckpoint, 0, 0, 0, 0},
        {"multitrans", CLI_FLAG, &o.multitrans, 0, 0, 0, 0},
        {"update", CLI_FLAG, &o.update, 0, 0, 0, 0},
        {"integrity-check", CLI_FLAG, &o.integrity_check, 0, 0, 0, 0},
        {"stats", CLI_FLAG, &o.stats, 0, 0, 0, 0},
        {"repeat", CLI_INT, &o.repeat, 1, 10000, 0, 0},
        {"warmup", CLI_INT, &o.warmup, 0, 10000, 0, 0},
        {"cold", CLI_FLAG, &o.cold, 0, 0, 0, 0},
        {"fadvise", CLI_STR, &fadvise, 0, 0, 0, 0},
        {"threads", CLI_INT, &o.threads, 1, 256, 0, 0},
        {"verify", CLI_FLAG, &o.verify, 0, 0, 0, 0},
        {"no-latency", CLI_FLAG, &nolat, 0, 0, 0, 0},
        {"json", CLI_FLAG, &o.json, 0, 0, 0, 0},
        {"keys-out", CLI_STR, &keys_out, 0, 0, 0, 0},   /* test hook, not in the help */
    };
    const char *pos[1];
    int npos;
    int rc = cli_parse("run", argc, argv, opts, (int)(sizeof opts / sizeof opts[0]), pos, 1, &npos);
    if (rc)
        return rc;
    if (npos < 1)
        return cli_usage("run", "missing PATH (usage: kvtest run PATH [options])");
    o.path = pos[0];
    o.seed = (uint64_t)seed;
    if (cache_size) {
        /* Negative means KiB to SQLite (PRAGMA cache_size=-N), and SQLite's
         * kvtest passes the number through, so a sign is allowed here only. */
        int neg = cache_size[0] == '-';
        int64_t v;
        if (units_parse_int(cache_size + neg, &v) != 0 || v > 1000000000LL)
            return cli_usage("run", "invalid number for --cache-size: '%s' (pages, or -KiB)",
                             cache_size);
        o.cache_size = neg ? -v : v;
    }
    o.latency = !nolat;
    if (zipf > 0) {
        if (order >= 0)
            return cli_usage("run", "options --zipf and --%s conflict", run_order_name(order));
        o.order = ORDER_ZIPF;
        o.zipf = zipf;
    } else if (order >= 0) {
        o.order = (enum order_kind)order;
    }
    if (fadvise) {
        if (strcmp(fadvise, "random") == 0)
            o.fadvise = 1;
        else if (strcmp(fadvise, "normal") == 0)
            o.fadvise = 0;
        else
            return cli_usage("run", "--fadvise must be random or normal, got '%s'", fadvise);
    }
    o.keys_out = keys_out;
    /* SQLite's memory statistics take one global mutex on every allocation,
     * which serialises concurrent readers (--threads); only --stats reads
     * them. Must precede SQLite's initialisation, which nothing above does. */
    sqlite3_config(SQLITE_CONFIG_MEMSTATUS, o.stats ? 1 : 0);
    return run_measure(&o, NULL, "run");
}
