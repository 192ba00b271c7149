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

int store_files_open(struct store *s, char *err, int errlen)
{
    s->dirlen = strlen(s->o.path);
    s->pathcap = s->dirlen + 64;
    s->pathbuf = malloc(s->pathcap);
    if (!s->pathbuf) {
        snprintf(err, (size_t)errlen, "out of memory");
        return -1;
    }
    memcpy(s->pathbuf, s->o.path, s->dirlen);
    s->pathbuf[s->dirlen] = '/';
    return 0;
}

static const char *name_of(struct store *s, int64_t key)
{
    if (layout_relname(s->pathbuf + s->dirlen + 1, s->pathcap - s->dirlen - 1,
                       s->o.kind == LAYOUT_TREE, key) < 0)
        return NULL;
    return s->pathbuf;
}

int store_files_read(struct store *s, int64_t key, const void **data, int64_t *n, char *err, int errlen)
{
    *n = 0;
    const char *p = name_of(s, key);
    if (!p)
        return 0;
    FILE *f = fopen(p, "rb");
    if (!f) {
        if (errno == ENOENT || errno == ENOTDIR)
            return 0;
        snprintf(err, (size_t)errlen, "%s: %s", p, strerror(errno));
        return -1;
    }
    if (s->o.fadvise >= 0)
        coldcache_advise_fd(fileno(f), s->o.fadvise);
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        snprintf(err, (size_t)errlen, "%s: %s", p, S_ISREG(st.st_mode) ? strerror(errno)
                                                                       : "not a regular file");
        fclose(f);
        return -1;
    }
    int64_t len = st.st_size;
    if (len == 0) {
        fclose(f);
        return 0;
    }
    if (store_reserve(s, len) != 0) {
        fclose(f);
        snprintf(err, (size_t)errlen, "out of memory for a %" PRId64 "-byte file", len);
        return -1;
    }
    size_t got = fread(s->buf, 1, (size_t)len, f);
    int rerr = ferror(f) ? errno : 0;
    fclose(f);
    if (got != (size_t)len) {
        snprintf(err, (size_t)errlen, "%s: read %zu of %" PRId64 " bytes%s%s", p, got, len,
                 rerr ? ": " : "", rerr ? strerror(rerr) : "");
        return -1;
    }
    *data = s->buf;
    *n = len;
    return 1;
}

int store_files_update(struct store *s, int64_t key, rng_t *r, int64_t *n, char *err, int errlen)
{
    *n = 0;
    const char *p = name_of(s, key);
    if (!p)
        return 0;
    struct stat st;
    if (stat(p, &st) != 0) {
        if (errno == ENOENT || errno == ENOTDIR)
            return 0;
        snprintf(err, (size_t)errlen, "%s: %s", p, strerror(errno));
        return -1;
    }
    int64_t len = st.st_size;
    if (len == 0)
        return 0;
    if (store_reserve(s, len) != 0) {
        snprintf(err, (size_t)errlen, "out of memory for a %" PRId64 "-byte file", len);
        return -1;
    }
    rng_fill(r, s->buf, (size_t)len);
    blobsum_seal(s->buf, (size_t)len);
    FILE *f = fopen(p, "wb");
    if (!f) {
        snprintf(err, (size_t)errlen, "%s: %s", p, strerror(errno));
        return -1;
    }
    if (s->o.fadvise >= 0)
        coldcache_advise_fd(fileno(f), s->o.fadvise);
    size_t put = fwrite(s->buf, 1, (size_t)len, f);
    int werr = put != (size_t)len ? errno : 0;
    if (!werr && fflush(f) != 0)
        werr = errno;
    if (!werr && s->o.fsync && fsync(fileno(f)) != 0)
        werr = errno;
    if (fclose(f) != 0 && !werr)
        werr = errno;
    if (werr) {
        snprintf(err, (size_t)errlen, "%s: write: %s", p, strerror(werr));
        return -1;
    }
    *n = len;
    return 1;
}

int store_files_close(struct store *s, char *err, int errlen)
{
    (void)s;
    (void)err;
    (void)errlen;
    return 0;
}
