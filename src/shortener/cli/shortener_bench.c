/* shortener_bench: "kvtest shortener bench DBFILE", the entry point: the
 * help, the options and the stores they name; the bench itself is
 * shortener/bench/bench.c. */
#include <signal.h>
#include <string.h>

#include "base/cli.h"
#include "measure/report.h"
#ifdef KVTEST_INJECT
#include "measure/inject.h"
#endif
#include "shortener/bench/bench.h"
#include "shortener/cli/shortener_cmds.h"
#include "shortener/cli/cache_arg.h"
#include "shortener/cli/store_arg.h"

#define CMD BENCH_CMD

const char help_shortener_bench[] =
    "Usage: kvtest shortener bench DBFILE|--store URL [options]\n"
    "\n"
    "Time link lookups in-process through the service's own lookup code\n"
    "(cache_lookup), without HTTP, for each configuration:\n"
    "  sqlite           SQLite with its default page cache\n"
    "  postgres         with --store postgres://...: the PostgreSQL store (the\n"
    "                   row --configs calls sqlite or postgres); the valkey and\n"
    "                   valkey-track rows are then in front of it\n"
    "  sqlite-nocache   PRAGMA cache_size=0, temp_store=0\n"
    "  valkey           Valkey cache-aside in front of sqlite\n"
    "  valkey-nocache   Valkey cache-aside in front of sqlite-nocache\n"
    "  valkey-track     valkey plus client-side caching: links kept in process\n"
    "                   memory, dropped on Valkey's invalidation messages\n"
    "  valkey-track-nocache  the same in front of sqlite-nocache\n"
    "  sqlite-SCHEMA    with --compare-db: sqlite on the second database\n"
    "\n"
    "  --store URL        the links store instead of DBFILE: sqlite:PATH or\n"
    "                     postgres://USER@HOST:PORT/DB (one connection per\n"
    "                     thread and configuration, prepared statements)\n"
    "  --replicas URL[,URL...]  PostgreSQL read replicas, routed as serve\n"
    "                     routes them (round-robin, the primary for a miss)\n"
    "  --configs LIST     comma-separated, or all (default with --cache\n"
    "                     valkey://: the four without tracking; with\n"
    "                     valkey+track://: all; else sqlite,sqlite-nocache)\n"
    "  --cache URL        valkey://HOST:PORT[/DB] (or valkey+track://, the same\n"
    "                     server) for the valkey configurations; or a Valkey\n"
    "                     Cluster: valkey-cluster://HOST:PORT[,HOST:PORT...]\n"
    "                     (or valkey-cluster+track://; seed nodes, the rest is\n"
    "                     discovered), which adds redirects followed and\n"
    "                     lookups per primary to the output; credentials go\n"
    "                     before the host: USER:PASSWORD@ or :PASSWORD@\n"
    "  --track-size N     links in process memory for valkey-track, shared by\n"
    "                     the threads (default 524288)\n"
    "  --cache-timeout MS Valkey connect and command timeout (default 50); a\n"
    "                     lookup that times out counts as an error\n"
    "  --compare-db DB2   add a row for DB2, a store with the same links in\n"
    "                     another schema (kvtest shortener init DB2 --schema\n"
    "                     covering --from DBFILE) or in PostgreSQL (init\n"
    "                     postgres://... --from DBFILE: a row \"postgres\");\n"
    "                     lookups use DBFILE's ids and the row's ratio is\n"
    "                     against the sqlite row\n"
    "  --lookups N        lookups per configuration and run (default 20000)\n"
    "  --threads T        threads sharing those lookups, each with its own\n"
    "                     connections (default 1)\n"
    "  --zipf S           Zipf-distributed ids with exponent S (default uniform)\n"
    "  --miss P           share of lookups for ids that do not exist (default 0)\n"
    "  --repeat R         measured runs per configuration (default 3)\n"
    "  --warmup W         discarded runs first (default 1; they also fill Valkey)\n"
    "  --cold             before each run reopen the SQLite connections and evict\n"
    "                     DBFILE from the OS page cache (Valkey is left as is;\n"
    "                     not with a PostgreSQL store, whose pages are its\n"
    "                     server's)\n"
    "  --mem-limit SIZE   run in a memory cgroup of its own limited to SIZE\n"
    "                     (4MiB at least; 32M = 32,000,000 bytes, 32MiB), which\n"
    "                     counts the page cache of DBFILE too: a database larger\n"
    "                     than SIZE is then read from storage (with --cold it\n"
    "                     also starts cold). Linux, root only; Valkey, a process\n"
    "                     of its own, stays outside the limit. The group is\n"
    "                     removed at exit. SQLite stores only\n"
    "  --seed N           seed of the id sequence (default 1)\n"
    "  --json             one JSON object with options, environment and results\n"
    "  --csv              the --json fields as CSV: one row per configuration\n"
    "                     (result.configs)\n"
    "\n"
    "One row per configuration: lookups/s (median run), latency percentiles and\n"
    "mean in microseconds (all measured runs), cache hit ratio, and lookups/s\n"
    "relative to the sqlite row. Then per configuration the median lookups/s\n"
    "with its 95% confidence interval, distribution-free (order statistics of\n"
    "the median over the --repeat rounds; below 6 rounds min-max instead).\n"
    "Ids come from DBFILE; every answer is checked (an\n"
    "existing id must be found, a missing one must not).\n"
    "After the table, with sqlite and valkey rows, one line states the cache\n"
    "break-even from this run's medians: cache-aside pays off only when a\n"
    "lookup in the store (SQLite or PostgreSQL) costs more than a cache hit\n"
    "(warm, or with --cold).\n";

