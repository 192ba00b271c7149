/* export: write every blob of a database to its own file (flat or tree). */
#ifndef KVTEST_EXPORT_H
#define KVTEST_EXPORT_H
#include <stdint.h>
#include "measure/report.h"
#include "stores/layout.h"

struct export_opts {
    const char *db;        /* DBFILE */
    const char *dir;       /* DIRECTORY (created if missing), without a store prefix */
    enum layout_kind kv;   /* LAYOUT_LMDB / LAYOUT_ROCKSDB: into that store (the
                              DIRECTORY was "lmdb:DIR" / "rocksdb:DIR");
                              LAYOUT_MISSING: one file per blob */
    int tree;              /* 00/00/01 instead of 000001 */
    int force;             /* write into a non-empty directory that is not an export */
    int64_t jobs;          /* writer threads (default 1) */
    int quiet;             /* no result line on stdout */
    struct report_out out;   /* --json, --csv */
};

void export_defaults(struct export_opts *o);

/* Returns 0, 1 (runtime failure, one line printed) or 2 (misuse). The
 * export is built aside and put in DIR's place only when complete: on a
 * failure, Ctrl-C or SIGTERM, DIR is left as it was and nothing temporary
 * remains. */
int export_write(const struct export_opts *o, const char *cmd);

#endif
