/* init: create DBFILE with kv(k INTEGER PRIMARY KEY, v BLOB), keys 1..N,
 * each blob of a size uniform in [size-variance, size+variance], content
 * pseudo-random per key (same seed, same bytes) and sealed by blobsum so
 * that "run --verify" can check it later.
 *
 * Faster than SQLite's kvtest, which fills the table with randomblob() in
 * one INSERT ... SELECT: our content comes from xoshiro (several GB/s, vs
 * SQLite's ChaCha20 randomness), is generated in a second thread while the
 * first one inserts, and the database is built in a temporary file with no
 * journal and no syncs until the end -- safe because the file only gets
 * its real name (rename) once it is complete and fsynced. The temporary
 * file is registered with cleanup, so a failure, Ctrl-C or SIGTERM removes
 * it (base/aside.h). The inserting loop is in init_fill.c, each key's
 * content in init_blob.c, the SQLite side in stores/db_create.c. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include "commands/init/init.h"
#include "base/cli.h"
#include "measure/clock.h"
#include "commands/commands.h"
#include "stores/layout.h"
#include "measure/report.h"
#include "stores/store.h"
#include "base/units.h"
#include "base/aside.h"
#include "base/cleanup.h"
#include "commands/init/init_int.h"

#define INIT_MAX_COUNT 1000000000LL

const char help_init[] =
    "Usage: kvtest init DBFILE [options]\n"
    "\n"
    "Create DBFILE holding table kv(k INTEGER PRIMARY KEY, v BLOB) with keys\n"
    "1..N and pseudo-random, incompressible blobs; the same --seed gives the\n"
    "same bytes. The last 8 bytes of each blob are a checksum of the rest, so\n"
    "\"kvtest run --verify\" can check content later (the format stays the\n"
    "plain kv table of SQLite's kvtest). The file is built under a temporary\n"
    "name and renamed into place when complete.\n"
    "\n"
    "Options (numbers take K/M/G = x1000 and KiB/MiB/GiB = x1024):\n"
    "  --count N        number of blobs (default 1000)\n"
    "  --size M         mean blob size in bytes (default 10000)\n"
    "  --variance V     sizes uniform in [M-V, M+V] (default 0; V < M)\n"
    "  --pagesize X     database page size, a power of 2 in 512..65536 (default 4096)\n"
    "  --seed S         content seed (default 1)\n"
    "  --force          replace DBFILE even if it is not a kvtest database\n"
    "  --json           print the result as one JSON object\n"
    "  --csv            the --json fields as CSV, one row (the database made)\n"
    "\n"
    "Your own data instead of uniform random blobs:\n"
    "  --from DIR       store each regular file under DIR as one blob, keys 1..N\n"
    "                   in byte order of the relative paths (two runs give the\n"
    "                   same database); the paths go to a side table\n"
    "                   kv_path(k INTEGER PRIMARY KEY, path TEXT), kv is unchanged.\n"
    "                   Symlinks are not followed; empty, unreadable, special and\n"
    "                   over --max-size files are skipped and counted. These blobs\n"
    "                   carry no checksum (run --verify says unverifiable).\n"
    "                   Not with --count, --size, --variance or --sizes-from.\n"
    "  --sizes-from P   random blobs as above, with sizes drawn (seeded by --seed)\n"
    "                   from the files under directory P, or from the sizes in P =\n"
    "                   the output of \"kvtest stat DIR --json\" saved elsewhere;\n"
    "                   --count defaults to the number of sizes. Not with --size\n"
    "                   or --variance.\n"
    "  --max-size N     largest file taken by --from/--sizes-from (default and\n"
    "                   limit 1G = 1000000000 bytes, SQLite's largest blob)\n"
    "\n"
    "An existing kvtest database (an SQLite file with a kv table) is replaced\n"
    "without --force; anything else is refused. Progress (rate, ETA) goes to\n"
    "stderr when it is a terminal.\n"
    "\n"
    "Example: kvtest init x1.db --count 100k --size 10k --variance 2k\n"
    "         kvtest init photos.db --from ~/Pictures\n"
    "         kvtest stat ~/Pictures --json > shape.jsonl; kvtest init s.db --sizes-from shape.jsonl\n";

void init_defaults(struct init_opts *o)
{
    memset(o, 0, sizeof *o);
    o->count = 1000;
    o->size = 10000;
    o->variance = 0;
    o->pagesize = 4096;
    o->seed = 1;
    o->max_size = INIT_MAX_BLOB;
}

/* --- file handling ------------------------------------------------------ */

