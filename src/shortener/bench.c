/* bench: "kvtest shortener bench DBFILE", link lookups in-process, through
 * exactly the function the service calls (cache_lookup(), with a Valkey
 * cache or without), so storage is measured with no HTTP in the way.
 *
 * Configurations: sqlite (default page cache), sqlite-nocache
 * (cache_size=0, temp_store=0), valkey (cache-aside over sqlite) and
 * valkey-nocache (over sqlite-nocache). Every configuration runs in every
 * repetition, in an order rotated per repetition, so drift of this shared
 * machine hits them alike. Connections stay open across repetitions (one
 * per configuration and thread), so warm means warm; --cold reopens them
 * and evicts the database file from the OS page cache before each run.
 *
 * --json prints one object (scripts/tables.sh reads it; add fields, never
 * rename them):
 *   {"command": "shortener bench", "cmdline", "path", "env",
 *    "options": {"configs": [...], "cache", "lookups", "threads", "zipf",
 *                "miss", "repeat", "warmup", "cold", "seed"},
 *    "result": {"links", "configs": [{"config", "sqlite_cache", "valkey",
 *               "lookups_per_s" (median run), "ratio_to_sqlite",
 *               "lookups_per_s_spread": {"min","median","max"},
 *               "runs": [{"seconds", "lookups_per_s"}],
 *               "latency": report_hist_json() in us, all measured runs,
 *               "hit_ratio" (null without Valkey),
 *               "cache": {"hits","misses","errors","skipped"} (Valkey only),
 *               "cold": {"method","resident_fraction","effective"} (--cold),
 *               "wrong_answers", "sqlite_errors"}]}} */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cjson/cJSON.h>

#include "base/cli.h"
#include "measure/clock.h"
#include "measure/coldcache.h"
#include "measure/hist.h"
#include "measure/report.h"
#include "measure/rng.h"
#include "shortener/cache.h"
#include "shortener/links.h"
#include "shortener/loadmix.h"
#include "shortener/shortener_cmds.h"

#define CMD "shortener bench"
#define MAXCONF 4
#define MISS_ID_LEN (LINKS_ID_LEN + 1)   /* longer than any id we create */

const char help_shortener_bench[] =
    "Usage: kvtest shortener bench DBFILE [options]\n"
    "\n"
    "Time link lookups in-process through the service's own lookup code\n"
    "(cache_lookup), without HTTP, for each configuration:\n"
    "  sqlite           SQLite with its default page cache\n"
    "  sqlite-nocache   PRAGMA cache_size=0, temp_store=0\n"
    "  valkey           Valkey cache-aside in front of sqlite\n"
    "  valkey-nocache   Valkey cache-aside in front of sqlite-nocache\n"
    "\n"
    "  --configs LIST     comma-separated, or all (default: all with --cache,\n"
    "                     else sqlite,sqlite-nocache)\n"
    "  --cache URL        valkey://HOST:PORT[/DB] for the valkey configurations\n"
    "  --lookups N        lookups per configuration and run (default 20000)\n"
    "  --threads T        threads sharing those lookups, each with its own\n"
    "                     connections (default 1)\n"
    "  --zipf S           Zipf-distributed ids with exponent S (default uniform)\n"
    "  --miss P           share of lookups for ids that do not exist (default 0)\n"
    "  --repeat R         measured runs per configuration (default 3)\n"
    "  --warmup W         discarded runs first (default 1; they also fill Valkey)\n"
    "  --cold             before each run reopen the SQLite connections and evict\n"
    "                     DBFILE from the OS page cache (Valkey is left as is)\n"
    "  --seed N           seed of the id sequence (default 1)\n"
    "  --json             one JSON object with options, environment and results\n"
    "\n"
    "One row per configuration: lookups/s (median run), latency percentiles in\n"
    "microseconds (all measured runs), cache hit ratio, and lookups/s relative\n"
    "to the sqlite row. Ids come from DBFILE; every answer is checked (an\n"
    "existing id must be found, a missing one must not).\n";

