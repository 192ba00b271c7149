/* export: one file per blob, byte-identical to it, named as SQLite's kvtest
 * names them (flat 000001, tree 00/00/01). The files are written by
 * export_jobs.c into a directory of their own, which export_stage.c puts
 * in DIR's place once every file is complete: an export that fails, runs
 * out of disk or is interrupted leaves DIR as it was. */
#include <stdio.h>
#include <string.h>

#include "base/cleanup.h"
#include "base/cli.h"
#include "commands/commands.h"
#include "commands/export/export_int.h"
#include "measure/clock.h"
#include "measure/report.h"
#include "stores/layout.h"
#include "stores/store.h"
#include "stores/kv/store_kv.h"

const char help_export[] =
    "Usage: kvtest export DBFILE DIRECTORY [options]\n"
    "       kvtest export DBFILE lmdb:DIRECTORY | rocksdb:DIRECTORY\n"
    "\n"
    "Write every blob of the kv table of DBFILE to its own file in DIRECTORY,\n"
    "byte-identical to the blob. DIRECTORY is created if missing. Files are\n"
    "named by key: 000001, 000002, ... (flat), or with --tree 00/00/01 =\n"
    "key/10000, (key/100)%100, key%100, so no directory holds more than 100\n"
    "entries. \"kvtest run DIRECTORY\" tells the layouts apart by the 00\n"
    "subdirectory of a tree.\n"
    "\n"
    "Options:\n"
    "  --tree           tree layout 00/00/01 instead of flat 000001\n"
    "  --jobs J         write with J threads (default 1)\n"
    "  --force          write into a non-empty DIRECTORY that is not an earlier\n"
    "                   export (existing files with blob names are replaced)\n"
    "  --json           print the result as one JSON object\n"
    "  --csv            the --json fields as CSV, one row (the export)\n"
    "\n"
    "A non-empty DIRECTORY is accepted without --force only if it holds an\n"
    "earlier export of the same layout; files of that export whose keys the\n"
    "database no longer has are removed so that max-id stays right. Progress\n"
    "(rate, ETA) goes to stderr when it is a terminal.\n"
    "\n"
    "The export is written beside DIRECTORY (DIRECTORY.kvtest-tmp-XXXXXX) and\n"
    "takes its place only when every file is complete; a failure, a full disk,\n"
    "Ctrl-C or SIGTERM leaves DIRECTORY as it was and removes the rest.\n"
    "\n"
    "With lmdb:DIRECTORY or rocksdb:DIRECTORY the blobs go into a new LMDB\n"
    "environment or RocksDB database there instead, keyed by the key as 8\n"
    "big-endian bytes, by one writer in key order (LMDB pages filled by\n"
    "appending; RocksDB flushed and compacted into its last level at the end,\n"
    "without compression: the blobs are random bytes). Such a DIRECTORY is\n"
    "replaced only if it is empty or holds a store of the same kind; --tree,\n"
    "--force and --jobs apply to files only. \"kvtest run lmdb:DIRECTORY\" reads it.\n"
    "\n"
    "Example: kvtest export x1.db x1 --tree --jobs 2\n"
    "         kvtest export x1.db lmdb:x1.lmdb\n";

void export_defaults(struct export_opts *o)
{
    memset(o, 0, sizeof *o);
    o->jobs = 1;
}

static int check_source(const struct export_opts *o, const char *cmd)
{
    if (!o->db || !o->dir)
        return cli_usage(cmd, "missing DBFILE or DIRECTORY");
    if (o->jobs < 1 || o->jobs > 256)
        return cli_usage(cmd, "--jobs must be between 1 and 256, got %lld", (long long)o->jobs);
    if (o->kv != LAYOUT_MISSING) {
        const char *missing = store_kv_missing(o->kv);
        if (missing)
            return cli_usage(cmd, "%s", missing);
        if (!o->dir[0])
            return cli_usage(cmd, "no directory after %s:", layout_kind_name(o->kv));
        if (o->tree || o->force)
            return cli_usage(cmd, "%s applies to files, not to the %s store",
                             o->tree ? "--tree" : "--force", layout_kind_name(o->kv));
    }
    char why[600];
    enum layout_kind k = layout_detect(o->db, why, sizeof why);
    if (k == LAYOUT_MISSING || k == LAYOUT_OTHER)
        return cli_fail(cmd, "%s", why);
    if (k != LAYOUT_DB)
        return cli_fail(cmd, "%s: is a directory, not a database file", o->db);
    if (store_db_check(o->db, why, sizeof why) != 0)
        return cli_fail(cmd, "%s", why);
    return 0;
}