/* Refuse to clobber anything but a kvtest database (unless --force). */
static int check_target(const struct init_opts *o, const char *cmd)
{
    struct stat st;
    if (stat(o->path, &st) != 0) {
        if (errno == ENOENT)
            return 0;
        return cli_fail(cmd, "%s: %s", o->path, strerror(errno));
    }
    if (S_ISDIR(st.st_mode))
        return cli_fail(cmd, "%s: is a directory, not a database file", o->path);
    if (!S_ISREG(st.st_mode))
        return cli_fail(cmd, "%s: not a regular file", o->path);
    if (o->force)
        return 0;
    char why[512];
    if (layout_detect(o->path, why, sizeof why) != LAYOUT_DB || st.st_size == 0 ||
        store_db_check(o->path, why, sizeof why) != 0)
        return cli_fail(cmd, "refusing to overwrite %s: not a kvtest database (%s); "
                        "use --force to replace it", o->path,
                        st.st_size == 0 ? "empty file" : why);
    return 0;
}

/* Create the temporary database beside DBFILE (base/aside.h: registered
 * for removal from the moment it exists), with the permissions a plain
 * creat() would give it, and refuse up front if it cannot fit. */
static int tmp_create(const struct init_opts *o, const char *cmd, struct aside *t, double need)
{
    if (aside_create(t, o->path, ASIDE_SIBLING, ASIDE_SQLITE, 0666) != 0) {
        if (errno == ENAMETOOLONG)
            return cli_usage(cmd, "path too long: %s", o->path);
        return cli_fail(cmd, "cannot create a file in %s: %s", t->dir, strerror(errno));
    }
    struct statvfs vf;
    if (statvfs(t->dir, &vf) == 0 && (double)vf.f_bavail * (double)vf.f_frsize < need) {
        char a[32], b[32];
        units_format_bytes(a, sizeof a, (int64_t)need);
        units_format_bytes(b, sizeof b, (int64_t)((double)vf.f_bavail * (double)vf.f_frsize));
        aside_discard(t);
        return cli_fail(cmd, "%s: not enough space: about %s needed, %s available", t->dir,
                        a, b);
    }
    return 0;
}

/* Fill the temporary database; on failure it is removed and one line
 * printed. */
static int tmp_fill(const struct init_opts *o, const char *cmd, struct aside *t,
                    int randomblob, struct init_from *src, int64_t *bytes)
{
    struct db_create *c = NULL;
    char msg[1200] = "";
    /* Our method writes through the coalescing shim; the randomblob
     * baseline runs exactly as SQLite's kvtest does, on the default VFS. */
    int rc = db_create_open(&c, t->path, !randomblob);
    if (rc == 0)
        rc = randomblob ? db_create_randomblob(c, o->pagesize, o->count, o->size, o->variance)
             : src    ? init_from_fill(c, o, cmd, src, bytes)
                      : init_fill_fast(c, o, cmd, bytes);
    if (rc == 0 && src && src->stored == 0) {
        db_create_close(c, msg, sizeof msg);
        aside_discard(t);
        return cli_fail(cmd, "%s: no file could be read (%lld unreadable, %lld changed while "
                        "read)", o->from, (long long)src->unreadable, (long long)src->changed);
    }
    if (rc != 0) {
        db_create_error(c, msg, sizeof msg);
        db_create_discard(c);
    } else if (db_create_close(c, msg, sizeof msg) == 0) {
        return 0;
    }
    aside_discard(t);
    return cli_fail(cmd, "%s: %s", o->path, msg);
}

/* Give the complete file its real name. */
static int tmp_commit(const struct init_opts *o, const char *cmd, struct aside *t)
{
    if (aside_commit(t) != 0)
        return cli_fail(cmd, "%s: %s", o->path, strerror(errno));
    return 0;
}

