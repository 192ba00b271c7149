/* init_from: "kvtest init DBFILE --from DIR" stores the user's own files,
 * one blob each, so the benchmark runs on their data instead of uniform
 * random blobs; and "--sizes-from" takes only the sizes of such data.
 *
 * Keys 1..N follow the byte order of the relative paths, so two runs over
 * the same directory give the same database. The paths go to a side table
 * kv_path(k INTEGER PRIMARY KEY, path TEXT): kv itself keeps the schema of
 * SQLite's kvtest, and the side table is written after every blob so kv's
 * pages lie in one contiguous run, as "kvtest init" lays them out. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/cli.h"
#include "commands/init_int.h"
#include "measure/progress.h"
#include "measure/report.h"
#include "measure/sizedist.h"

/* Files up to this size are read whole into one buffer; larger ones are
 * streamed into a zeroblob in chunks of this size, so memory stays small
 * whatever --max-size allows. */
#define FROM_CHUNK (16LL << 20)
#define FROM_WARNINGS 10   /* unreadable files named on stderr, then a count */

int init_from_scan(const struct init_opts *o, const char *cmd, struct init_from *src)
{
    memset(src, 0, sizeof *src);
    char err[4300];
    if (walk_dir(o->from, o->max_size, &src->w, err, sizeof err) != 0)
        return cli_fail(cmd, "%s", err);
    if (src->w.n == 0)
        return cli_fail(cmd, "%s: no file to store (%lld empty, %lld over --max-size, "
                        "%lld symlinks, %lld special, %lld unreadable directories)",
                        o->from, (long long)src->w.empty, (long long)src->w.too_large,
                        (long long)src->w.symlinks, (long long)src->w.special,
                        (long long)src->w.unreadable);
    src->key_file = malloc((size_t)src->w.n * sizeof *src->key_file);
    if (!src->key_file)
        return cli_fail(cmd, "%s: out of memory", o->from);
    return 0;
}

void init_from_free(struct init_from *src)
{
    walk_free(&src->w);
    free(src->key_file);
    src->key_file = NULL;
}

/* Read exactly n bytes; 0, 1 if the file ended early or goes on (it
 * changed since it was sized), -1 on a read error (errno). */
static int read_exact(int fd, unsigned char *buf, int64_t n, int last)
{
    int64_t got = 0;
    while (got < n) {
        ssize_t r = read(fd, buf + got, (size_t)(n - got));
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0)
            return -1;
        if (r == 0)
            return 1;
        got += r;
    }
    if (last) {
        char extra;
        ssize_t r = read(fd, &extra, 1);
        if (r < 0)
            return -1;
        if (r > 0)
            return 1;
    }
    return 0;
}

/* A large file: a zeroblob of its size, filled chunk by chunk. Returns an
 * SQLite code; *frc gets read_exact's verdict (the row is removed unless 0). */
static int store_chunked(sqlite3 *db, sqlite3_stmt *ins, int fd, int64_t k, int64_t n,
                         unsigned char *buf, int *frc)
{
    sqlite3_bind_int64(ins, 1, k);
    sqlite3_bind_zeroblob64(ins, 2, (sqlite3_uint64)n);
    int rc = sqlite3_step(ins);
    sqlite3_reset(ins);
    if (rc != SQLITE_DONE)
        return rc;
    sqlite3_blob *b = NULL;
    rc = sqlite3_blob_open(db, "main", "kv", "v", k, 1, &b);
    *frc = 0;
    for (int64_t off = 0; rc == SQLITE_OK && *frc == 0 && off < n; off += FROM_CHUNK) {
        int64_t len = n - off < FROM_CHUNK ? n - off : FROM_CHUNK;
        *frc = read_exact(fd, buf, len, off + len == n);
        if (*frc == 0)
            rc = sqlite3_blob_write(b, buf, (int)len, (int)off);
    }
    int rc2 = sqlite3_blob_close(b);
    if (rc == SQLITE_OK)
        rc = rc2;
    if (rc == SQLITE_OK && *frc != 0) {
        char sql[80];
        snprintf(sql, sizeof sql, "DELETE FROM kv WHERE k=%lld", (long long)k);
        rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
    }
    return rc;
}

