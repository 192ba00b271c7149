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
#include <sys/stat.h>
#include <unistd.h>

#include "measure/coldcache.h"
#include "base/errbuf.h"
#include "base/os.h"

/* One file: optionally evict, then measure. missing_ok: a -wal file that
 * does not exist is not an error. */
static void one_file(const char *path, int evict, int missing_ok,
                     struct coldcache_stat *st, char *err, size_t errcap)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (missing_ok && errno == ENOENT)
            return;
        if (st->errors++ == 0)
            errbuf_say(err, errcap, "%s: %s", path, strerror(errno));
        return;
    }
    struct stat sb;
    int bad = fstat(fd, &sb) != 0;
    if (!bad && evict) {
        /* DONTNEED skips dirty pages, so write them back first. Only the
         * data pages need to be clean (see os_writeback_wait: a read that
         * updated atime makes the inode dirty, and committing that for each
         * of 100k files took 35 s instead of under 2 s here). */
        if (os_writeback_wait(fd) != 0 || os_evict(fd) != 0)
            bad = 1;
    }
    if (!bad) {
        st->files++;
        if (os_resident(fd, (int64_t)sb.st_size, &st->pages, &st->resident) != 0)
            bad = 1;
    }
    if (bad && st->errors++ == 0)
        errbuf_say(err, errcap, "%s: %s", path, strerror(errno));
    close(fd);
}

/* Every regular file directly in dir (an LMDB or RocksDB directory). */
static void whole_dir(const char *dir, int evict, struct coldcache_stat *st, char *err,
                      size_t errcap)
{
    DIR *d = opendir(dir);
    if (!d) {
        if (st->errors++ == 0)
            errbuf_say(err, errcap, "%s: %s", dir, strerror(errno));
        return;
    }
    struct dirent *e;
    char p[PATH_MAX];
    struct stat sb;
    while ((e = readdir(d)) != NULL)
        if (snprintf(p, sizeof p, "%s/%s", dir, e->d_name) < (int)sizeof p &&
            lstat(p, &sb) == 0 && S_ISREG(sb.st_mode))
            one_file(p, evict, 1, st, err, errcap);
    closedir(d);
}

static int walk(const struct coldcache_set *s, int evict,
                struct coldcache_stat *st, char *err, size_t errcap)
{
    memset(st, 0, sizeof *st);
    if (err && errcap > 0)
        err[0] = '\0';
    if (!s || !s->path) {
        errbuf_say(err, errcap, "no path given");
        return -1;
    }
    const char *missing = os_evict_missing();
    if (missing) {
        errbuf_say(err, errcap, "%s", missing);
        return -1;
    }
    struct stat sb;
    if (stat(s->path, &sb) != 0) {
        errbuf_say(err, errcap, "%s: %s", s->path, strerror(errno));
        return -1;
    }
    char p[PATH_MAX];
    if (s->whole_dir) {
        whole_dir(s->path, evict, st, err, errcap);
    } else if (s->is_db) {
        one_file(s->path, evict, 0, st, err, errcap);
        /* Committed data may still sit in the WAL; reads come from there. */
        if (snprintf(p, sizeof p, "%s-wal", s->path) < (int)sizeof p)
            one_file(p, evict, 1, st, err, errcap);
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
                if (st->errors++ == 0)
                    errbuf_say(err, errcap, "%s: path too long", s->path);
                continue;
            }
            one_file(p, evict, 0, st, err, errcap);
        }
    }
    if (st->files == 0 && st->errors > 0)
        return -1;
    return 0;
}

int coldcache_evict(const struct coldcache_set *s, struct coldcache_stat *st,
                    char *err, size_t errcap)
{
    return walk(s, 1, st, err, errcap);
}

int coldcache_resident(const struct coldcache_set *s, struct coldcache_stat *st,
                       char *err, size_t errcap)
{
    return walk(s, 0, st, err, errcap);
}

const char *coldcache_missing(void)
{
    return os_evict_missing();
}

int coldcache_advise_fd(int fd, int random)
{
    return os_readahead(fd, random);
}

int coldcache_advise_path(const char *path, int random)
{
    int fds[64];
    int n = os_fds_on_path(path, fds, 64);
    int count = 0;
    for (int i = 0; i < n; i++)
        if (coldcache_advise_fd(fds[i], random) == 0)
            count++;
    return count;
}

int coldcache_is_cold(double resident)
{
    return resident <= COLDCACHE_COLD_MAX_RESIDENT;
}
