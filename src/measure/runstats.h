/* runstats: the counters "run --stats" prints with the labels of SQLite's
 * kvtest -- SQLite memory and page-cache status of a connection, and the
 * Linux /proc/self/io counters (for directory runs too). */
#ifndef KVTEST_RUNSTATS_H
#define KVTEST_RUNSTATS_H
#include <stdint.h>
#include "sqlite3.h"

struct io_counters {
    int64_t v[7];   /* in the order of io_labels */
    int ok;
};

struct runstats_label {
    const char *key, *label;   /* /proc/self/io field, upstream label */
};
extern const struct runstats_label runstats_io_labels[7];

struct sql_stats {
    int have;
    sqlite3_int64 mem[2], allocs[2], pc_used[2], pc_over[2], big_alloc, big_pc;
    int heap, hits, misses, writes;
};

/* Read /proc/self/io through base/os.h (c->ok = 0 where it does not
 * exist). */
void runstats_io_read(struct io_counters *c);
/* Snapshot the global SQLite status and, if db, its cache counters
 * (hits/misses/writes are reset, as upstream does). */
void runstats_sql_take(struct sql_stats *s, sqlite3 *db);
/* The upstream block: a blank line, SQLite counters (if taken), then the
 * /proc/self/io lines (if read). */
void runstats_print(const struct sql_stats *s, const struct io_counters *io);

#endif