static void export_report(const struct export_opts *o, const struct export_run *r,
                          int64_t stale, double secs)
{
    if (o->quiet)
        return;
    const char *layout = o->kv != LAYOUT_MISSING ? layout_kind_name(o->kv)
                         : o->tree ? "tree" : "flat";
    if (o->out.json) {
        cJSON *j = report_json_new("export", o->dir);
        cJSON *op = cJSON_AddObjectToObject(j, "options");
        cJSON_AddStringToObject(op, "db", o->db);
        cJSON_AddStringToObject(op, "dir", o->dir);
        cJSON_AddBoolToObject(op, "tree", o->tree);
        cJSON_AddNumberToObject(op, "jobs", (double)o->jobs);
        cJSON_AddBoolToObject(op, "force", o->force);
        cJSON *res = cJSON_AddObjectToObject(j, "result");
        cJSON_AddStringToObject(res, "layout", layout);
        cJSON_AddNumberToObject(res, "files", (double)r->done);
        cJSON_AddNumberToObject(res, "bytes", (double)r->bytes);
        cJSON_AddNumberToObject(res, "stale_removed", (double)stale);
        cJSON_AddNumberToObject(res, "seconds", secs);
        report_json_print(j);
    } else {
        printf("Exported %lld blobs (%lld bytes) from %s to %s (%s) in %.3f s\n",
               (long long)r->done, (long long)r->bytes, o->db, o->dir, layout, secs);
        if (stale)
            printf("Removed %lld files of an earlier export beyond key %lld\n",
                   (long long)stale, (long long)r->hi);
    }
}

/* Stage, write, commit; on failure the stage is discarded (one line). */
static int export_build(const struct export_opts *o, const char *cmd, struct export_run *r,
                        int64_t *stale)
{
    struct export_stage s;
    int rc = export_stage_open(&s, o, cmd);
    if (rc)
        return rc;
    r->o = o;
    r->build = s.build.path;
    if ((o->kv != LAYOUT_MISSING ? export_kv_run(r, cmd) : export_jobs_run(r, cmd)) != 0) {
        export_stage_discard(&s);
        return cli_fail(cmd, "%s", r->err);
    }
    return export_stage_commit(&s, o, r->count > 0 ? r->hi : 0, stale, cmd);
}

int export_write(const struct export_opts *o, const char *cmd)
{
    int rc = check_source(o, cmd);
    if (rc)
        return rc;
    cleanup_begin(cmd);
    struct export_run r;
    memset(&r, 0, sizeof r);
    int64_t stale = 0;
    uint64_t t0 = clock_now_ns();
    rc = export_build(o, cmd, &r, &stale);
    cleanup_end();
    if (rc == 0)
        export_report(o, &r, stale, (double)(clock_now_ns() - t0) / 1e9);
    return rc;
}

int cmd_export(int argc, char **argv)
{
    struct export_opts o;
    export_defaults(&o);
    char err[128];
    const struct cli_opt opts[] = {
        CLI_FLAG_OPT("tree", &o.tree),
        CLI_FLAG_OPT("force", &o.force),
        CLI_INT_OPT("jobs", &o.jobs, 1, 256),
        REPORT_OUT_OPTS(&o.out),
    };
    const char *pos[2];
    int npos;
    int rc = cli_parse("export", argc, argv, opts, CLI_COUNT(opts), pos, 2,
                       &npos);
    if (rc || (rc = cli_status("export", report_out_begin(&o.out, NULL, err, sizeof err), err)))
        return rc;
    if (npos < 2)
        return cli_usage("export", "missing %s (usage: kvtest export DBFILE DIRECTORY [--tree])",
                         npos ? "DIRECTORY" : "DBFILE and DIRECTORY");
    o.db = pos[0];
    o.kv = layout_prefix_kind(pos[1]);
    o.dir = layout_fs_path(pos[1]);
    return export_write(&o, "export");
}
