/* sweep internals: the files one size creates in DIR and their removal
 * (sweep_files.c); sweep.c runs the sizes and reports. */
#ifndef KVTEST_SWEEP_INT_H
#define KVTEST_SWEEP_INT_H
#include <limits.h>
#include <stdint.h>

/* The names one size creates: DIR/sweep-SIZE.db and DIR/sweep-SIZE/. */
struct sweep_names {
    char db[PATH_MAX], exp[PATH_MAX];
};

/* 0, or -1 if the names do not fit. */
int sweep_names_make(struct sweep_names *nm, const char *dir, int64_t size);

/* Does any name this size will create already exist? The first one found
 * goes to buf. */
int sweep_names_taken(const struct sweep_names *nm, char *buf, size_t cap);

/* Remove what one size created: the database with its -wal/-shm/-journal
 * and temporary files, the export's files by key, then its directory
 * (rmdir, so anything else stays). quiet: no warnings. Returns 1 if
 * something of it is still there afterwards. */
int sweep_names_remove(const struct sweep_names *nm, int64_t count, int quiet);

/* DIR: create it (*made = 1), or accept it empty, or anything with force.
 * Returns 0, 1 or 2 (one line printed). */
int sweep_dir_prepare(const char *dir, int force, int *made);

/* Refuse a size that needs more free space than DIR has: 0 or 1. */
int sweep_check_space(const char *dir, int64_t need);

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
