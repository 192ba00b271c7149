/* bench: the bench of "kvtest shortener bench DBFILE" (its options and
 * help: shortener/cli/shortener_bench.c), link lookups in-process, through
 * exactly the function the service calls (cache_lookup(), with a Valkey
 * cache or without), so storage is measured with no HTTP in the way.
 *
 * Configurations: sqlite (default page cache), sqlite-nocache
 * (cache_size=0, temp_store=0), valkey (cache-aside over sqlite),
 * valkey-nocache (over sqlite-nocache), valkey-track and
 * valkey-track-nocache (the same with client-side caching, track.h), and
 * with --compare-db a row sqlite-<schema> for a second database with the
 * same links (init --from) in another schema. Every configuration runs in every
 * repetition, in an order rotated per repetition, so drift of this shared
 * machine hits them alike. Connections stay open across repetitions (one
 * per configuration and thread), so warm means warm; --cold reopens them
 * and evicts the database file from the OS page cache before each run.
 *
 * --json prints one object (scripts/study/tables.sh reads it; add fields, never
 * rename them):
 *   {"command": "shortener bench", "cmdline", "path", "env",
 *    "options": {"configs": [...], "cache", "lookups", "threads", "zipf",
 *                "miss", "repeat", "warmup", "cold", "seed"},
 *    "result": {"links", "configs": [{"config", "sqlite_cache", "valkey",
 *               "lookups_per_s" (median run), "ratio_to_sqlite",
 *               "lookups_per_s_spread": {"min","median","max","ci_lo","ci_hi",
 *                 "ci_covered","n"} (the median's 95% interval over the n
 *                 rounds, stats_median_ci; ci_covered false below 6 rounds,
 *                 where it is [min, max]),
 *               "runs": [{"seconds", "lookups_per_s"}],
 *               "latency": report_hist_json() in us, all measured runs,
 *               "hit_ratio" (null without Valkey),
 *               "cache": {"hits","misses","errors","skipped", "local_hits",
 *                         "invalidations","local_flushes","local_evictions",
 *                         with valkey-cluster:// also "moved","ask",
 *                         "map_refreshes","nodes": {"HOST:PORT": {"lookups"}}}
 *                        (Valkey only), "local_hit_ratio" (tracking only),
 *               "schema", "path",
 *               "cold": {"method","resident_fraction","effective"} (--cold),
 *               "wrong_answers", "sqlite_errors"}],
 *               "break_even": null or {"statement", "cache_hit_us",
 *                 "cache_hit_ratio", "sqlite_us", "sqlite_state" (warm|cold),
 *                 "sqlite_warm_us", "sqlite_cold_us" (null when not measured
 *                 in this run), "pays_off", "track_us", "track_local_hit_ratio"}}}
 *   options also has "compare_db", "track_size" and "cache_timeout_ms". */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/errbuf.h"
#include "measure/coldcache.h"
#include "shortener/bench/bench.h"
#include "shortener/bench/bench_mem.h"
#include "shortener/bench/bench_out.h"
#include "shortener/bench/bench_run.h"

/* Everything one invocation holds: freed by bench_free. */
struct bench_state {
    struct bench b;
    char *ids;
    int conf[BENCH_MAXCONF], nconf;
    struct bench_slot *slots;    /* nconf * threads */
    struct bench_result *res;    /* nconf */
    char err[512];               /* what the calls below report into */
    char *why;                   /* the caller's buffer for the reason */
    size_t whycap;
};

/* The reason the bench stops, into the caller's buffer (often built from
 * st->err, which is why that is another buffer); returns rc, ERRBUF_FAIL
 * or ERRBUF_MISUSE, for the command to print and map to its exit status. */
static int bench_stop(struct bench_state *st, int rc, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int bench_stop(struct bench_state *st, int rc, const char *fmt, ...)
{
    if (st->why && st->whycap) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(st->why, st->whycap, fmt, ap);
        va_end(ap);
    }
    return rc;
}

static void bench_free(struct bench_state *st)
{
    int64_t T = st->b.o->threads;
    for (int i = 0; st->slots && i < st->nconf; i++)
        for (int64_t t = 0; t < T; t++) {
            struct bench_slot *s = &st->slots[i * T + t];
            links_close(s->l);
            cache_close(s->c);
            hist_free(s->h);
        }
    for (int i = 0; st->res && i < st->nconf; i++)
        hist_free(st->res[i].h);
    free(st->slots);
    free(st->res);
    free(st->ids);
}