static void init_report(const struct init_opts *o, int randomblob, int64_t bytes, double secs)
{
    if (o->quiet)
        return;
    if (o->out.json) {
        cJSON *j = report_json_new("init", o->path);
        cJSON *op = cJSON_AddObjectToObject(j, "options");
        cJSON_AddNumberToObject(op, "count", (double)o->count);
        cJSON_AddNumberToObject(op, "size", (double)o->size);
        cJSON_AddNumberToObject(op, "variance", (double)o->variance);
        cJSON_AddNumberToObject(op, "pagesize", (double)o->pagesize);
        cJSON_AddNumberToObject(op, "seed", (double)o->seed);
        cJSON_AddStringToObject(op, "method", randomblob ? "randomblob" : "kvtest");
        if (o->sizes_from) {
            cJSON_AddStringToObject(op, "sizes_from", o->sizes_from);
            cJSON_AddNumberToObject(op, "sizes_drawn_from", (double)o->nsizes);
        }
        cJSON *r = cJSON_AddObjectToObject(j, "result");
        cJSON_AddNumberToObject(r, "count", (double)o->count);
        if (bytes >= 0)
            cJSON_AddNumberToObject(r, "bytes", (double)bytes);
        cJSON_AddNumberToObject(r, "seconds", secs);
        report_json_print(j);
    } else if (bytes >= 0) {
        printf("Created %s: %lld blobs, %lld bytes in %.3f s\n", o->path, (long long)o->count,
               (long long)bytes, secs);
        if (o->sizes_from)
            printf("Sizes drawn from %s (%lld sizes, seed %llu)\n", o->sizes_from,
                   (long long)o->nsizes, (unsigned long long)o->seed);
    } else {
        printf("Created %s: %lld blobs (randomblob) in %.3f s\n", o->path,
               (long long)o->count, secs);
    }
}

static int init_validate(const struct init_opts *o, const char *cmd)
{
    if (!o->path || !*o->path)
        return cli_usage(cmd, "missing DBFILE");
    /* An LMDB or RocksDB store is made from a database, so that every
     * store holds the same bytes under the same keys (and --from data
     * is read once): two steps, said rather than guessed. */
    if (layout_prefix_kind(o->path) != LAYOUT_MISSING)
        return cli_usage(cmd, "%s: init makes an SQLite database; make one, then "
                         "\"kvtest export DBFILE %s\"", o->path, o->path);
    if (o->count < 1 || o->count > INIT_MAX_COUNT)
        return cli_usage(cmd, "--count must be between 1 and %lld, got %lld",
                         (long long)INIT_MAX_COUNT, (long long)o->count);
    if (o->size < 1 || o->size > INIT_MAX_BLOB)
        return cli_usage(cmd, "--size must be between 1 and %lld (SQLite's largest blob), got %lld",
                         (long long)INIT_MAX_BLOB, (long long)o->size);
    if (o->variance < 0 || o->variance >= o->size)
        return cli_usage(cmd, "--variance must be smaller than --size (%lld), got %lld",
                         (long long)o->size, (long long)o->variance);
    if (o->size + o->variance > INIT_MAX_BLOB)
        return cli_usage(cmd, "--size plus --variance exceeds %lld (SQLite's largest blob)",
                         (long long)INIT_MAX_BLOB);
    if (o->pagesize < 512 || o->pagesize > 65536 || (o->pagesize & (o->pagesize - 1)))
        return cli_usage(cmd, "--pagesize must be a power of 2 between 512 and 65536, got %lld",
                         (long long)o->pagesize);
    return 0;
}

/* Blobs plus B-tree overhead (about 1% at 4 KiB pages, more for small
 * blobs): refused up front rather than dying half-way. */
static double need_bytes(const struct init_opts *o, const struct init_from *src)
{
    if (src)
        return ((double)src->w.bytes + 64.0 * (double)src->w.n) * 1.02;
    double mean = (double)o->size;
    if (o->nsizes) {
        double sum = 0;
        for (int64_t i = 0; i < o->nsizes; i++)
            sum += (double)o->sizes[i];
        mean = sum / (double)o->nsizes;
    }
    return (double)o->count * (mean + 64.0) * 1.02;
}

