/* export internals: the writer threads (export_jobs.c) and the directory
 * the export is built in and renamed into place from (export_stage.c). */
#ifndef KVTEST_EXPORT_INT_H
#define KVTEST_EXPORT_INT_H
#include <limits.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/aside.h"
#include "commands/export/export.h"

/* --- writing ----------------------------------------------------------- */

struct export_run {
    const struct export_opts *o;
    const char *build;         /* the directory the files go to */
    int64_t lo, hi, count;     /* key range and row count of the database */
    int64_t done, bytes;       /* out: files and bytes written */
    char err[1024];            /* out: the first failure, one line */
};

/* Write keys [lo, hi] of o->db as files under r->build with o->jobs
 * threads (equal key ranges). Messages name the file by its final path
 * under o->dir. Returns 0, or -1 with r->err set. */
int export_jobs_run(struct export_run *r, const char *cmd);

/* The same into a key-value store (export_kv.c): one writer, keys in
 * order, the store made durable and compact at the end. 0, or -1 with
 * r->err set. */
int export_kv_run(struct export_run *r, const char *cmd);

/* --- where the export is built, and how it takes DIR's place ------------ */

enum export_commit {
    EXPORT_RENAME,     /* DIR did not exist: rename the build dir to DIR */
    EXPORT_REPLACE,    /* DIR empty or an earlier export of this layout:
                          move DIR aside, rename, remove the old one */
    EXPORT_MERGE,      /* --force into other content: move the files in */
};

struct export_stage {
    char dir[PATH_MAX];        /* DIR without trailing slashes */
    struct aside build;        /* DIR.kvtest-tmp-XXXXXX (or inside DIR) */
    enum export_commit how;
    int earlier;               /* DIR holds an export of the same layout */
    mode_t mode;               /* permissions DIR gets */
};

/* Check DIR against the rules of "kvtest help export" and create the
 * build directory (with its 00 for a tree). Returns 0, 1 or 2 (one line
 * printed). */
int export_stage_open(struct export_stage *s, const struct export_opts *o, const char *cmd);

/* Put the complete build in DIR's place. maxk is the database's largest
 * key; *stale gets the number of files of an earlier export beyond it
 * (gone now). Returns 0, or 1 with one line printed and the build removed. */
int export_stage_commit(struct export_stage *s, const struct export_opts *o, int64_t maxk,
                        int64_t *stale, const char *cmd);

/* Failure path: remove the build directory. */
void export_stage_discard(struct export_stage *s);

#endif
