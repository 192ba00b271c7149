/* aside: a temporary beside its final path, committed by rename or
 * discarded; see aside.h for the contract with base/cleanup. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/aside.h"
#include "base/cleanup.h"

static const char *const sqlite_siblings[ASIDE_NSIBLINGS] = {"-wal", "-shm", "-journal"};

static void dir_of(const char *path, char *dir, size_t cap)
{
    snprintf(dir, cap, "%s", path);
    char *s = strrchr(dir, '/');
    if (!s)
        snprintf(dir, cap, ".");
    else if (s == dir)
        s[1] = '\0';
    else
        *s = '\0';
}

int aside_fsync_path(const char *path, int dir)
{
    int fd = open(path, (dir ? O_RDONLY | O_DIRECTORY : O_RDWR) | O_CLOEXEC);
    if (fd < 0)
        return -1;
    int rc = fsync(fd);
    int e = errno;
    close(fd);
    errno = e;
    return rc;
}

/* In the caller's critical section: make the temporary and register it
 * (and the names SQLite will give its siblings). Returns an open fd for a
 * file, 0 for a directory, -1 with errno. */
static int make_registered(struct aside *a)
{
    int fd;
    if (a->kind == ASIDE_DIR)
        fd = mkdtemp(a->path) ? 0 : -1;
    else
        fd = mkstemp(a->path);
    if (fd < 0)
        return -1;
    a->h = cleanup_add_path(a->path);
    for (int i = 0; a->kind == ASIDE_SQLITE && i < ASIDE_NSIBLINGS; i++) {
        char s[sizeof a->path + 16];
        snprintf(s, sizeof s, "%s%s", a->path, sqlite_siblings[i]);
        a->hs[i] = cleanup_add_path(s);
    }
    return fd;
}

int aside_create(struct aside *a, const char *target, const char *tmpl, enum aside_kind kind,
                 mode_t mode)
{
    memset(a, 0, sizeof *a);
    a->kind = kind;
    a->h = -1;
    for (int i = 0; i < ASIDE_NSIBLINGS; i++)
        a->hs[i] = -1;
    size_t tl = strlen(target);
    int n = snprintf(a->path, sizeof a->path, tmpl, target);
    /* Room for the longest sibling suffix, so its name is never cut. */
    if (tl >= sizeof a->target || n < 0 || (size_t)n + 16 >= sizeof a->path) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(a->target, target, tl + 1);
    dir_of(target, a->dir, sizeof a->dir);
    cleanup_lock();
    int fd = make_registered(a);
    int e = errno;
    cleanup_unlock();
    if (fd < 0) {
        errno = e;
        return -1;
    }
    if (kind == ASIDE_DIR)
        return 0;
    /* mkstemp makes 0600; give the file the mode a plain create would
     * (umask can only be read by setting it, so set it straight back). */
    mode_t mask = umask(077);
    umask(mask);
    int rc = fchmod(fd, mode & ~mask);
    e = errno;
    close(fd);
    if (rc != 0) {
        aside_discard(a);
        errno = e;
        return -1;
    }
    return 0;
}

/* The siblings of the temporary: gone with it (the last connection
 * normally removes them; a crash of SQLite's may leave one). */
static void release_siblings(struct aside *a)
{
    for (int i = 0; i < ASIDE_NSIBLINGS; i++) {
        cleanup_remove(a->hs[i]);
        a->hs[i] = -1;
    }
}

void aside_keep(struct aside *a)
{
    cleanup_drop(a->h);
    a->h = -1;
}

void aside_discard(struct aside *a)
{
    cleanup_remove(a->h);
    a->h = -1;
    release_siblings(a);
}

static int put_rename(struct aside *a, void *arg)
{
    (void)arg;
    if (a->kind == ASIDE_SQLITE) {
        /* A -wal/-journal left by the database being replaced would be
         * replayed into the new one: they belong to the old file. */
        for (int i = 0; i < ASIDE_NSIBLINGS; i++) {
            char s[sizeof a->target + 16];
            snprintf(s, sizeof s, "%s%s", a->target, sqlite_siblings[i]);
            unlink(s);
        }
    }
    return rename(a->path, a->target);
}

int aside_commit_with(struct aside *a, int (*put)(struct aside *a, void *arg), void *arg)
{
    cleanup_lock();
    int rc = put(a, arg);
    int e = errno;
    if (rc == 0)
        aside_keep(a);
    cleanup_unlock();
    if (rc != 0)
        aside_discard(a);
    else
        release_siblings(a);
    errno = e;
    return rc;
}

int aside_commit(struct aside *a)
{
    if (aside_fsync_path(a->path, a->kind == ASIDE_DIR) != 0) {
        int e = errno;
        aside_discard(a);
        errno = e;
        return -1;
    }
    if (aside_commit_with(a, put_rename, NULL) != 0)
        return -1;
    aside_fsync_path(a->dir, 1);
    return 0;
}