static int init_run(const struct init_opts *o, const char *cmd, int randomblob)
{
    int rc = init_validate(o, cmd);
    if (rc)
        return rc;
    if ((rc = check_target(o, cmd)) != 0)
        return rc;
    struct init_from from, *src = NULL;
    uint64_t t0 = clock_now_ns();
    if (o->from) {
        if ((rc = init_from_scan(o, cmd, &from)) != 0) {
            init_from_free(&from);
            return rc;
        }
        src = &from;
    }
    cleanup_begin(cmd);
    struct aside t;
    int64_t bytes = 0;
    rc = tmp_create(o, cmd, &t, need_bytes(o, src));
    if (rc == 0)
        rc = tmp_fill(o, cmd, &t, randomblob, src, &bytes);
    if (rc == 0)
        rc = tmp_commit(o, cmd, &t);
    cleanup_end();
    double secs = (double)(clock_now_ns() - t0) / 1e9;
    if (rc == 0 && src)
        init_from_report(o, src, bytes, secs);
    else if (rc == 0)   /* randomblob: bytes not tracked; "stat" tells. */
        init_report(o, randomblob, randomblob ? -1 : bytes, secs);
    if (src)
        init_from_free(src);
    return rc;
}

int init_create(const struct init_opts *o, const char *cmd)
{
    return init_run(o, cmd, 0);
}

/* --from and --sizes-from against the options they cannot go with. count,
 * size and variance are -1 when not given. */
static int user_data_opts(struct init_opts *o, int64_t count, int64_t size, int64_t variance,
                          int randomblob)
{
    const char *which = o->from ? "--from" : "--sizes-from";
    if (o->from && o->sizes_from)
        return cli_usage("init", "--from and --sizes-from conflict: one source of data");
    if ((o->from && count >= 0) || size >= 0 || variance >= 0)
        return cli_usage("init", "%s cannot be combined with --%s: the sizes come from the data",
                         which, (o->from && count >= 0) ? "count" : size >= 0 ? "size" : "variance");
    if (randomblob)
        return cli_usage("init", "%s cannot be combined with --method randomblob", which);
    if (count >= 0)
        o->count = count;
    return 0;
}

int cmd_init(int argc, char **argv)
{
    struct init_opts o;
    init_defaults(&o);
    static const char *const methods[] = {"kvtest", "randomblob", NULL};
    int method = 0;
    int64_t seed = 1, count = -1, size = -1, variance = -1;
    char err[128];
    const struct cli_opt opts[] = {
        CLI_INT_OPT("count", &count, 1, INIT_MAX_COUNT),
        CLI_INT_OPT("size", &size, 1, INIT_MAX_BLOB),
        CLI_INT_OPT("variance", &variance, 0, INIT_MAX_BLOB),
        CLI_INT_OPT("pagesize", &o.pagesize, 0, INT64_MAX),
        CLI_INT_OPT("seed", &seed, 0, INT64_MAX),
        CLI_FLAG_OPT("force", &o.force),
        REPORT_OUT_JSON_OPT(&o.out),
        CLI_PATH_OPT("from", &o.from),
        CLI_PATH_OPT("sizes-from", &o.sizes_from),
        REPORT_OUT_CSV_OPT(&o.out),
        CLI_INT_OPT("max-size", &o.max_size, 1, INIT_MAX_BLOB),
        CLI_HIDDEN_ENUM_OPT("method", &method, methods),   /* benchmark baseline */
    };
    int rc = cli_parse_one("init", argc, argv, opts, CLI_COUNT(opts), &o.path,
                           "missing DBFILE (usage: kvtest init DBFILE [options])");
    if (rc || (rc = cli_status("init", report_out_begin(&o.out, NULL, err, sizeof err), err)))
        return rc;
    o.seed = (uint64_t)seed;
    int randomblob = method == 1;   /* methods[1] */
    if (!o.from && !o.sizes_from) {
        o.count = count >= 0 ? count : o.count;
        o.size = size >= 0 ? size : o.size;
        o.variance = variance >= 0 ? variance : o.variance;
        return init_run(&o, "init", randomblob);
    }
    if ((rc = user_data_opts(&o, count, size, variance, randomblob)) != 0)
        return rc;
    if ((o.from && !*o.from) || (o.sizes_from && !*o.sizes_from))
        return cli_usage("init", "%s needs a non-empty path", o.from ? "--from" : "--sizes-from");
    if (o.from)
        return init_run(&o, "init", 0);
    /* Validated before the sizes are read, so misuse costs no walk. */
    if ((rc = init_validate(&o, "init")) != 0)
        return rc;
    int64_t *sizes = NULL;
    if ((rc = init_sizes_load(&o, "init", &sizes)) != 0)
        return rc;
    if (count < 0)
        o.count = o.nsizes;   /* as many blobs as the source has files */
    rc = init_run(&o, "init", 0);
    free(sizes);
    return rc;
}