enum conf { CONF_SQLITE, CONF_SQLITE_NOCACHE, CONF_VALKEY, CONF_VALKEY_NOCACHE };
static const char *const conf_names[MAXCONF] = {
    "sqlite", "sqlite-nocache", "valkey", "valkey-nocache",
};
static int conf_sqlite_cache(int c) { return c == CONF_SQLITE || c == CONF_VALKEY; }
static int conf_valkey(int c) { return c == CONF_VALKEY || c == CONF_VALKEY_NOCACHE; }

struct bench_opts {
    const char *path, *configs, *cache_url;
    int64_t lookups, threads, repeat, warmup, seed;
    double zipf, miss;
    int cold, json;
};

/* One thread's connections for one configuration, kept across runs. */
struct slot {
    struct links *l;
    struct cache *c;
    struct hist *h;          /* measured runs only */
    rng_t rng;
    /* per run */
    int64_t n;
    int measure;
    uint64_t t0, t1;
    uint64_t wrong, errors;
    char first_problem[300];
};

struct bench {
    const struct bench_opts *o;
    const char *ids;         /* links_ids records of LINKS_ID_MAX + 1 bytes */
    int64_t nids;
    struct loadpick pick;
    struct cache_config ccfg;
};

static void slot_run(const struct bench *b, struct slot *s)
{
    char url[LINKS_URL_MAX + 1];
    static const char alnum[] =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    char miss_id[MISS_ID_LEN + 1];
    s->t0 = clock_now_ns();
    for (int64_t i = 0; i < s->n; i++) {
        const char *id;
        size_t idlen;
        int want_miss = b->o->miss > 0 && rng_double(&s->rng) < b->o->miss;
        if (want_miss) {
            for (int k = 0; k < MISS_ID_LEN; k++)
                miss_id[k] = alnum[rng_below(&s->rng, sizeof(alnum) - 1)];
            miss_id[MISS_ID_LEN] = '\0';
            id = miss_id;
            idlen = MISS_ID_LEN;
        } else {
            id = b->ids + loadpick_next(&b->pick, &s->rng) * (LINKS_ID_MAX + 1);
            idlen = strlen(id);
        }
        size_t ulen;
        uint64_t a = clock_now_ns();
        enum links_rc rc = cache_lookup(s->c, s->l, id, idlen, url, sizeof(url), &ulen);
        uint64_t z = clock_now_ns();
        if (s->measure)
            hist_record(s->h, z - a);
        if (rc == LINKS_ERROR) {
            if (s->errors++ == 0)
                snprintf(s->first_problem, sizeof(s->first_problem), "lookup of %s: %s", id,
                         links_errmsg(s->l));
        } else if ((rc == LINKS_OK) == want_miss) {
            if (s->wrong++ == 0)
                snprintf(s->first_problem, sizeof(s->first_problem), "lookup of %s id %s: %s",
                         want_miss ? "missing" : "existing", id,
                         rc == LINKS_OK ? "found" : "not found");
        }
    }
    s->t1 = clock_now_ns();
}

/* Threads start together on a gate, so the wall time of a run spans the
 * lookups, not thread creation. */
struct gate {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int open;
};

struct thread_arg {
    const struct bench *b;
    struct slot *s;
    struct gate *g;
};

static void *thread_main(void *p)
{
    struct thread_arg *a = p;
    pthread_mutex_lock(&a->g->mu);
    while (!a->g->open)
        pthread_cond_wait(&a->g->cv, &a->g->mu);
    pthread_mutex_unlock(&a->g->mu);
    slot_run(a->b, a->s);
    return NULL;
}

/* One run of one configuration over all threads. Returns wall seconds, or
 * a negative value if threads could not be started. */