/* The second store, the store options, and bench's own options that an
 * SQLite store alone can honour (for both stores). 0 or the exit status. */
static int bench_stores(struct bench_opts *o, struct store_arg *sa)
{
    const struct store_rule only[] = {
        {"cold", LINKS_KIND_SQLITE, o->cold,
         "--cold evicts an SQLite database file from the page cache; a PostgreSQL "
         "store's pages are its server's"},
        {"mem-limit", LINKS_KIND_SQLITE, o->mem_limit != 0,
         "--mem-limit evicts an SQLite database file from the page cache; a PostgreSQL "
         "store's pages are its server's"},
    };
    int rc = 0;
    if (o->compare_text && (rc = store_arg_other(CMD, o->compare_text, &o->compare)))
        return rc;
    if ((rc = store_arg_check(CMD, sa, only, CLI_COUNT(only))) ||
        (o->compare_text &&
         (rc = store_arg_rules(CMD, o->compare.kind, only, CLI_COUNT(only)))))
        return rc;
    o->store = sa->st;
    return 0;
}

/* Options into *o, the configurations into conf (*nconf of them) and the
 * cache configurations into b. 0 or the exit status. */
static int bench_parse(int argc, char **argv, struct bench_opts *o, struct store_arg *sa,
                       struct cache_arg *ca, struct bench *b, int *conf, int *nconf)
{
    const struct cli_opt opts[] = {
        STORE_ARG_STORE_OPT(sa),
        STORE_ARG_REPLICAS_OPT(sa),
        CLI_STR_OPT("configs", &o->configs),
        CACHE_ARG_URL_OPT(ca),
        CLI_PATH_OPT("compare-db", &o->compare_text),
        CACHE_ARG_TRACK_SIZE_OPT(ca),
        CACHE_ARG_TIMEOUT_OPT(ca),
        CLI_INT_OPT("lookups", &o->lookups, 1, 1000000000000LL),
        CLI_INT_OPT("threads", &o->threads, 1, 256),
        CLI_DOUBLE_OPT("zipf", &o->zipf, 0, 100),
        CLI_DOUBLE_OPT("miss", &o->miss, 0, 1),
        CLI_INT_OPT("repeat", &o->repeat, 1, 1000),
        CLI_INT_OPT("warmup", &o->warmup, 0, 1000),
        CLI_FLAG_OPT("cold", &o->cold),
        CLI_INT_OPT("mem-limit", &o->mem_limit, MEMLIMIT_MIN, INT64_MAX),
        CLI_INT_OPT("seed", &o->seed, 0, INT64_MAX),
        REPORT_OUT_OPTS(&o->out),
    };
    int rc = store_arg_parse(CMD, argc, argv, opts, CLI_COUNT(opts), sa,
                             "kvtest shortener bench DBFILE [options]");
    char err[128];
    if (rc || (rc = cli_status(CMD, report_out_begin(&o->out, "result.configs", err, sizeof err), err)) ||
        (rc = bench_stores(o, sa)))
        return rc;
    if (o->lookups < o->threads)
        return cli_usage(CMD, "--lookups (%lld) must be at least --threads (%lld)",
                         (long long)o->lookups, (long long)o->threads);
    o->cache_url = cache_arg_url(ca);
    o->track_size = ca->track_size;
    o->cache_timeout = ca->timeout_ms;
    const char *list = o->configs ? o->configs : bench_conf_default(o);
    if (bench_conf_parse(list, conf, nconf) != 0)
        return cli_usage(CMD, "invalid --configs '%s' (comma-separated: sqlite, "
                         "sqlite-nocache, valkey, valkey-nocache, valkey-track, "
                         "valkey-track-nocache; postgres for a PostgreSQL store's own "
                         "row; or all)", list);
    for (int i = 0; o->store.kind == LINKS_KIND_POSTGRES && i < *nconf; i++)
        if (!bench_conf_sqlite_cache(conf[i]))
            return cli_usage(CMD, "--configs %s: the -nocache rows switch SQLite's page "
                             "cache off; a PostgreSQL store has none of its own",
                             bench_conf_names[conf[i]]);
    if (o->compare_text)
        conf[(*nconf)++] = BENCH_CONF_COMPARE;
    int need_valkey = 0;
    for (int i = 0; i < *nconf; i++)
        need_valkey |= bench_conf_valkey(conf[i]);
    /* The cache is parsed only when a row uses it (as before: a --cache
     * that no row asks for is not looked at). */
    if (need_valkey) {
        if (!o->cache_url)
            return cli_usage(CMD, "the valkey configurations need --cache valkey://HOST:PORT");
        if ((rc = cache_arg_config(CMD, ca)))
            return rc;
        /* One server for both kinds of rows: the row decides tracking. */
        b->ccfg = ca->cc;
        b->tcfg = ca->cc;
        b->ccfg.track = 0;
        b->tcfg.track = 1;
    }
    return 0;
}

int shortener_bench(int argc, char **argv)
{
    struct bench_opts o = {
        .lookups = 20000, .threads = 1, .repeat = 3, .warmup = 1, .seed = 1,
    };
    struct bench b;
    memset(&b, 0, sizeof(b));
    b.o = &o;
    int conf[BENCH_MAXCONF], nconf = 0;
    /* The store option group: o.store's replicas point into it, so it
     * lives as long as the bench. */
    struct store_arg sa;
    struct cache_arg ca;
    store_arg_init(&sa);
    cache_arg_init(&ca);
    int rc = bench_parse(argc, argv, &o, &sa, &ca, &b, conf, &nconf);
    if (rc)
        return rc;
#ifdef KVTEST_INJECT
    inject_arm("lookup");
#endif
    /* hiredis writes with write(2): a Valkey that goes away must give an
     * error to count, not a SIGPIPE that kills the benchmark. */
    signal(SIGPIPE, SIG_IGN);
    /* The bench reports why it stopped; the status is decided here. */
    char why[4096];
    return cli_status(CMD, bench_main(&b, conf, nconf, why, sizeof why), why);
}
