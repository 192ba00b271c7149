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
#include "commands/init/init_int.h"
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

/* db_create_read_fn over a file descriptor (ctx points to it). */
static int read_fd(void *ctx, unsigned char *buf, int64_t len, int last)
{
    return read_exact(*(int *)ctx, buf, len, last);
}

/* One candidate: store it as key src->stored + 1, or count why not. */
static int store_one(struct db_create *c, int topfd, const struct init_opts *o,
                     const char *cmd, struct init_from *src, int64_t i, unsigned char *buf,
                     int64_t *bytes)
{
    const char *rel = src->w.f[i].rel;
    int fd = openat(topfd, rel, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
    struct stat st;
    int frc = -1, rc = 0;
    int64_t k = src->stored + 1;
    if (fd >= 0 && fstat(fd, &st) == 0) {
        int64_t n = (int64_t)st.st_size;
        if (!S_ISREG(st.st_mode) || n < 1 || n > o->max_size) {
            frc = 1;   /* replaced or resized since the walk */
        } else if (n <= FROM_CHUNK) {
            frc = read_exact(fd, buf, n, 1);
            if (frc == 0)
                rc = db_create_put(c, k, buf, n);
        } else {
            /* Streamed into a zeroblob of its size; the row is removed
             * again unless read_exact says 0. */
            rc = db_create_put_chunked(c, k, n, buf, FROM_CHUNK, read_fd, &fd, &frc);
        }
        if (frc == 0)
            *bytes += n;
    }
    int e = errno;
    if (fd >= 0)
        close(fd);
    if (rc != 0)
        return rc;
    if (frc == 0) {
        src->key_file[src->stored++] = i;
    } else if (frc == 1) {
        src->changed++;
    } else if (src->unreadable++ < FROM_WARNINGS) {
        cli_warn(cmd, "skipped %s/%s: %s", o->from, rel, strerror(e));
    }
    return 0;
}

/* db_create_path_fn: key k's relative path (ctx is the struct init_from). */
static const char *key_path(void *ctx, int64_t k)
{
    const struct init_from *src = ctx;
    return src->w.f[src->key_file[k - 1]].rel;
}

int init_from_fill(struct db_create *c, const struct init_opts *o, const char *cmd,
                   struct init_from *src, int64_t *bytes)
{
    int rc = db_create_begin(c, o->pagesize);
    int64_t largest = 0;
    for (int64_t i = 0; i < src->w.n; i++)
        largest = src->w.f[i].size > largest ? src->w.f[i].size : largest;
    unsigned char *buf = malloc((size_t)(largest < FROM_CHUNK ? largest : FROM_CHUNK));
    int topfd = open(o->from, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (rc == 0 && (!buf || topfd < 0))
        rc = -1;
    struct progress pr;
    progress_start(&pr, cmd, src->w.n);
    int64_t committed = 0;
    for (int64_t i = 0; i < src->w.n && rc == 0; i++) {
        rc = store_one(c, topfd, o, cmd, src, i, buf, bytes);
        /* Commit every 32 MB, as init_fill_fast does and for its reason. */
        if (rc == 0 && *bytes - committed >= 32000000) {
            rc = db_create_batch(c);
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
    db_create_puts_done(c);
    if (rc == 0)
        rc = db_create_paths(c, src->stored, key_path, src);
    if (rc == 0)
        rc = db_create_commit(c);
    return rc;
}

void init_from_report(const struct init_opts *o, const struct init_from *src, int64_t bytes,
                      double secs)
{
    const struct walk *w = &src->w;
    if (o->quiet)
        return;
    if (!o->out.json) {
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
