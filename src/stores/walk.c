/* walk: regular files under a directory, sorted by relative path. */
#include "stores/walk.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* A user may point us at any tree: bound the depth (and so the number of
 * directory descriptors open at once) instead of trusting it. */
#define WALK_MAX_DEPTH 128

static int add_file(struct walk *w, const char *rel, int64_t size)
{
    if (w->n == w->cap) {
        int64_t cap = w->cap ? w->cap * 2 : 1024;
        struct walk_file *f = realloc(w->f, (size_t)cap * sizeof *f);
        if (!f)
            return -1;
        w->f = f;
        w->cap = cap;
    }
    char *r = strdup(rel);
    if (!r)
        return -1;
    w->f[w->n].rel = r;
    w->f[w->n].size = size;
    w->n++;
    w->bytes += size;
    return 0;
}

/* One directory entry (not . or ..). 0, or -1 on out of memory. */
static int walk_entry(int dfd, const char *rel, const char *name, int depth,
                      int64_t max_size, struct walk *w);

static int walk_fd(int dfd, const char *rel, int depth, int64_t max_size, struct walk *w)
{
    DIR *d = fdopendir(dfd);
    if (!d) {
        int e = errno;
        close(dfd);
        errno = e;
        if (depth == 0)
            return -2;   /* the top directory: an error, not a skip */
        w->unreadable++;
        return 0;
    }
    w->dirs++;
    int rc = 0;
    struct dirent *e;
    errno = 0;
    while (rc == 0 && (e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            rc = walk_entry(dirfd(d), rel, e->d_name, depth, max_size, w);
        errno = 0;
    }
    if (rc == 0 && errno != 0)
        w->unreadable++;   /* the entries read so far stay listed */
    closedir(d);
    return rc;
}

static int walk_entry(int dfd, const char *rel, const char *name, int depth,
                      int64_t max_size, struct walk *w)
{
    char path[4096];
    int n = snprintf(path, sizeof path, "%s%s%s", rel, *rel ? "/" : "", name);
    struct stat st;
    if (n < 0 || (size_t)n >= sizeof path || fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0) {
        w->unreadable++;
        return 0;
    }
    if (S_ISLNK(st.st_mode)) {
        w->symlinks++;
    } else if (S_ISDIR(st.st_mode)) {
        int sub = depth + 1 < WALK_MAX_DEPTH
                      ? openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
                      : -1;
        if (sub < 0) {
            w->unreadable++;
            return 0;
        }
        return walk_fd(sub, path, depth + 1, max_size, w);
    } else if (!S_ISREG(st.st_mode)) {
        w->special++;
    } else if (st.st_size == 0) {
        w->empty++;
    } else if ((int64_t)st.st_size > max_size) {
        w->too_large++;
    } else {
        return add_file(w, path, (int64_t)st.st_size);
    }
    return 0;
}

static int by_rel(const void *a, const void *b)
{
    return strcmp(((const struct walk_file *)a)->rel, ((const struct walk_file *)b)->rel);
}

int walk_dir(const char *dir, int64_t max_size, struct walk *w, char *err, size_t errcap)
{
    memset(w, 0, sizeof *w);
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0) {
        snprintf(err, errcap, "%s: %s", dir, errno == ENOTDIR ? "not a directory" : strerror(errno));
        return -1;
    }
    /* The top directory failing is an answer ("DIR: Permission denied");
     * an empty walk would not be. */
    int rc = walk_fd(fd, "", 0, max_size, w);
    if (rc != 0) {
        snprintf(err, errcap, "%s: %s", dir, rc == -2 ? strerror(errno) : "out of memory");
        return -1;
    }
    if (w->n > 1)
        qsort(w->f, (size_t)w->n, sizeof *w->f, by_rel);
    return 0;
}

void walk_free(struct walk *w)
{
    for (int64_t i = 0; i < w->n; i++)
        free(w->f[i].rel);
    free(w->f);
    memset(w, 0, sizeof *w);
}
