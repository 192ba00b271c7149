/* export: one file per blob, byte-identical to it, named as SQLite's kvtest
 * names them (flat 000001, tree 00/00/01). With --jobs J, J threads each
 * read their own key range through their own connection and write files;
 * a file that could not be written completely is removed, so no half-file
 * ever pretends to be a blob. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands/export.h"
#include "base/cli.h"
#include "measure/clock.h"
#include "commands/commands.h"
#include "stores/layout.h"
#include "measure/progress.h"
#include "measure/report.h"
#include "sqlite3.h"
#include "stores/store.h"

const char help_export[] =
    "Usage: kvtest export DBFILE DIRECTORY [options]\n"
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
    "\n"
    "A non-empty DIRECTORY is accepted without --force only if it holds an\n"
    "earlier export of the same layout; files of that export whose keys the\n"
    "database no longer has are removed so that max-id stays right. Progress\n"
    "(rate, ETA) goes to stderr when it is a terminal.\n"
    "\n"
    "Example: kvtest export x1.db x1 --tree --jobs 2\n";

void export_defaults(struct export_opts *o)
{
    memset(o, 0, sizeof *o);
    o->jobs = 1;
}

struct shared {
    const struct export_opts *o;
    int64_t lo, hi;               /* key range of the database */
    atomic_llong done, bytes;
    atomic_int failed;
    pthread_mutex_t err_mu;
    char err[1024];
    struct progress pr;           /* updated by job 0 only */
};

struct job {
    struct shared *sh;
    int64_t from, to;             /* keys [from, to] */
    int index;
};

static void job_fail(struct shared *sh, const char *fmt, const char *a, const char *b)
{
    pthread_mutex_lock(&sh->err_mu);
    if (!atomic_load(&sh->failed))
        snprintf(sh->err, sizeof sh->err, fmt, a, b);
    atomic_store(&sh->failed, 1);
    pthread_mutex_unlock(&sh->err_mu);
}

/* mkdir -p of the two directory levels of a tree file; cached so a run of
 * keys in the same directory costs no syscall. */
static int ensure_dirs(char *path, size_t dirlen, char *last, size_t lastcap)
{
    /* path = DIR/aa/bb/cc : the directory part is everything up to the last '/'. */
    char *slash = strrchr(path, '/');
    size_t n = (size_t)(slash - path);
    if (n < lastcap && strncmp(last, path, n) == 0 && last[n] == '\0')
        return 0;
    *slash = '\0';
    char *mid = strrchr(path, '/');
    int rc = 0;
    if (mkdir(path, 0755) != 0 && errno != EEXIST) {
        if (errno == ENOENT && mid && mid > path + dirlen) {
            *mid = '\0';
            if (mkdir(path, 0755) != 0 && errno != EEXIST)
                rc = -1;
            *mid = '/';
            if (rc == 0 && mkdir(path, 0755) != 0 && errno != EEXIST)
                rc = -1;
        } else {
            rc = -1;
        }
    }
    if (rc == 0)
        snprintf(last, lastcap, "%s", path);
    *slash = '/';
    return rc;
}

static int write_file(const char *path, const void *data, size_t n)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return -1;
    const char *p = data;
    size_t left = n;
    while (left > 0) {
        ssize_t w = write(fd, p, left);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            int e = errno;
            close(fd);
            unlink(path);
            errno = e;
            return -1;
        }
        p += w;
        left -= (size_t)w;
    }
    if (close(fd) != 0) {
        int e = errno;
        unlink(path);
        errno = e;
        return -1;
    }
    return 0;
}

static void *job_main(void *arg)
{
    struct job *jb = arg;
    struct shared *sh = jb->sh;
    const struct export_opts *o = sh->o;
    sqlite3 *db = NULL;
    sqlite3_stmt *st = NULL;
    size_t dirlen = strlen(o->dir);
    size_t cap = dirlen + 64;
    char *path = malloc(cap);
    char last[4200] = "";
    if (!path) {
        job_fail(sh, "%s%s", "out of memory", "");
        return NULL;
    }
    memcpy(path, o->dir, dirlen);
    path[dirlen] = '/';
    if (sqlite3_open_v2(o->db, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db, "SELECT k, v FROM kv WHERE k BETWEEN ?1 AND ?2 ORDER BY k", -1,
                           &st, NULL) != SQLITE_OK) {
        job_fail(sh, "%s: %s", o->db, db ? sqlite3_errmsg(db) : "out of memory");
        goto done;
    }
    sqlite3_bind_int64(st, 1, jb->from);
    sqlite3_bind_int64(st, 2, jb->to);
    int rc;
    int64_t mine = 0;
    while (!atomic_load(&sh->failed) && (rc = sqlite3_step(st)) == SQLITE_ROW) {
        int64_t k = sqlite3_column_int64(st, 0);
        const void *v = sqlite3_column_blob(st, 1);
        int64_t n = sqlite3_column_bytes(st, 1);
        if (k < 0) {
            job_fail(sh, "%s: %s", o->db, "negative key: not a kvtest database");
            break;
        }
        layout_relname(path + dirlen + 1, cap - dirlen - 1, o->tree, k);
        if (o->tree && ensure_dirs(path, dirlen, last, sizeof last) != 0) {
            job_fail(sh, "%s: %s", path, strerror(errno));
            break;
        }
        if (write_file(path, v ? v : "", (size_t)n) != 0) {
            job_fail(sh, "%s: %s", path, strerror(errno));
            break;
        }
        atomic_fetch_add(&sh->done, 1);
        atomic_fetch_add(&sh->bytes, n);
        if (jb->index == 0 && (++mine & 63) == 0)
            progress_update(&sh->pr, atomic_load(&sh->done), atomic_load(&sh->bytes));
    }
    if (!atomic_load(&sh->failed) && rc != SQLITE_DONE)
        job_fail(sh, "%s: %s", o->db, sqlite3_errmsg(db));
done:
    sqlite3_finalize(st);
    sqlite3_close(db);
    free(path);
    return NULL;
}

