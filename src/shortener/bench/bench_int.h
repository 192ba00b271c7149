/* bench_int: the parts of "kvtest shortener bench" shared by its files:
 * bench.c (options, setup, the run loop), bench_conf.c (the configurations
 * and the stores they run on), bench_run.c (one timed run of
 * one configuration over its threads) and bench_out.c (text and JSON). */
#ifndef KVTEST_SHORTENER_BENCH_INT_H
#define KVTEST_SHORTENER_BENCH_INT_H
#include <stdint.h>

#include "base/memlimit.h"
#include "measure/coldcache.h"
#include "measure/hist.h"
#include "measure/keys/keypick.h"
#include "measure/keys/rng.h"
#include "shortener/cache/cache.h"
#include "shortener/store/links.h"

#define BENCH_CMD "shortener bench"
#define BENCH_MAXCONF 7
#define BENCH_MAXREPEAT 1024

/* ---- the configurations: what one row of the table measures (bench_conf.c) -- */

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
/* Fill o's store fields from o->store and o->compare_store (kinds, SQLite
 * files, names as shown, replicas) and refuse what a PostgreSQL store
 * cannot do. 0, or 2 after printing the misuse. */
int bench_conf_stores(struct bench_opts *o);

/* ---- the setup shared by every run ------------------------------------- */

struct bench_opts {
    /* store, compare_store: the stores as given (DBFILE or --store, and
     * --compare-db), opened by every slot; path, compare: the same as
     * results show them (a password hidden); file, compare_file: an SQLite
     * store's database file, NULL for PostgreSQL (--cold, --mem-limit). */
    const char *store, *compare_store, *path, *compare, *file, *compare_file;
    enum links_kind kind, compare_kind;
    const char *replicas_list;   /* --replicas as given */
    const char *replicas[LINKS_REPLICAS_MAX];
    int nreplicas;
    char replicas_buf[4096], path_buf[512], compare_buf[512];
    const char *configs, *cache_url;
    int64_t lookups, threads, repeat, warmup, seed, track_size;
    int64_t mem_limit;       /* --mem-limit bytes; 0: none */
    double zipf, miss;
    int cold, json, csv;
};

struct bench {
    const struct bench_opts *o;
    const char *ids;         /* links_ids records of LINKS_ID_MAX + 1 bytes */
    int64_t nids;
    struct keypick pick;
    struct cache_config ccfg;   /* valkey configurations */
    struct cache_config tcfg;   /* valkey-track configurations */
    char schema[16];            /* of path */
    char compare_name[32];      /* sqlite-<schema of --compare-db> */
    /* --mem-limit: the group as it was after the last run, and the bytes
     * this process read from storage (-1 where not counted). */
    struct memlimit_info mem;
    int64_t mem_read_bytes;
};

/* ---- one timed run: a configuration over its threads (bench_run.c) ----- */

/* One thread's connections for one configuration, kept across runs. */
struct bench_slot {
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

/* Open s's connections for configuration conf. 0, or -1 with err. */
int bench_slot_open(const struct bench *b, int conf, struct bench_slot *s, char *err,
                    size_t cap);
/* One run of one configuration over its T slots. Returns wall seconds, or
 * a negative value if threads could not be started. */
double bench_conf_run(const struct bench *b, struct bench_slot *slots, int measure);

/* ---- --mem-limit: the lookups in a memory cgroup (bench_mem.c) -------- */

/* Each returns 0 or the exit status after printing one line; nothing
 * happens without --mem-limit. */
/* Refuse before any work what memlimit_check() refuses. */
int bench_mem_check(const struct bench_opts *o);
/* Into the group, then DBFILE (and --compare-db) out of the page cache;
 * *h: the cleanup handle that removes the group on SIGINT/SIGTERM. */
int bench_mem_enter(const struct bench_opts *o, int *h);
/* b->mem and b->mem_read_bytes, while still in the group. */
void bench_mem_note(struct bench *b);
/* Out of the group; rc is the status so far, 1 if the group stays. */
int bench_mem_leave(const struct bench_opts *o, int h, int rc);

/* ---- the results: per configuration, printed by bench_out.c ------------ */

/* What one configuration measured over all its runs and threads. */
struct bench_result {
    double rate[BENCH_MAXREPEAT];   /* lookups/s per measured run */
    double secs[BENCH_MAXREPEAT];
    struct hist *h;
    struct cache_stats before, after;
    uint64_t wrong, errors;
    char first_problem[300];
    int64_t resident_max;
    int64_t pages;
    int cold_effective;      /* --cold: residency stayed below the threshold */
};

/* Results, to stdout. conf[i] is the configuration of res[i]. The JSON
 * printer returns -1 when out of memory (nothing printed), else 0. */
int bench_print_json(const struct bench *b, const int *conf, int nconf,
                     const struct bench_result *res);
void bench_print_text(const struct bench *b, const int *conf, int nconf,
                      const struct bench_result *res);

#endif