static double conf_run(const struct bench *b, struct slot *slots, int measure)
{
    int64_t T = b->o->threads;
    for (int64_t t = 0; t < T; t++) {
        slots[t].n = b->o->lookups / T + (t < b->o->lookups % T ? 1 : 0);
        slots[t].measure = measure;
    }
    if (T == 1) {
        slot_run(b, &slots[0]);
        return (double)(slots[0].t1 - slots[0].t0) / 1e9;
    }
    pthread_t th[T];
    struct thread_arg args[T];
    struct gate g = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0};
    int64_t made = 0;
    for (; made < T; made++) {
        args[made] = (struct thread_arg){b, &slots[made], &g};
        if (pthread_create(&th[made], NULL, thread_main, &args[made]) != 0)
            break;
    }
    if (made < T)   /* the started ones run no lookups and are joined */
        for (int64_t t = 0; t < T; t++)
            slots[t].n = 0;
    pthread_mutex_lock(&g.mu);
    g.open = 1;
    pthread_cond_broadcast(&g.cv);
    pthread_mutex_unlock(&g.mu);
    for (int64_t t = 0; t < made; t++)
        pthread_join(th[t], NULL);
    if (made < T)
        return -1;
    uint64_t t0 = slots[0].t0, t1 = slots[0].t1;
    for (int64_t t = 1; t < T; t++) {
        if (slots[t].t0 < t0)
            t0 = slots[t].t0;
        if (slots[t].t1 > t1)
            t1 = slots[t].t1;
    }
    return (double)(t1 - t0) / 1e9;
}

static int slot_open(const struct bench *b, int conf, struct slot *s, char *err, size_t cap)
{
    s->l = links_open(b->o->path, conf_sqlite_cache(conf), err, cap);
    if (!s->l)
        return -1;
    if (conf_valkey(conf) && !s->c) {
        s->c = cache_open(&b->ccfg);
        if (!s->c) {
            snprintf(err, cap, "out of memory");
            return -1;
        }
    }
    return 0;
}

static int parse_configs(const char *list, int *conf, int *nconf)
{
    *nconf = 0;
    if (strcmp(list, "all") == 0) {
        for (int c = 0; c < MAXCONF; c++)
            conf[(*nconf)++] = c;
        return 0;
    }
    const char *p = list;
    while (*p) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        int found = -1;
        for (int c = 0; c < MAXCONF; c++)
            if (strlen(conf_names[c]) == len && strncmp(conf_names[c], p, len) == 0)
                found = c;
        if (found < 0)
            return -1;
        for (int i = 0; i < *nconf; i++)
            if (conf[i] == found)
                return -1;
        conf[(*nconf)++] = found;
        p = e ? e + 1 : p + len;
        if (e && !*p)
            return -1;
    }
    return *nconf ? 0 : -1;
}

struct conf_result {
    double rate[1024];         /* lookups/s per measured run */
    double secs[1024];
    struct hist *h;
    struct cache_stats before, after;
    uint64_t wrong, errors;
    char first_problem[300];
    struct coldcache_stat cold;
    int64_t resident_max;
    int64_t pages;
};

static double median_of(const double *v, int n)
{
    double tmp[1024];
    memcpy(tmp, v, (size_t)n * sizeof(*v));
    return report_median(tmp, n);
}

static double hit_ratio(const struct conf_result *r, int *valid)
{
    double hits = (double)(r->after.hits - r->before.hits);
    double all = hits + (double)(r->after.misses - r->before.misses) +
                 (double)(r->after.errors - r->before.errors) +
                 (double)(r->after.skipped - r->before.skipped);
    *valid = all > 0;
    return all > 0 ? hits / all : 0.0;
}