/* The ids to look up: every link in the database. 0 or bench_stop's. */
static int bench_load_ids(struct bench_state *st)
{
    const struct bench_opts *o = st->b.o;
    struct links_store s0 = o->store;   /* the ids, from the primary alone */
    s0.opts = (struct links_opts){.sqlite_cache = 1};
    struct links *l0 = links_open_store(&s0, st->err, sizeof(st->err));
    if (!l0)
        return bench_stop(st, ERRBUF_FAIL, "%s", st->err);
    if (links_ids(l0, 0, &st->ids, &st->b.nids) != 0) {
        int rc = bench_stop(st, ERRBUF_FAIL, "%s: %s", o->store.shown, links_errmsg(l0));
        links_close(l0);
        return rc;
    }
    snprintf(st->b.schema, sizeof(st->b.schema), "%s", links_schema_name(links_schema_of(l0)));
    links_close(l0);
    st->b.ids = st->ids;
    if (o->compare.text) {
        struct links *l2 = links_open_store(&o->compare, st->err, sizeof(st->err));
        if (!l2)
            return bench_stop(st, ERRBUF_FAIL, "--compare-db: %s", st->err);
        if (links_kind_of(l2) == LINKS_KIND_POSTGRES)
            snprintf(st->b.compare_name, sizeof(st->b.compare_name), "postgres");
        else
            snprintf(st->b.compare_name, sizeof(st->b.compare_name), "sqlite-%s",
                     links_schema_name(links_schema_of(l2)));
        links_close(l2);
    }
    if (st->b.nids == 0 && o->miss < 1)
        return bench_stop(st, ERRBUF_FAIL, "%s: no links to look up (kvtest shortener init %s "
                          "--links N --force makes some)", o->store.shown, o->store.shown);
    if (st->b.nids > 0 && keypick_init(&st->b.pick, (uint64_t)st->b.nids, o->zipf) != 0)
        return bench_stop(st, ERRBUF_MISUSE, "invalid --zipf %g", o->zipf);
    return 0;
}

/* Connections of every configuration and thread. 0 or bench_stop's. */
static int bench_open(struct bench_state *st)
{
    const struct bench_opts *o = st->b.o;
    int64_t T = o->threads;
    st->slots = calloc((size_t)(st->nconf * T), sizeof(*st->slots));
    st->res = calloc((size_t)st->nconf, sizeof(*st->res));
    if (!st->slots || !st->res)
        return bench_stop(st, ERRBUF_FAIL, "out of memory");
    for (int i = 0; i < st->nconf; i++) {
        st->res[i].h = hist_new();
        if (!st->res[i].h)
            return bench_stop(st, ERRBUF_FAIL, "out of memory");
        for (int64_t t = 0; t < T; t++) {
            struct bench_slot *s = &st->slots[i * T + t];
            /* Same seed, same stream per thread for every configuration:
             * each is asked for exactly the same ids in the same order. */
            rng_seed(&s->rng, rng_mix((uint64_t)o->seed, (uint64_t)t + 1));
            s->h = hist_new();
            if (!s->h || bench_slot_open(&st->b, st->conf[i], s, st->err, sizeof(st->err)) != 0)
                return bench_stop(st, ERRBUF_FAIL, "%s", s->h ? st->err : "out of memory");
        }
        if (bench_conf_valkey(st->conf[i]) &&
            cache_ping(st->slots[i * T].c, st->err, sizeof(st->err)) != 0)
            return bench_stop(st, ERRBUF_FAIL, "Valkey at %s: %s", o->cache_url, st->err);
    }
    return 0;
}

/* --cold: close configuration i's connections, evict the database, note
 * how much stayed resident, reopen. 0 or bench_stop's. */
static int bench_make_cold(struct bench_state *st, int i, int measure)
{
    int64_t T = st->b.o->threads;
    struct bench_slot *ss = &st->slots[i * T];
    for (int64_t t = 0; t < T; t++) {
        links_close(ss[t].l);
        ss[t].l = NULL;
    }
    struct coldcache_set cset = {
        .path = st->conf[i] == BENCH_CONF_COMPARE ? st->b.o->compare.sqlite_file
                                                  : st->b.o->store.sqlite_file,
        .is_db = 1};
    struct coldcache_stat cs;
    if (coldcache_evict(&cset, &cs, st->err, sizeof st->err) != 0)
        return bench_stop(st, ERRBUF_FAIL, "--cold: %s", st->err);
    if (measure) {
        if (cs.resident > st->res[i].resident_max)
            st->res[i].resident_max = cs.resident;
        st->res[i].pages = cs.pages;
    }
    for (int64_t t = 0; t < T; t++)
        if (bench_slot_open(&st->b, st->conf[i], &ss[t], st->err, sizeof(st->err)) != 0)
            return bench_stop(st, ERRBUF_FAIL, "%s", st->err);
    return 0;
}

