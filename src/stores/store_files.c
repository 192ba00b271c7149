/* store_files: one file per blob (flat 000001 or tree 00/00/01), read and
 * written through stdio per blob: fopen, fread/fwrite of the whole file,
 * fclose -- the path SQLite's article compared the database against. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "stores/store_int.h"
#include "stores/blobsum.h"
#include "measure/coldcache.h"

/* The files store's private state. */
struct files_store {
    struct store base;         /* first: struct store * <-> struct files_store * */
    int tree;                  /* layout: 00/00/01 rather than 000001 */
    int fadvise;               /* -1 leave, 0 normal, 1 random */
    struct store_files_opts o;
    char *pathbuf;             /* dir + "/" + name of the current key */
    size_t pathcap, dirlen;
    struct store_buf buf;
};

static struct files_store *files_of(struct store *s)
{
    return (struct files_store *)s;
}

static int files_open(struct store **out, const struct store_opts *so, char *err, size_t errcap)
{
    struct files_store *s = calloc(1, sizeof *s);
    size_t dirlen = strlen(so->path);
    char *pathbuf = s ? malloc(dirlen + 64) : NULL;
    if (!pathbuf) {
        free(s);
        snprintf(err, errcap, "out of memory");
        return -1;
    }
    s->base.ops = &store_files_ops;
    s->tree = so->kind == LAYOUT_TREE;
    s->fadvise = so->fadvise;
    s->o = so->files;
    s->dirlen = dirlen;
    s->pathcap = dirlen + 64;
    s->pathbuf = pathbuf;
    memcpy(s->pathbuf, so->path, dirlen);
    s->pathbuf[dirlen] = '/';
    *out = &s->base;
    return 0;
}

static const char *name_of(struct files_store *s, int64_t key)
{
    if (layout_relname(s->pathbuf + s->dirlen + 1, s->pathcap - s->dirlen - 1, s->tree, key) < 0)
        return NULL;
    return s->pathbuf;
}

/* The size of the regular file open as f. 0, or -1 with the reason. */
static int regular_size(FILE *f, const char *p, int64_t *len, char *err, size_t errcap)
{
    struct stat st;
    if (fstat(fileno(f), &st) != 0) {
        snprintf(err, errcap, "%s: %s", p, strerror(errno));
        return -1;
    }
    if (!S_ISREG(st.st_mode)) {
        snprintf(err, errcap, "%s: not a regular file", p);
        return -1;
    }
    *len = st.st_size;
    return 0;
}

static int files_read(struct store *base, int64_t key, const void **data, int64_t *n, char *err,
                      size_t errcap)
{
    struct files_store *s = files_of(base);
    *n = 0;
    const char *p = name_of(s, key);
    if (!p)
        return 0;
    FILE *f = fopen(p, "rb");
    if (!f) {
        if (errno == ENOENT || errno == ENOTDIR)
            return 0;
        snprintf(err, errcap, "%s: %s", p, strerror(errno));
        return -1;
    }
    if (s->fadvise >= 0)
        coldcache_advise_fd(fileno(f), s->fadvise);
    int64_t len;
    if (regular_size(f, p, &len, err, errcap) != 0) {
        fclose(f);
        return -1;
    }
    if (len == 0) {
        fclose(f);
        return 0;
    }
    if (store_buf_reserve(&s->buf, len) != 0) {
        fclose(f);
        snprintf(err, errcap, "out of memory for a %" PRId64 "-byte file", len);
        return -1;
    }
    size_t got = fread(s->buf.p, 1, (size_t)len, f);
    int rerr = ferror(f) ? errno : 0;
    fclose(f);
    if (got != (size_t)len) {
        snprintf(err, errcap, "%s: read %zu of %" PRId64 " bytes%s%s", p, got, len,
                 rerr ? ": " : "", rerr ? strerror(rerr) : "");
        return -1;
    }
    *data = s->buf.p;
    *n = len;
    return 1;
}

/* Write s->buf[0..len) over p. 0, or an errno value; *stage says whether
 * the open ("") or the write ("write: ") failed. */
static int write_whole(struct files_store *s, const char *p, int64_t len, const char **stage)
{
    *stage = "";
    FILE *f = fopen(p, "wb");
    if (!f)
        return errno;
    *stage = "write: ";
    if (s->fadvise >= 0)
        coldcache_advise_fd(fileno(f), s->fadvise);
    size_t put = fwrite(s->buf.p, 1, (size_t)len, f);
    int werr = put != (size_t)len ? errno : 0;
    if (!werr && fflush(f) != 0)
        werr = errno;
    if (!werr && s->o.fsync && fsync(fileno(f)) != 0)
        werr = errno;
    if (fclose(f) != 0 && !werr)
        werr = errno;
    return werr;
}

static int files_update(struct store *base, int64_t key, rng_t *r, int64_t *n, char *err,
                        size_t errcap)
{
    struct files_store *s = files_of(base);
    *n = 0;
    const char *p = name_of(s, key);
    if (!p)
        return 0;
    struct stat st;
    if (stat(p, &st) != 0) {
        if (errno == ENOENT || errno == ENOTDIR)
            return 0;
        snprintf(err, errcap, "%s: %s", p, strerror(errno));
        return -1;
    }
    int64_t len = st.st_size;
    if (len == 0)
        return 0;
    if (store_buf_reserve(&s->buf, len) != 0) {
        snprintf(err, errcap, "out of memory for a %" PRId64 "-byte file", len);
        return -1;
    }
    rng_fill(r, s->buf.p, (size_t)len);
    blobsum_seal(s->buf.p, (size_t)len);
    const char *stage;
    int werr = write_whole(s, p, len, &stage);
    if (werr) {
        snprintf(err, errcap, "%s: %s%s", p, stage, strerror(werr));
        return -1;
    }
    *n = len;
    return 1;
}

static int files_commit(struct store *base, char *err, size_t errcap)
{
    (void)base;
    (void)err;
    (void)errcap;
    return 0;   /* every write is complete when update returns */
}

static int files_close(struct store *base, char *err, size_t errcap)
{
    (void)err;
    (void)errcap;
    struct files_store *s = files_of(base);
    store_buf_free(&s->buf);
    free(s->pathbuf);
    free(s);
    return 0;
}

static void files_describe(struct store *base, struct store_desc *d, int with_stats)
{
    (void)base;
    (void)d;
    (void)with_stats;   /* no page size, cache or journal: all left zero */
}

const struct store_ops store_files_ops = {
    .name = "files",
    .open = files_open,
    .read = files_read,
    .update = files_update,
    .commit = files_commit,
    .close = files_close,
    .describe = files_describe,
};
