/* init internals: the two ways of filling the kv table of a new database
 * (init.c owns the file, its name and the report). */
#ifndef KVTEST_INIT_INT_H
#define KVTEST_INIT_INT_H
#include <stdint.h>

#include "commands/init/init.h"
#include "stores/db_create.h"
#include "stores/walk.h"

/* --from DIR: what was found, what was stored, what was left out. */
struct init_from {
    struct walk w;            /* candidates, sorted by relative path */
    int64_t *key_file;        /* key k's file is w.f[key_file[k-1]] */
    int64_t stored;           /* blobs written: keys 1..stored */
    int64_t unreadable;       /* candidates that could not be opened or read */
    int64_t changed;          /* candidates whose size changed while read */
};

/* Walk o->from into src. Returns 0, or 1 (one line printed) when DIR
 * cannot be read or holds no file to store. */
int init_from_scan(const struct init_opts *o, const char *cmd, struct init_from *src);
void init_from_free(struct init_from *src);
/* Store each candidate's bytes as one blob, keys 1..N in path order, then
 * their paths in kv_path. Adds the blob bytes to *bytes. 0, or non-zero
 * with the cause in db_create_error. */
int init_from_fill(struct db_create *c, const struct init_opts *o, const char *cmd,
                   struct init_from *src, int64_t *bytes);
void init_from_report(const struct init_opts *o, const struct init_from *src, int64_t bytes,
                      double secs);

/* --sizes-from DIR|FILE: load the sizes into o (sizes, nsizes, sizes_max;
 * the array is the caller's to free). 0, or 1 with one line printed. */
int init_sizes_load(struct init_opts *o, const char *cmd, int64_t **owned);

/* Ours: xoshiro content generated in a second thread while this one
 * inserts, no journal, commits every 32 MB. Adds the blob bytes to *bytes.
 * 0, or non-zero with the cause in db_create_error. (The randomblob
 * baseline is db_create_randomblob.) */
int init_fill_fast(struct db_create *c, const struct init_opts *o, const char *cmd,
                   int64_t *bytes);

#endif