int shortener_bench(int argc, char **argv)
{
    struct bench_opts o = {
        .lookups = 20000, .threads = 1, .repeat = 3, .warmup = 1, .seed = 1,
    };
    const struct cli_opt opts[] = {
        {"configs", CLI_STR, &o.configs, 0, 0, 0, 0},
        {"cache", CLI_STR, &o.cache_url, 0, 0, 0, 0},
        {"lookups", CLI_INT, &o.lookups, 1, 1000000000000LL, 0, 0},
        {"threads", CLI_INT, &o.threads, 1, 256, 0, 0},
        {"zipf", CLI_DOUBLE, &o.zipf, 0, 0, 0, 100},
        {"miss", CLI_DOUBLE, &o.miss, 0, 0, 0, 1},
        {"repeat", CLI_INT, &o.repeat, 1, 1000, 0, 0},
        {"warmup", CLI_INT, &o.warmup, 0, 1000, 0, 0},
        {"cold", CLI_FLAG, &o.cold, 0, 0, 0, 0},
        {"seed", CLI_INT, &o.seed, 0, INT64_MAX, 0, 0},
        {"json", CLI_FLAG, &o.json, 0, 0, 0, 0},
    };
    const char *pos[1];
    int npos;
    int rc = cli_parse(CMD, argc, argv, opts, (int)(sizeof(opts) / sizeof(opts[0])), pos, 1,
                       &npos);
    if (rc)
        return rc;
    if (npos != 1)
        return cli_usage(CMD, "missing DBFILE");
    o.path = pos[0];
    if (o.lookups < o.threads)
        return cli_usage(CMD, "--lookups (%lld) must be at least --threads (%lld)",
                         (long long)o.lookups, (long long)o.threads);
    if (o.cache_url && strcmp(o.cache_url, "none") == 0)
        o.cache_url = NULL;
    int conf[MAXCONF], nconf;
    const char *list = o.configs ? o.configs : o.cache_url ? "all" : "sqlite,sqlite-nocache";
    if (parse_configs(list, conf, &nconf) != 0)
        return cli_usage(CMD, "invalid --configs '%s' (comma-separated: sqlite, "
                         "sqlite-nocache, valkey, valkey-nocache; or all)", list);
    int need_valkey = 0;
    for (int i = 0; i < nconf; i++)
        need_valkey |= conf_valkey(conf[i]);

    struct bench b;
    memset(&b, 0, sizeof(b));
    b.o = &o;
    char err[512];
    if (need_valkey) {
        if (!o.cache_url)
            return cli_usage(CMD, "the valkey configurations need --cache valkey://HOST:PORT");
        if (cache_parse_url(o.cache_url, &b.ccfg, err, sizeof(err)) != 0)
            return cli_usage(CMD, "--cache: %s", err);
    }
    /* hiredis writes with write(2): a Valkey that goes away must give an
     * error to count, not a SIGPIPE that kills the benchmark. */
    signal(SIGPIPE, SIG_IGN);

    /* The ids to look up: every link in the database. */
    struct links *l0 = links_open(o.path, 1, err, sizeof(err));
    if (!l0)
        return cli_fail(CMD, "%s", err);
    char *ids = NULL;
    if (links_ids(l0, 0, &ids, &b.nids) != 0) {
        rc = cli_fail(CMD, "%s: %s", o.path, links_errmsg(l0));
        links_close(l0);
        return rc;
    }
    links_close(l0);
    b.ids = ids;
    if (b.nids == 0 && o.miss < 1) {
        free(ids);
        return cli_fail(CMD, "%s: no links to look up (kvtest shortener init %s --links N "
                        "--force makes some)", o.path, o.path);
    }
    if (b.nids > 0 && loadpick_init(&b.pick, (uint64_t)b.nids, o.zipf) != 0) {
        free(ids);
        return cli_usage(CMD, "invalid --zipf %g", o.zipf);
    }

    int64_t T = o.threads;
    struct slot *slots = calloc((size_t)(nconf * T), sizeof(*slots));
    struct conf_result *res = calloc((size_t)nconf, sizeof(*res));
    rc = 0;
    if (!slots || !res) {
        rc = cli_fail(CMD, "out of memory");
        goto out;
    }
    for (int i = 0; i < nconf; i++) {
        res[i].h = hist_new();
        if (!res[i].h) {
            rc = cli_fail(CMD, "out of memory");
            goto out;
        }
        for (int64_t t = 0; t < T; t++) {
            struct slot *s = &slots[i * T + t];
            /* Same seed, same stream per thread for every configuration:
             * each is asked for exactly the same ids in the same order. */
            rng_seed(&s->rng, rng_mix((uint64_t)o.seed, (uint64_t)t + 1));
            s->h = hist_new();
            if (!s->h || slot_open(&b, conf[i], s, err, sizeof(err)) != 0) {
                rc = cli_fail(CMD, "%s", s->h ? err : "out of memory");
                goto out;
            }
        }
        if (conf_valkey(conf[i]) && cache_ping(slots[i * T].c, err, sizeof(err)) != 0) {
            rc = cli_fail(CMD, "Valkey at %s: %s", o.cache_url, err);
            goto out;
        }
    }

    struct coldcache_set cset = {.path = o.path, .is_db = 1};
    int64_t runs = o.warmup + o.repeat;
    int progress = isatty(STDERR_FILENO);
    for (int64_t r = 0; r < runs; r++) {
        int measure = r >= o.warmup;
        int64_t m = r - o.warmup;
        for (int k = 0; k < nconf; k++) {
            int i = (int)((k + r) % nconf);   /* rotate the order per repetition */
            struct slot *ss = &slots[i * T];
            /* Start from the same stream each run: the same ids every time. */
            for (int64_t t = 0; t < T; t++)
                rng_seed(&ss[t].rng, rng_mix((uint64_t)o.seed, (uint64_t)t + 1));
            if (o.cold) {
                for (int64_t t = 0; t < T; t++) {
                    links_close(ss[t].l);
                    ss[t].l = NULL;
                }
                struct coldcache_stat st;
                if (coldcache_evict(&cset, &st, err, (int)sizeof(err)) != 0) {
                    rc = cli_fail(CMD, "--cold: %s", err);
                    goto out;
                }
                if (measure) {
                    if (st.resident > res[i].resident_max)
                        res[i].resident_max = st.resident;
                    res[i].pages = st.pages;
                }
                for (int64_t t = 0; t < T; t++)
                    if (slot_open(&b, conf[i], &ss[t], err, sizeof(err)) != 0) {
                        rc = cli_fail(CMD, "%s", err);
                        goto out;
                    }
            }
            if (measure && m == 0)
                for (int64_t t = 0; t < T; t++) {
                    struct cache_stats cs;
                    cache_stats(ss[t].c, &cs);
                    res[i].before.hits += cs.hits;
                    res[i].before.misses += cs.misses;
                    res[i].before.errors += cs.errors;
                    res[i].before.skipped += cs.skipped;
                }
            if (progress)
                fprintf(stderr, "\r%s run %lld/%lld%s        ", conf_names[conf[i]],
                        (long long)(r + 1), (long long)runs, measure ? "" : " (warm-up)");
            double secs = conf_run(&b, ss, measure);
            if (secs < 0) {
                rc = cli_fail(CMD, "cannot start %lld threads", (long long)T);
                goto out;
            }
            if (measure) {
                res[i].secs[m] = secs;
                res[i].rate[m] = secs > 0 ? (double)o.lookups / secs : 0;
            }
        }
    }
    if (progress)
        fprintf(stderr, "\r%60s\r", "");

    for (int i = 0; i < nconf; i++) {
        for (int64_t t = 0; t < T; t++) {
            struct slot *s = &slots[i * T + t];
            hist_merge(res[i].h, s->h);
            struct cache_stats cs;
            cache_stats(s->c, &cs);
            res[i].after.hits += cs.hits;
            res[i].after.misses += cs.misses;
            res[i].after.errors += cs.errors;
            res[i].after.skipped += cs.skipped;
            res[i].wrong += s->wrong;
            res[i].errors += s->errors;
            if (!res[i].first_problem[0] && s->first_problem[0])
                memcpy(res[i].first_problem, s->first_problem, sizeof(s->first_problem));
        }
    }

    int base = -1;
    for (int i = 0; i < nconf; i++)
        if (conf[i] == CONF_SQLITE)
            base = i;
    double base_rate = base >= 0 ? median_of(res[base].rate, (int)o.repeat) : 0;

    if (o.json) {
        cJSON *root = report_json_new(CMD, o.path);
        if (!root) {
            rc = cli_fail(CMD, "out of memory");
            goto out;
        }
        cJSON *op = cJSON_AddObjectToObject(root, "options");
        cJSON *cl = cJSON_AddArrayToObject(op, "configs");
        for (int i = 0; i < nconf; i++)
            cJSON_AddItemToArray(cl, cJSON_CreateString(conf_names[conf[i]]));
        if (o.cache_url)
            cJSON_AddStringToObject(op, "cache", o.cache_url);
        else
            cJSON_AddNullToObject(op, "cache");
        cJSON_AddNumberToObject(op, "lookups", (double)o.lookups);
        cJSON_AddNumberToObject(op, "threads", (double)o.threads);
        cJSON_AddNumberToObject(op, "zipf", o.zipf);
        cJSON_AddNumberToObject(op, "miss", o.miss);
        cJSON_AddNumberToObject(op, "repeat", (double)o.repeat);
        cJSON_AddNumberToObject(op, "warmup", (double)o.warmup);
        cJSON_AddBoolToObject(op, "cold", o.cold);
        cJSON_AddNumberToObject(op, "seed", (double)o.seed);
        cJSON *result = cJSON_AddObjectToObject(root, "result");
        cJSON_AddNumberToObject(result, "links", (double)b.nids);
        cJSON *rows = cJSON_AddArrayToObject(result, "configs");
        for (int i = 0; i < nconf; i++) {
            cJSON *row = cJSON_CreateObject();
            cJSON_AddItemToArray(rows, row);
            cJSON_AddStringToObject(row, "config", conf_names[conf[i]]);
            cJSON_AddBoolToObject(row, "sqlite_cache", conf_sqlite_cache(conf[i]));
            cJSON_AddBoolToObject(row, "valkey", conf_valkey(conf[i]));
            double rate = median_of(res[i].rate, (int)o.repeat);
            cJSON_AddNumberToObject(row, "lookups_per_s", rate);
            if (base >= 0 && base_rate > 0)
                cJSON_AddNumberToObject(row, "ratio_to_sqlite", rate / base_rate);
            else
                cJSON_AddNullToObject(row, "ratio_to_sqlite");
            double tmp[1024];
            memcpy(tmp, res[i].rate, (size_t)o.repeat * sizeof(double));
            cJSON_AddItemToObject(row, "lookups_per_s_spread", report_spread_json(tmp, (int)o.repeat));
            cJSON *rr = cJSON_AddArrayToObject(row, "runs");
            for (int64_t m = 0; m < o.repeat; m++) {
                cJSON *x = cJSON_CreateObject();
                cJSON_AddNumberToObject(x, "seconds", res[i].secs[m]);
                cJSON_AddNumberToObject(x, "lookups_per_s", res[i].rate[m]);
                cJSON_AddItemToArray(rr, x);
            }
            cJSON_AddItemToObject(row, "latency", report_hist_json(res[i].h));
            int valid;
            double hr = hit_ratio(&res[i], &valid);
            if (valid)
                cJSON_AddNumberToObject(row, "hit_ratio", hr);
            else
                cJSON_AddNullToObject(row, "hit_ratio");
            if (conf_valkey(conf[i])) {
                cJSON *cs = cJSON_AddObjectToObject(row, "cache");
                cJSON_AddNumberToObject(cs, "hits", (double)(res[i].after.hits - res[i].before.hits));
                cJSON_AddNumberToObject(cs, "misses",
                                        (double)(res[i].after.misses - res[i].before.misses));
                cJSON_AddNumberToObject(cs, "errors",
                                        (double)(res[i].after.errors - res[i].before.errors));
                cJSON_AddNumberToObject(cs, "skipped",
                                        (double)(res[i].after.skipped - res[i].before.skipped));
            }
            if (o.cold) {
                cJSON *cj = cJSON_AddObjectToObject(row, "cold");
                cJSON_AddStringToObject(cj, "method", "posix_fadvise(POSIX_FADV_DONTNEED)");
                double frac = res[i].pages > 0 ? (double)res[i].resident_max / (double)res[i].pages : 0;
                cJSON_AddNumberToObject(cj, "resident_fraction", frac);
                cJSON_AddBoolToObject(cj, "effective", frac < 0.05);
            }
            cJSON_AddNumberToObject(row, "wrong_answers", (double)res[i].wrong);
            cJSON_AddNumberToObject(row, "sqlite_errors", (double)res[i].errors);
        }
        report_json_print(root);
    } else {
        printf("# %s\n", cli_cmdline());
        printf("%s: %lld links; %lld lookups x %lld runs per configuration (+%lld warm-up), "
               "%lld thread%s, %s ids, %.0f%% misses%s\n",
               o.path, (long long)b.nids, (long long)o.lookups, (long long)o.repeat,
               (long long)o.warmup, (long long)T, T == 1 ? "" : "s",
               o.zipf > 0 ? "zipf" : "uniform", o.miss * 100, o.cold ? ", cold" : "");
        printf("%-15s %11s %8s %8s %8s %8s %9s %9s %9s\n", "config", "lookups/s", "p50 us",
               "p90 us", "p99 us", "p99.9 us", "max us", "hit ratio", "vs sqlite");
        for (int i = 0; i < nconf; i++) {
            const struct hist *h = res[i].h;
            double rate = median_of(res[i].rate, (int)o.repeat);
            printf("%-15s %11.0f %8.1f %8.1f %8.1f %8.1f %9.1f", conf_names[conf[i]], rate,
                   hist_percentile(h, 50) / 1e3, hist_percentile(h, 90) / 1e3,
                   hist_percentile(h, 99) / 1e3, hist_percentile(h, 99.9) / 1e3,
                   hist_percentile(h, 100) / 1e3);
            int valid;
            double hr = hit_ratio(&res[i], &valid);
            if (valid)
                printf(" %9.3f", hr);
            else
                printf(" %9s", "-");
            if (base >= 0 && base_rate > 0)
                printf(" %9.2f\n", rate / base_rate);
            else
                printf(" %9s\n", "-");
        }
        if (o.cold)
            for (int i = 0; i < nconf; i++)
                if (res[i].pages > 0 && res[i].resident_max * 20 > res[i].pages)
                    cli_warn(CMD, "%s: %lld of %lld pages stayed resident after eviction; "
                             "these runs were not cold", conf_names[conf[i]],
                             (long long)res[i].resident_max, (long long)res[i].pages);
    }
    fflush(stdout);
    for (int i = 0; i < nconf; i++)
        if (res[i].wrong || res[i].errors) {
            rc = cli_fail(CMD, "%s: %llu wrong answers, %llu SQLite errors (first: %s)",
                          conf_names[conf[i]], (unsigned long long)res[i].wrong,
                          (unsigned long long)res[i].errors, res[i].first_problem);
            break;
        }

out:
    for (int i = 0; slots && i < nconf; i++)
        for (int64_t t = 0; t < T; t++) {
            struct slot *s = &slots[i * T + t];
            links_close(s->l);
            cache_close(s->c);
            hist_free(s->h);
        }
    for (int i = 0; res && i < nconf; i++)
        hist_free(res[i].h);
    free(slots);
    free(res);
    free(ids);
    return rc;
}
