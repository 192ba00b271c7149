/* sweep internals, shared by the loop (sweep.c), the rounds
 * (sweep_rounds.c), the report (sweep_out.c), the option table
 * (sweep_opts.c) and the files one size creates in DIR (sweep_files.c): what was asked and measured, then what
 * is created and how it goes. */
#ifndef KVTEST_SWEEP_INT_H
#define KVTEST_SWEEP_INT_H
#include <limits.h>
#include <stddef.h>
#include <stdint.h>

#include "base/cli.h"
#include "measure/report.h"
#include "commands/run/run.h"
#include "commands/sweep/sweep.h"

/* ---- what was asked and what was measured ----------------------------- */

#define SWEEP_MAX_SIZES 32
#define SWEEP_MAX_PAGES 8     /* 512 .. 65536: every page size SQLite accepts */

struct sweep_opts {
    const char *dir;
    int64_t sizes[SWEEP_MAX_SIZES];
    int nsizes;
    int64_t pages[SWEEP_MAX_PAGES];   /* ascending, distinct */
    int npages;
    int64_t total, repeat, warmup, seed, mmap;
    int cold, update, keep, force;
    struct report_out out;   /* --json, --csv */
    const char *keys_out;   /* test hook: PREFIX of one key file per run */
    /* --stores without db: the stores timed beside the database, in enum
     * order (default: the files alone, as before --stores existed). */
    enum sweep_store stores[SWEEP_NSTORES];
    int nstores;
};

/* Is the store list the default (db,files)? Then every output is the one
 * sweep printed before --stores existed, byte for byte. */
int sweep_default_stores(const struct sweep_opts *o);

/* Does the sweep time store s? */
int sweep_has_store(const struct sweep_opts *o, enum sweep_store s);

/* What "kvtest sweep"'s options write (sweep_opts.c): sweep_opts where a
 * row's value is the option's as it stands, and the parser's own values
 * where sweep.c parses or checks them first (lists, --pagesize). */
struct sweep_args {
    struct sweep_opts o;
    const char *sizes, *pages, *stores;
    int64_t pagesize;   /* 0: not given */
};

#define SWEEP_MAX_OPTS 24
/* The option table, its rows writing into *a; returns the number of rows. */
int sweep_opts_table(struct sweep_args *a, struct cli_opt rows[SWEEP_MAX_OPTS]);

/* One blob size. The files and the other stores do not depend on the page
 * size, so they are read once per size; the database is read once per
 * page size. */
struct sweep_row {
    int64_t size, count;
    struct run_result st[SWEEP_NSTORES];        /* by enum sweep_store; only
                                                   the stores of --stores */
    struct run_result db[SWEEP_MAX_PAGES][2];   /* [page][0 sql, 1 blob api] */
};

/* One layout's result from its n rounds (each a one-run result): every
 * round's us_per_blob in us_runs, min/median/max, the median round's
 * counts, the latency histograms merged, cold only if every round was.
 * 0, or -1 out of memory (dst freed). */
int sweep_rounds_merge(const struct run_result *rounds, int n, struct run_result *dst);

/* The table (or JSON) of the first done sizes and a crossover per page
 * size (sweep_out.c). */
void sweep_report(const struct sweep_opts *o, const struct sweep_row *rows, int done);

/* ---- what one size creates in DIR, and its removal (sweep_files.c) ---- */

/* The names one size creates: one database per page size and one
 * directory per store of --stores. With one page size, DIR/sweep-SIZE.db
 * as before --page-sizes existed; with several, DIR/sweep-SIZE-pPAGE.db.
 * The flat export is DIR/sweep-SIZE/, the key-value stores
 * DIR/sweep-SIZE.lmdb/ and DIR/sweep-SIZE.rocksdb/. A store the sweep does
 * not time has no name (made 0): sweep neither checks nor touches it. */
struct sweep_names {
    char db[SWEEP_MAX_PAGES][PATH_MAX];
    char st[SWEEP_NSTORES][PATH_MAX];   /* by enum sweep_store */
    int made[SWEEP_NSTORES];
    int ndb;
};

/* 0, or -1 if the names do not fit. */
int sweep_names_make(struct sweep_names *nm, const struct sweep_opts *o, int64_t size);

/* Does any name this size will create already exist? The first one found
 * goes to buf. */
int sweep_names_taken(const struct sweep_names *nm, char *buf, size_t cap);

/* Remove database p of the size (with its -wal/-shm/-journal and the
 * temporary files init builds it in). */
void sweep_names_remove_db(const struct sweep_names *nm, int p, int quiet);

/* Remove what one size created: every database as above, the export's
 * files by key, each key-value store's files by the names its engine
 * gives them, then their directories (rmdir, so anything else stays).
 * quiet: no warnings. Returns 1 if something of it is still there
 * afterwards. */
int sweep_names_remove(const struct sweep_names *nm, int64_t count, int quiet);

/* DIR: create it (*made = 1), or accept it empty, or anything with force.
 * Returns 0, 1 or 2 (one line printed). */
int sweep_dir_prepare(const char *dir, int force, int *made);

/* Refuse a size that needs more free space than DIR has: 0 or 1. */
int sweep_check_space(const char *dir, int64_t need);

/* ---- an interruption ------------------------------------------------- */

/* What a signal must remove: the size in progress, and DIR if sweep made
 * it (only if empty). Registered with cleanup; the fields change only
 * under cleanup_lock(). */
struct sweep_guard {
    const char *dir;
    int made_dir;
    int active;
    struct sweep_names nm;
    int64_t count;
};

/* The cleanup function for a sweep_guard (see base/cleanup.h). */
void sweep_guard_run(void *guard, char *msg, size_t cap);

#endif