/* Every run of every configuration, the order rotated per repetition.
 * 0 or bench_stop's. */
static int bench_measure(struct bench_state *st)
{
    const struct bench_opts *o = st->b.o;
    int64_t T = o->threads, runs = o->warmup + o->repeat;
    int progress = isatty(STDERR_FILENO);
    for (int64_t r = 0; r < runs; r++) {
        int measure = r >= o->warmup;
        int64_t m = r - o->warmup;
        for (int k = 0; k < st->nconf; k++) {
            int i = (int)((k + r) % st->nconf);
            struct bench_slot *ss = &st->slots[i * T];
            /* Start from the same stream each run: the same ids every time. */
            for (int64_t t = 0; t < T; t++)
                rng_seed(&ss[t].rng, rng_mix((uint64_t)o->seed, (uint64_t)t + 1));
            int rc = o->cold ? bench_make_cold(st, i, measure) : 0;
            if (rc)
                return rc;
            if (measure && m == 0)
                for (int64_t t = 0; t < T; t++)
                    cache_stats_add(ss[t].c, &st->res[i].before);
            if (progress)
                fprintf(stderr, "\r%s run %lld/%lld%s        ", bench_conf_name(&st->b, st->conf[i]),
                        (long long)(r + 1), (long long)runs, measure ? "" : " (warm-up)");
            double secs = bench_conf_run(&st->b, ss, measure);
            if (secs < 0)
                return bench_stop(st, ERRBUF_FAIL, "cannot start %lld threads", (long long)T);
            if (measure) {
                st->res[i].secs[m] = secs;
                st->res[i].rate[m] = secs > 0 ? (double)o->lookups / secs : 0;
            }
        }
    }
    if (progress)
        fprintf(stderr, "\r%60s\r", "");
    return 0;
}

/* Merge the threads' figures into one result per configuration. */
static void bench_collect(struct bench_state *st)
{
    int64_t T = st->b.o->threads;
    for (int i = 0; i < st->nconf; i++) {
        struct bench_result *r = &st->res[i];
        for (int64_t t = 0; t < T; t++) {
            struct bench_slot *s = &st->slots[i * T + t];
            hist_merge(r->h, s->h);
            cache_stats_add(s->c, &r->after);
            r->wrong += s->wrong;
            r->errors += s->errors;
            if (!r->first_problem[0] && s->first_problem[0])
                memcpy(r->first_problem, s->first_problem, sizeof(s->first_problem));
        }
        double frac = r->pages > 0 ? (double)r->resident_max / (double)r->pages : 0;
        r->cold_effective = coldcache_is_cold(frac);
    }
}

int bench_main(const struct bench *b, const int *conf, int nconf, char *err, size_t errcap)
{
    const struct bench_opts *o = b->o;
    struct bench_state st;
    memset(&st, 0, sizeof(st));
    st.b = *b;
    memcpy(st.conf, conf, (size_t)nconf * sizeof(*conf));
    st.nconf = nconf;
    st.why = err, st.whycap = errcap;
    int rc;
    /* The ids are the harness's list of what to ask for, like a load
     * generator's outside the service: read before the limit, so the
     * limit is the lookups' alone. */
    int mem_h = -1;
    if ((rc = bench_mem_check(o, err, errcap)) != 0)
        return rc;
    if ((rc = bench_load_ids(&st)) != 0 || (rc = bench_mem_enter(o, &mem_h, err, errcap)) != 0 ||
        (rc = bench_open(&st)) != 0 || (rc = bench_measure(&st)) != 0)
        goto out;
    bench_collect(&st);
    bench_mem_note(&st.b);
    if (o->out.json) {
        if (bench_print_json(&st.b, st.conf, st.nconf, st.res) != 0) {
            rc = bench_stop(&st, ERRBUF_FAIL, "out of memory");
            goto out;
        }
    } else {
        bench_print_text(&st.b, st.conf, st.nconf, st.res);
    }
    fflush(stdout);
    for (int i = 0; i < st.nconf; i++)
        if (st.res[i].wrong || st.res[i].errors) {
            rc = bench_stop(&st, ERRBUF_FAIL, "%s: %llu wrong answers, %llu SQLite errors "
                            "(first: %s)", bench_conf_name(&st.b, st.conf[i]),
                            (unsigned long long)st.res[i].wrong,
                            (unsigned long long)st.res[i].errors, st.res[i].first_problem);
            break;
        }
out:
    bench_free(&st);
    return bench_mem_leave(o, mem_h, rc, err, errcap);
}