/* Files of an earlier export whose keys are beyond the database's: left in
 * place they would make "run" pick a larger max-id than the data has. */
static int64_t remove_stale(const char *dir, int tree, int64_t maxk)
{
    int64_t removed = 0, top = layout_max_key(dir, tree);
    char p[4200];
    for (int64_t k = maxk + 1; k <= top; k++)
        if (layout_path(p, sizeof p, dir, tree, k) > 0 && unlink(p) == 0)
            removed++;
    return removed;
}

int export_write(const struct export_opts *o, const char *cmd)
{
    if (!o->db || !o->dir)
        return cli_usage(cmd, "missing DBFILE or DIRECTORY");
    if (o->jobs < 1 || o->jobs > 256)
        return cli_usage(cmd, "--jobs must be between 1 and 256, got %lld", (long long)o->jobs);
    char why[600];
    enum layout_kind k = layout_detect(o->db, why, sizeof why);
    if (k == LAYOUT_MISSING || k == LAYOUT_OTHER)
        return cli_fail(cmd, "%s", why);
    if (k != LAYOUT_DB)
        return cli_fail(cmd, "%s: is a directory, not a database file", o->db);
    if (store_db_check(o->db, why, sizeof why) != 0)
        return cli_fail(cmd, "%s", why);

    struct stat st;
    int existed = 0;
    if (stat(o->dir, &st) == 0) {
        if (!S_ISDIR(st.st_mode))
            return cli_fail(cmd, "%s: exists and is not a directory", o->dir);
        existed = 1;
    } else if (errno != ENOENT) {
        return cli_fail(cmd, "%s: %s", o->dir, strerror(errno));
    } else if (mkdir(o->dir, 0755) != 0) {
        return cli_fail(cmd, "cannot create %s: %s", o->dir, strerror(errno));
    }
    int earlier = 0;
    if (existed) {
        int64_t nent = 0;
        int ex = layout_is_export(o->dir, &nent);
        if (ex < 0)
            return cli_fail(cmd, "%s: %s", o->dir, strerror(errno));
        if (nent > 0) {
            enum layout_kind was = layout_detect(o->dir, why, sizeof why);
            int same = ex && (was == LAYOUT_TREE) == (o->tree != 0);
            if (!same && !o->force) {
                if (ex)
                    return cli_fail(cmd, "%s holds a %s export; refusing to mix in a %s one "
                                    "(use another directory, or --force)", o->dir,
                                    layout_kind_name(was), o->tree ? "tree" : "flat");
                return cli_fail(cmd, "%s is not empty and not an earlier export; "
                                "refusing to write into it (use --force)", o->dir);
            }
            earlier = same;
        }
    }
    if (access(o->dir, W_OK) != 0)
        return cli_fail(cmd, "%s: %s", o->dir, strerror(errno));
    /* A tree is recognised by its 00 directory, even if key 1..99 are absent. */
    if (o->tree) {
        char p[4200];
        snprintf(p, sizeof p, "%s/00", o->dir);
        if (mkdir(p, 0755) != 0 && errno != EEXIST)
            return cli_fail(cmd, "cannot create %s: %s", p, strerror(errno));
    }

    struct shared sh;
    memset(&sh, 0, sizeof sh);
    sh.o = o;
    pthread_mutex_init(&sh.err_mu, NULL);
    /* Key range and count, to split the work and show progress. */
    sqlite3 *db = NULL;
    sqlite3_stmt *q = NULL;
    int64_t count = 0;
    if (sqlite3_open_v2(o->db, &db, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK ||
        sqlite3_prepare_v2(db, "SELECT min(k), max(k), count(*) FROM kv", -1, &q, NULL) !=
            SQLITE_OK ||
        sqlite3_step(q) != SQLITE_ROW) {
        int rc = cli_fail(cmd, "%s: %s", o->db, db ? sqlite3_errmsg(db) : "out of memory");
        sqlite3_finalize(q);
        sqlite3_close(db);
        return rc;
    }
    sh.lo = sqlite3_column_int64(q, 0);
    sh.hi = sqlite3_column_int64(q, 1);
    count = sqlite3_column_int64(q, 2);
    sqlite3_finalize(q);
    sqlite3_close(db);

    uint64_t t0 = clock_now_ns();
    progress_start(&sh.pr, cmd, count);
    int64_t jobs = o->jobs;
    if (count > 0 && jobs > count)
        jobs = count;
    struct job *jb = calloc((size_t)jobs, sizeof *jb);
    pthread_t *th = calloc((size_t)jobs, sizeof *th);
    if (!jb || !th) {
        free(jb);
        free(th);
        return cli_fail(cmd, "out of memory");
    }
    /* Equal key ranges: kvtest keys are dense, so equal work. */
    int64_t span = count > 0 ? sh.hi - sh.lo + 1 : 0;
    int64_t started = 0;
    for (int64_t j = 0; j < jobs && count > 0; j++) {
        jb[j].sh = &sh;
        jb[j].index = (int)j;
        jb[j].from = sh.lo + span / jobs * j + (j < span % jobs ? j : span % jobs);
        jb[j].to = jb[j].from + span / jobs + (j < span % jobs ? 1 : 0) - 1;
        if (j == 0 && jobs == 1) {
            job_main(&jb[0]);
            continue;
        }
        if (pthread_create(&th[j], NULL, job_main, &jb[j]) != 0) {
            job_fail(&sh, "%s%s", "cannot start a thread: ", strerror(errno));
            break;
        }
        started = j + 1;
    }
    for (int64_t j = 0; j < started; j++)
        pthread_join(th[j], NULL);
    free(jb);
    free(th);
    progress_end(&sh.pr);
    pthread_mutex_destroy(&sh.err_mu);
    if (atomic_load(&sh.failed))
        return cli_fail(cmd, "%s", sh.err);
    int64_t stale = earlier ? remove_stale(o->dir, o->tree, count > 0 ? sh.hi : 0) : 0;
    double secs = (double)(clock_now_ns() - t0) / 1e9;
    int64_t done = atomic_load(&sh.done), bytes = atomic_load(&sh.bytes);

    if (o->quiet)
        return 0;
    if (o->json) {
        cJSON *j = report_json_new("export", o->dir);
        cJSON *op = cJSON_AddObjectToObject(j, "options");
        cJSON_AddStringToObject(op, "db", o->db);
        cJSON_AddStringToObject(op, "dir", o->dir);
        cJSON_AddBoolToObject(op, "tree", o->tree);
        cJSON_AddNumberToObject(op, "jobs", (double)o->jobs);
        cJSON_AddBoolToObject(op, "force", o->force);
        cJSON *r = cJSON_AddObjectToObject(j, "result");
        cJSON_AddStringToObject(r, "layout", o->tree ? "tree" : "flat");
        cJSON_AddNumberToObject(r, "files", (double)done);
        cJSON_AddNumberToObject(r, "bytes", (double)bytes);
        cJSON_AddNumberToObject(r, "stale_removed", (double)stale);
        cJSON_AddNumberToObject(r, "seconds", secs);
        report_json_print(j);
    } else {
        printf("Exported %lld blobs (%lld bytes) from %s to %s (%s) in %.3f s\n",
               (long long)done, (long long)bytes, o->db, o->dir, o->tree ? "tree" : "flat", secs);
        if (stale)
            printf("Removed %lld files of an earlier export beyond key %lld\n", (long long)stale,
                   (long long)sh.hi);
    }
    return 0;
}

int cmd_export(int argc, char **argv)
{
    struct export_opts o;
    export_defaults(&o);
    const struct cli_opt opts[] = {
        {"tree", CLI_FLAG, &o.tree, 0, 0, 0, 0},
        {"force", CLI_FLAG, &o.force, 0, 0, 0, 0},
        {"jobs", CLI_INT, &o.jobs, 1, 256, 0, 0},
        {"json", CLI_FLAG, &o.json, 0, 0, 0, 0},
    };
    const char *pos[2];
    int npos;
    int rc = cli_parse("export", argc, argv, opts, (int)(sizeof opts / sizeof opts[0]), pos, 2,
                       &npos);
    if (rc)
        return rc;
    if (npos < 2)
        return cli_usage("export", "missing %s (usage: kvtest export DBFILE DIRECTORY [--tree])",
                         npos ? "DIRECTORY" : "DBFILE and DIRECTORY");
    o.db = pos[0];
    o.dir = pos[1];
    return export_write(&o, "export");
}