/* One candidate: store it as key src->stored + 1, or count why not. */
static int store_one(sqlite3 *db, sqlite3_stmt *ins, int topfd, const struct init_opts *o,
                     const char *cmd, struct init_from *src, int64_t i, unsigned char *buf,
                     int64_t *bytes)
{
    const char *rel = src->w.f[i].rel;
    int fd = openat(topfd, rel, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    struct stat st;
    int frc = -1, rc = SQLITE_OK;
    int64_t k = src->stored + 1;
    if (fd >= 0 && fstat(fd, &st) == 0) {
        int64_t n = (int64_t)st.st_size;
        if (!S_ISREG(st.st_mode) || n < 1 || n > o->max_size) {
            frc = 1;   /* replaced or resized since the walk */
        } else if (n <= FROM_CHUNK) {
            frc = read_exact(fd, buf, n, 1);
            if (frc == 0) {
                sqlite3_bind_int64(ins, 1, k);
                sqlite3_bind_blob64(ins, 2, buf, (sqlite3_uint64)n, SQLITE_STATIC);
                rc = sqlite3_step(ins);
                sqlite3_reset(ins);
                rc = rc == SQLITE_DONE ? SQLITE_OK : rc;
            }
        } else {
            rc = store_chunked(db, ins, fd, k, n, buf, &frc);
        }
        if (frc == 0)
            *bytes += n;
    }
    int e = errno;
    if (fd >= 0)
        close(fd);
    if (rc != SQLITE_OK)
        return rc;
    if (frc == 0) {
        src->key_file[src->stored++] = i;
    } else if (frc == 1) {
        src->changed++;
    } else if (src->unreadable++ < FROM_WARNINGS) {
        cli_warn(cmd, "skipped %s/%s: %s", o->from, rel, strerror(e));
    }
    return SQLITE_OK;
}

static int write_paths(sqlite3 *db, const struct init_from *src)
{
    int rc = sqlite3_exec(db, "CREATE TABLE kv_path(k INTEGER PRIMARY KEY, path TEXT NOT NULL)",
                          NULL, NULL, NULL);
    sqlite3_stmt *st = NULL;
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(db, "INSERT INTO kv_path(k,path) VALUES(?1,?2)", -1, &st, NULL);
    for (int64_t k = 1; rc == SQLITE_OK && k <= src->stored; k++) {
        sqlite3_bind_int64(st, 1, k);
        sqlite3_bind_text(st, 2, src->w.f[src->key_file[k - 1]].rel, -1, SQLITE_STATIC);
        rc = sqlite3_step(st);
        sqlite3_reset(st);
        rc = rc == SQLITE_DONE ? SQLITE_OK : rc;
    }
    sqlite3_finalize(st);
    return rc;
}

int init_from_fill(sqlite3 *db, const struct init_opts *o, const char *cmd,
                   struct init_from *src, int64_t *bytes)
{
    char sql[256];
    snprintf(sql, sizeof sql,
             "PRAGMA page_size=%lld; PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;"
             "PRAGMA locking_mode=EXCLUSIVE; PRAGMA cache_size=-65536;"
             "CREATE TABLE kv(k INTEGER PRIMARY KEY, v BLOB); BEGIN;",
             (long long)o->pagesize);
    int rc = sqlite3_exec(db, sql, NULL, NULL, NULL);
    sqlite3_stmt *ins = NULL;
    if (rc == SQLITE_OK)
        rc = sqlite3_prepare_v2(db, "INSERT INTO kv(k,v) VALUES(?1,?2)", -1, &ins, NULL);
    int64_t largest = 0;
    for (int64_t i = 0; i < src->w.n; i++)
        largest = src->w.f[i].size > largest ? src->w.f[i].size : largest;
    unsigned char *buf = malloc((size_t)(largest < FROM_CHUNK ? largest : FROM_CHUNK));
    int topfd = open(o->from, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (rc == SQLITE_OK && (!buf || topfd < 0))
        rc = buf ? SQLITE_CANTOPEN : SQLITE_NOMEM;
    struct progress pr;
    progress_start(&pr, cmd, src->w.n);
    int64_t committed = 0;
    for (int64_t i = 0; i < src->w.n && rc == SQLITE_OK; i++) {
        rc = store_one(db, ins, topfd, o, cmd, src, i, buf, bytes);
        /* Commit every 32 MB, as init_fill_fast does and for its reason. */
        if (rc == SQLITE_OK && *bytes - committed >= 32000000) {
            rc = sqlite3_exec(db, "COMMIT; BEGIN", NULL, NULL, NULL);
            committed = *bytes;
        }
        if ((i & 63) == 0)
            progress_update(&pr, i + 1, *bytes);
    }
    progress_end(&pr);
    if (src->unreadable > FROM_WARNINGS)
        cli_warn(cmd, "%lld more unreadable files skipped",
                 (long long)(src->unreadable - FROM_WARNINGS));
    if (topfd >= 0)
        close(topfd);
    free(buf);
    sqlite3_finalize(ins);
    if (rc == SQLITE_OK)
        rc = write_paths(db, src);
    if (rc == SQLITE_OK)
        rc = sqlite3_exec(db, "COMMIT", NULL, NULL, NULL);
    return rc;
}

void init_from_report(const struct init_opts *o, const struct init_from *src, int64_t bytes,
                      double secs)
{
    const struct walk *w = &src->w;
    if (o->quiet)
        return;
    if (!o->json) {
        printf("Created %s: %lld blobs, %lld bytes in %.3f s\n", o->path,
               (long long)src->stored, (long long)bytes, secs);
        printf("From %s: %lld files stored; skipped %lld empty, %lld over --max-size, "
               "%lld symlinks (not followed), %lld special, %lld unreadable, "
               "%lld changed while read\n",
               o->from, (long long)src->stored, (long long)w->empty, (long long)w->too_large,
               (long long)w->symlinks, (long long)w->special,
               (long long)(src->unreadable + w->unreadable), (long long)src->changed);
        return;
    }
    cJSON *j = report_json_new("init", o->path);
    cJSON *op = cJSON_AddObjectToObject(j, "options");
    cJSON_AddStringToObject(op, "from", o->from);
    cJSON_AddNumberToObject(op, "max_size", (double)o->max_size);
    cJSON_AddNumberToObject(op, "pagesize", (double)o->pagesize);
    cJSON *r = cJSON_AddObjectToObject(j, "result");
    cJSON_AddNumberToObject(r, "count", (double)src->stored);
    cJSON_AddNumberToObject(r, "bytes", (double)bytes);
    cJSON_AddNumberToObject(r, "seconds", secs);
    cJSON *s = cJSON_AddObjectToObject(r, "skipped");
    cJSON_AddNumberToObject(s, "empty", (double)w->empty);
    cJSON_AddNumberToObject(s, "too_large", (double)w->too_large);
    cJSON_AddNumberToObject(s, "symlinks", (double)w->symlinks);
    cJSON_AddNumberToObject(s, "special", (double)w->special);
    cJSON_AddNumberToObject(s, "unreadable", (double)(src->unreadable + w->unreadable));
    cJSON_AddNumberToObject(s, "changed", (double)src->changed);
    report_json_print(j);
}

/* Sizes of 1..max_size bytes from v[0..n) (in place); the count kept. */
static int64_t keep_sizes(int64_t *v, int64_t n, int64_t max_size)
{
    int64_t m = 0;
    for (int64_t i = 0; i < n; i++)
        if (v[i] >= 1 && v[i] <= max_size)
            v[m++] = v[i];
    return m;
}

int init_sizes_load(struct init_opts *o, const char *cmd, int64_t **owned)
{
    char err[4300];
    int64_t *v = NULL, n = 0;
    struct stat st;
    if (stat(o->sizes_from, &st) == 0 && S_ISDIR(st.st_mode)) {
        struct walk w;
        if (walk_dir(o->sizes_from, o->max_size, &w, err, sizeof err) != 0) {
            walk_free(&w);
            return cli_fail(cmd, "%s", err);
        }
        v = malloc((size_t)(w.n ? w.n : 1) * sizeof *v);
        for (int64_t i = 0; v && i < w.n; i++)
            v[n++] = w.f[i].size;
        walk_free(&w);
        if (!v)
            return cli_fail(cmd, "%s: out of memory", o->sizes_from);
    } else if (sizedist_load_json(o->sizes_from, &v, &n, err, sizeof err) != 0) {
        return cli_fail(cmd, "%s", err);
    }
    n = keep_sizes(v, n, o->max_size);
    if (n == 0) {
        free(v);
        return cli_fail(cmd, "%s: no size between 1 and --max-size (%lld) to draw from",
                        o->sizes_from, (long long)o->max_size);
    }
    struct sizedist d;
    sizedist_own(&d, v, n);   /* sorted: the draw does not depend on walk order */
    o->sizes = d.v;
    o->nsizes = d.n;
    o->sizes_max = d.v[d.n - 1];
    *owned = d.v;
    return 0;
}
