/* init: create a database of pseudo-random, self-verifying blobs. */
#ifndef KVTEST_INIT_H
#define KVTEST_INIT_H
#include <stdint.h>
#include "measure/report.h"

struct init_opts {
    const char *path;      /* DBFILE */
    int64_t count;         /* keys 1..count (default 1000) */
    int64_t size;          /* mean blob size (default 10000) */
    int64_t variance;      /* size uniform in [size-variance, size+variance] */
    int64_t pagesize;      /* default 4096 */
    uint64_t seed;         /* same seed, same bytes (default 1) */
    int force;             /* replace a file that is not a kvtest database */
    int quiet;             /* no result line on stdout (callers like sweep) */
    struct report_out out;   /* --json, --csv */
    /* The user's data (issue 14). */
    const char *from;          /* --from DIR: each regular file as one blob */
    int64_t max_size;          /* --max-size: larger files are skipped */
    const char *sizes_from;    /* --sizes-from DIR|FILE (for the report) */
    const int64_t *sizes;      /* --sizes-from: blob sizes are drawn from these */
    int64_t nsizes;            /* 0: sizes from size/variance */
    int64_t sizes_max;         /* largest of sizes[] */
};

void init_defaults(struct init_opts *o);

/* Validate o (usage errors: message "kvtest CMD: ..." and return 2), then
 * create the database in a temporary file beside path and rename it into
 * place, so an interrupted init never leaves a half-filled DBFILE.
 * cmd names the subcommand in messages ("init", "sweep").
 * Returns 0, 1 (runtime failure, one line printed) or 2. */
int init_create(const struct init_opts *o, const char *cmd);

/* SQLite's default SQLITE_MAX_LENGTH: no blob may be longer. */
#define INIT_MAX_BLOB 1000000000LL

/* The content of key k for seed: its size and bytes (n bytes into buf,
 * sealed with blobsum; init_blob.c). Exposed so tests and sweep can
 * re-derive blobs. */
int64_t init_blob_size(const struct init_opts *o, int64_t k);
void init_blob_fill(const struct init_opts *o, int64_t k, unsigned char *buf, int64_t n);

#endif
