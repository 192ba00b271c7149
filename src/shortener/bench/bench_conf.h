/* bench_conf: what the in-process lookup bench ("kvtest shortener bench")
 * runs: its options and shared set-up (struct bench_opts, struct bench),
 * and the configurations, one row of the table each (bench_conf.c): their
 * names and properties, --configs and its default. */
#ifndef KVTEST_SHORTENER_BENCH_CONF_H
#define KVTEST_SHORTENER_BENCH_CONF_H
#include <stdint.h>

#include "base/memlimit.h"
#include "measure/keys/keypick.h"
#include "measure/report.h"
#include "shortener/cache/cache.h"
#include "shortener/store/links.h"

#define BENCH_CMD "shortener bench"
#define BENCH_MAXCONF 7
#define BENCH_MAXREPEAT 1024

/* BENCH_CONF_COMPARE: sqlite (page cache on) on the --compare-db database. */
enum bench_conf {
    BENCH_CONF_SQLITE,
    BENCH_CONF_SQLITE_NOCACHE,
    BENCH_CONF_VALKEY,
    BENCH_CONF_VALKEY_NOCACHE,
    BENCH_CONF_TRACK,
    BENCH_CONF_TRACK_NOCACHE,
    BENCH_CONF_COMPARE,
};
#define BENCH_NAMED 6   /* configurations --configs can name */
extern const char *const bench_conf_names[BENCH_MAXCONF];
int bench_conf_sqlite_cache(int c);
int bench_conf_valkey(int c);
int bench_conf_track(int c);
struct bench;
/* Name of a configuration (the compare row is "sqlite-<its schema>"). */
const char *bench_conf_name(const struct bench *b, int c);
struct bench_opts;
/* --configs LIST into conf (its *nconf entries); "postgres" names the
 * store's own row as "sqlite" does. 0, or -1 for a list that is not one. */
int bench_conf_parse(const char *list, int *conf, int *nconf);
/* The --configs list used when none is given, for o's store and cache. */
const char *bench_conf_default(const struct bench_opts *o);

/* The options (filled by the entry point, shortener/cli/shortener_bench.c)
 * and the set-up every run shares. */
struct bench_opts {
    /* store, compare: the stores (DBFILE or --store with --replicas, and
     * --compare-db: its text NULL when not given), parsed once, opened by
     * every slot with the slot's page-cache switch; their sqlite_file is
     * what --cold and --mem-limit evict. compare_text: --compare-db as
     * given. */
    struct links_store store, compare;
    const char *compare_text;
    const char *configs, *cache_url;
    int64_t lookups, threads, repeat, warmup, seed, track_size;
    int64_t cache_timeout;   /* --cache-timeout ms: Valkey connect and command */
    int64_t mem_limit;       /* --mem-limit bytes; 0: none */
    double zipf, miss;
    int cold;
    struct report_out out;   /* --json, --csv */
};

struct bench {
    const struct bench_opts *o;
    const char *ids;         /* links_ids records of LINKS_ID_MAX + 1 bytes */
    int64_t nids;
    struct keypick pick;
    struct cache_config ccfg;   /* valkey configurations */
    struct cache_config tcfg;   /* valkey-track configurations */
    char schema[16];            /* of the store */
    char compare_name[32];      /* sqlite-<schema of --compare-db> */
    /* --mem-limit: the group as it was after the last run, and the bytes
     * this process read from storage (-1 where not counted). */
    struct memlimit_info mem;
    int64_t mem_read_bytes;
};

#endif
