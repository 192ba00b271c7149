/* build: src/measure/keys/keypick.c src/measure/keys/rng.c src/measure/keys/zipf.c src/base/os.c build/sqlite3.o -lpthread -lm */
/*
 * lookuploop: SQLite's own limit for the shortener's lookup, the yardstick
 * of "kvtest shortener bench"'s sqlite row.
 *
 * The loop holds nothing but what a lookup needs: sqlite3_bind_text,
 * sqlite3_step, sqlite3_reset on one prepared statement, the statement the
 * service prepares (SELECT link_target FROM links WHERE link_hash=?1), on
 * a connection opened as the service opens its own (read-write, no
 * connection mutex, WAL, the default page cache). It asks for the ids the
 * bench asks for, in the same order: every link's id ordered by id, picked
 * by keypick (uniform) from bench's stream for its first thread,
 * rng_mix(seed, 1). So "bench / lookuploop" is what the bench's own loop
 * costs on top of SQLite: its clock reads, histogram, answer check and the
 * cache layer's dispatch.
 *
 * Build:  make build/lookuploop
 * Usage:  build/lookuploop DBFILE [--lookups N] [--repeat R] [--warmup W]
 *                          [--seed S] [--ids K]
 *   --lookups N   lookups per run (default 20000, as bench)
 *   --repeat R    measured runs (default 3), after --warmup W (default 1)
 *   --seed S      the id stream's seed (default 1, as bench)
 *   --ids K       print the first K ids the runs ask for, one a line, and
 *                 exit (what tests compare with the ids themselves)
 *
 * Output: one line per measured run, "lookups_per_s X", then "median X".
 * Every id must be found (its link read back): one that is not, or any
 * SQLite error, is one line on stderr and exit 1; bad arguments exit 2.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sqlite3.h"
#include "measure/clock.h"
#include "measure/keys/keypick.h"
#include "measure/keys/rng.h"

#define ID_MAX 64

static int usage(const char *why)
{
    fprintf(stderr, "lookuploop: %s\nusage: lookuploop DBFILE [--lookups N] [--repeat R] "
            "[--warmup W] [--seed S] [--ids K]\n", why);
    return 2;
}

static int parse_count(const char *s, long long min, long long *out)
{
    char *end;
    long long v = strtoll(s, &end, 10);
    if (end == s || *end || v < min)
        return -1;
    *out = v;
    return 0;
}

static int fail(sqlite3 *db, const char *what)
{
    fprintf(stderr, "lookuploop: %s: %s\n", what, db ? sqlite3_errmsg(db) : "out of memory");
    return 1;
}

/* Every id, ordered by id as bench loads them, in one block of
 * (ID_MAX + 1)-byte slots. 0, or -1. */
static int load_ids(sqlite3 *db, char **ids, long long *n)
{
    sqlite3_stmt *q = NULL;
    size_t cap = 1024, k = 0;
    char *buf = malloc(cap * (ID_MAX + 1));
    if (!buf || sqlite3_prepare_v2(db, "SELECT link_hash FROM links ORDER BY id", -1, &q,
                                   NULL) != SQLITE_OK) {
        free(buf);
        return -1;
    }
    int rc;
    while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
        if (k == cap) {
            char *nb = realloc(buf, 2 * cap * (ID_MAX + 1));
            if (!nb)
                break;
            buf = nb;
            cap *= 2;
        }
        snprintf(buf + k * (ID_MAX + 1), ID_MAX + 1, "%s", (const char *)sqlite3_column_text(q, 0));
        k++;
    }
    sqlite3_finalize(q);
    if (rc != SQLITE_DONE) {
        free(buf);
        return -1;
    }
    *ids = buf;
    *n = (long long)k;
    return 0;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    long long lookups = 20000, repeat = 3, warmup = 1, seed = 1, print_ids = 0;
    const char *path = NULL;
    for (int i = 1; i < argc; i++) {
        long long *dst = !strcmp(argv[i], "--lookups") ? &lookups
                       : !strcmp(argv[i], "--repeat") ? &repeat
                       : !strcmp(argv[i], "--warmup") ? &warmup
                       : !strcmp(argv[i], "--seed") ? &seed
                       : !strcmp(argv[i], "--ids") ? &print_ids : NULL;
        if (dst) {
            long long min = dst == &warmup || dst == &seed ? 0 : 1;
            if (i + 1 == argc || parse_count(argv[++i], min, dst) != 0)
                return usage("a count must follow each option");
        } else if (argv[i][0] == '-' || path) {
            return usage("unknown argument");
        } else {
            path = argv[i];
        }
    }
    if (!path)
        return usage("DBFILE is missing");
    sqlite3 *db = NULL;
    if (sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL) !=
        SQLITE_OK)
        return fail(db, path);
    sqlite3_stmt *get = NULL;
    char *ids = NULL;
    long long nids = 0;
    struct keypick pick;
    if (sqlite3_exec(db, "PRAGMA journal_mode=WAL", NULL, NULL, NULL) != SQLITE_OK ||
        load_ids(db, &ids, &nids) != 0)
        return fail(db, "reading the ids");
    if (nids == 0 || keypick_init(&pick, (uint64_t)nids, 0) != 0) {
        fprintf(stderr, "lookuploop: %s: no links\n", path);
        return 1;
    }
    if (sqlite3_prepare_v3(db, "SELECT link_target FROM links WHERE link_hash=?1", -1,
                           SQLITE_PREPARE_PERSISTENT, &get, NULL) != SQLITE_OK)
        return fail(db, "prepare");
    rng_t rng;
    rng_seed(&rng, rng_mix((uint64_t)seed, 1));
    if (print_ids) {
        for (long long i = 0; i < print_ids; i++)
            printf("%s\n", ids + keypick_next(&pick, &rng) * (ID_MAX + 1));
        return 0;
    }
    double *rate = malloc((size_t)repeat * sizeof *rate);
    if (!rate)
        return fail(NULL, "runs");
    for (long long run = 0; run < warmup + repeat; run++) {
        uint64_t t0 = clock_now_ns();
        for (long long i = 0; i < lookups; i++) {
            const char *id = ids + keypick_next(&pick, &rng) * (ID_MAX + 1);
            sqlite3_bind_text(get, 1, id, (int)strlen(id), SQLITE_STATIC);
            if (sqlite3_step(get) != SQLITE_ROW) {
                fprintf(stderr, "lookuploop: id %s: not found (%s)\n", id, sqlite3_errmsg(db));
                return 1;
            }
            sqlite3_reset(get);
        }
        uint64_t t1 = clock_now_ns();
        if (run >= warmup) {
            rate[run - warmup] = (double)lookups / ((double)(t1 - t0) / 1e9);
            printf("lookups_per_s %.1f\n", rate[run - warmup]);
        }
    }
    qsort(rate, (size_t)repeat, sizeof *rate, cmp_double);
    double med = repeat % 2 ? rate[repeat / 2] : (rate[repeat / 2 - 1] + rate[repeat / 2]) / 2;
    printf("median %.1f\n", med);
    free(rate);
    free(ids);
    sqlite3_finalize(get);
    sqlite3_close(db);
    return 0;
}
