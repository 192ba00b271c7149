/* coldcache: page-cache eviction without root, verified with mincore().
 *
 * Why not "echo 3 > /proc/sys/vm/drop_caches": it needs root, drops every
 * cache on the machine (disturbing other work) and proves nothing about the
 * files we care about. posix_fadvise(DONTNEED) drops only clean pages, so
 * each file's dirty pages are written back first; pages that stay resident anyway (mapped by
 * another process, or a filesystem that ignores the hint) show up in the
 * mincore() count, and the caller reports them instead of calling the run
 * cold. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "measure/coldcache.h"

static int64_t page_size(void)
{
    long ps = sysconf(_SC_PAGESIZE);
    return ps > 0 ? ps : 4096;
}

/* Count resident pages of an open file; adds to st. -1 if mincore fails. */
static int count_resident(int fd, int64_t size, struct coldcache_stat *st)
{
    int64_t ps = page_size();
    int64_t npages = (size + ps - 1) / ps;
    st->pages += npages;
    if (size == 0)
        return 0;
    void *map = mmap(NULL, (size_t)size, PROT_READ, MAP_SHARED, fd, 0);
    if (map == MAP_FAILED)
        return -1;
    /* Chunked so a multi-gigabyte database needs only a small vector. */
    enum { CHUNK = 65536 };
    unsigned char vec[CHUNK];
    int rc = 0;
    for (int64_t first = 0; first < npages; first += CHUNK) {
        int64_t n = npages - first < CHUNK ? npages - first : CHUNK;
        int64_t len = n * ps;
        if (first * ps + len > size)
            len = size - first * ps;
        if (mincore((char *)map + first * ps, (size_t)len, vec) != 0) {
            rc = -1;
            break;
        }
        for (int64_t i = 0; i < n; i++)
            st->resident += vec[i] & 1;
    }
    munmap(map, (size_t)size);
    return rc;
}

/* One file: optionally evict, then measure. missing_ok: a -wal file that
 * does not exist is not an error. */
static void one_file(const char *path, int evict, int missing_ok,
                     struct coldcache_stat *st, char *err, int errlen)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (missing_ok && errno == ENOENT)
            return;
        if (st->errors++ == 0 && err)
            snprintf(err, (size_t)errlen, "%s: %s", path, strerror(errno));
        return;
    }
    struct stat sb;
    int bad = fstat(fd, &sb) != 0;
    if (!bad && evict) {
        /* DONTNEED skips dirty pages, so write them back first. Only the
         * data pages need to be clean: sync_file_range writes them without
         * the journal commit that fsync/fdatasync force (a read that
         * updated atime makes the inode dirty, and committing that for each
         * of 100k files took 35 s instead of under 2 s here). It works on a
         * read-only descriptor and for pages written through any other.
         * EINVAL/ENOSYS: a filesystem without it; fall back to fdatasync. */
        if (sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WAIT_BEFORE |
                            SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER) != 0 &&
            fdatasync(fd) != 0 && errno != EINVAL)
            bad = 1;
        else if (posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED) != 0)
            bad = 1;
    }
    if (!bad) {
        st->files++;
        if (count_resident(fd, (int64_t)sb.st_size, st) != 0)
            bad = 1;
    }
    if (bad && st->errors++ == 0 && err)
        snprintf(err, (size_t)errlen, "%s: %s", path, strerror(errno));
    close(fd);
}

static int walk(const struct coldcache_set *s, int evict,
                struct coldcache_stat *st, char *err, int errlen)
{
    memset(st, 0, sizeof *st);
    if (err && errlen > 0)
        err[0] = '\0';
    if (!s || !s->path) {
        if (err)
            snprintf(err, (size_t)errlen, "no path given");
        return -1;
    }
    struct stat sb;
    if (stat(s->path, &sb) != 0) {
        if (err)
            snprintf(err, (size_t)errlen, "%s: %s", s->path, strerror(errno));
        return -1;
    }
    char p[PATH_MAX];
    if (s->is_db) {
        one_file(s->path, evict, 0, st, err, errlen);
        /* Committed data may still sit in the WAL; reads come from there. */
        if (snprintf(p, sizeof p, "%s-wal", s->path) < (int)sizeof p)
            one_file(p, evict, 1, st, err, errlen);
    } else {
        for (int64_t k = 1; k <= s->max_id; k++) {
            int n;
            if (s->tree)
                n = snprintf(p, sizeof p, "%s/%02lld/%02lld/%02lld", s->path,
                             (long long)(k / 10000), (long long)((k / 100) % 100),
                             (long long)(k % 100));
            else
                n = snprintf(p, sizeof p, "%s/%06lld", s->path, (long long)k);
            if (n < 0 || n >= (int)sizeof p) {
                if (st->errors++ == 0 && err)
                    snprintf(err, (size_t)errlen, "%s: path too long", s->path);
                continue;
            }
            one_file(p, evict, 0, st, err, errlen);
        }
    }
    if (st->files == 0 && st->errors > 0)
        return -1;
    return 0;
}

int coldcache_evict(const struct coldcache_set *s, struct coldcache_stat *st,
                    char *err, int errlen)
{
    return walk(s, 1, st, err, errlen);
}

int coldcache_resident(const struct coldcache_set *s, struct coldcache_stat *st,
                       char *err, int errlen)
{
    return walk(s, 0, st, err, errlen);
}

int coldcache_advise_fd(int fd, int random)
{
    return posix_fadvise(fd, 0, 0, random ? POSIX_FADV_RANDOM : POSIX_FADV_NORMAL);
}

int coldcache_advise_path(const char *path, int random)
{
    char want[PATH_MAX];
    if (!path || !realpath(path, want))
        return 0;
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        return 0;
    int own = dirfd(d);
    int count = 0;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        char *end;
        long fd = strtol(e->d_name, &end, 10);
        if (*end != '\0' || end == e->d_name || fd == own)
            continue;
        char link[64], target[PATH_MAX];
        snprintf(link, sizeof link, "/proc/self/fd/%ld", fd);
        ssize_t n = readlink(link, target, sizeof target - 1);
        if (n <= 0)
            continue;
        target[n] = '\0';
        if (strcmp(target, want) == 0 && coldcache_advise_fd((int)fd, random) == 0)
            count++;
    }
    closedir(d);
    return count;
}
