/* cleanup: remove registered temporary paths on failure or on a signal.
 *
 * The registry is process-wide by necessity: a signal belongs to the
 * process, not to a thread or a call. Two locks, always taken in this
 * order: crit (held by a command while it renames a result into place, and
 * by the watcher while it cleans up, so neither sees the other half-done)
 * and reg (the table; cleanup_drop needs only this one, so it may be called
 * inside a critical section). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/cleanup.h"

#define CLEANUP_MAX 16
#define RMTREE_DEPTH 64

struct entry {
    int used;
    char *path;               /* a file or a directory, or NULL for fn */
    void (*fn)(void *arg, char *msg, size_t cap);
    void *arg;
};

static struct {
    pthread_mutex_t crit, reg;
    int depth;                /* nested cleanup_begin() calls */
    const char *cmd;
    struct entry e[CLEANUP_MAX];
    int watching;
    pthread_t watcher;
    sigset_t set, old;
    atomic_int stop;          /* cleanup_end: the watcher returns */
    atomic_int interrupted;   /* a signal is being handled: never return */
} g = {.crit = PTHREAD_MUTEX_INITIALIZER, .reg = PTHREAD_MUTEX_INITIALIZER};

static int rm_at(int dfd, const char *name, int depth)
{
    if (unlinkat(dfd, name, 0) == 0 || errno == ENOENT)
        return 0;
    int e = errno;
    if (e != EISDIR && e != EPERM)
        return -1;
    if (depth >= RMTREE_DEPTH) {
        errno = ELOOP;
        return -1;
    }
    int fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT)
            return 0;
        errno = errno == ENOTDIR ? e : errno;
        return -1;
    }
    DIR *d = fdopendir(fd);
    if (!d) {
        close(fd);
        return -1;
    }
    int rc = 0, first = 0;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
            continue;
        if (rm_at(dirfd(d), de->d_name, depth + 1) != 0 && rc == 0) {
            rc = -1;
            first = errno;
        }
    }
    closedir(d);
    if (unlinkat(dfd, name, AT_REMOVEDIR) != 0 && errno != ENOENT && rc == 0) {
        rc = -1;
        first = errno;
    }
    errno = first;
    return rc;
}

int cleanup_rmtree(const char *path)
{
    return rm_at(AT_FDCWD, path, 0);
}

/* Other threads may still be creating files in a directory being removed:
 * repeat until two passes in a row find the path gone. */
static int remove_settled(const char *path)
{
    int gone = 0, err = 0;
    for (int i = 0; i < 500 && gone < 2; i++) {
        if (cleanup_rmtree(path) != 0)
            err = errno;
        struct stat sb;
        gone = lstat(path, &sb) != 0 && errno == ENOENT ? gone + 1 : 0;
        if (gone < 2) {
            struct timespec ts = {0, 2 * 1000 * 1000};
            nanosleep(&ts, NULL);
        }
    }
    errno = err;
    return gone >= 2 ? 0 : -1;
}

/* Watcher, after a signal: everything registered goes; msg says how. */
static void remove_all(char *msg, size_t cap)
{
    snprintf(msg, cap, "temporary files removed");
    for (int i = 0; i < CLEANUP_MAX; i++) {
        struct entry *en = &g.e[i];
        if (en->used && en->path && remove_settled(en->path) != 0)
            snprintf(msg, cap, "could not remove %s: %s", en->path, strerror(errno));
    }
    for (int i = 0; i < CLEANUP_MAX; i++)
        if (g.e[i].used && g.e[i].fn)
            g.e[i].fn(g.e[i].arg, msg, cap);
}

static void *watch_main(void *arg)
{
    (void)arg;
    int sig = 0;
    if (sigwait(&g.set, &sig) != 0 || atomic_load(&g.stop))
        return NULL;
    atomic_store(&g.interrupted, 1);
    pthread_mutex_lock(&g.crit);
    pthread_mutex_lock(&g.reg);
    /* The workers keep running while we clean up and would report the
     * files vanishing under them: the one line below is the only one. */
    int err = dup(STDERR_FILENO);
    int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (err >= 0 && null >= 0)
        dup2(null, STDERR_FILENO);
    char msg[4200];
    remove_all(msg, sizeof msg);
    char line[4400];
    int n = snprintf(line, sizeof line, "%skvtest %s: interrupted by signal %d; %s\n",
                     err >= 0 && isatty(err) ? "\r\033[K" : "", g.cmd, sig, msg);
    if (err >= 0 && n > 0)
        (void)!write(err, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
    _exit(128 + sig);
}

int cleanup_begin(const char *cmd)
{
    pthread_mutex_lock(&g.reg);
    if (g.depth++ > 0) {
        pthread_mutex_unlock(&g.reg);
        return g.watching ? 0 : -1;
    }
    g.cmd = cmd;
    atomic_store(&g.stop, 0);
    sigemptyset(&g.set);
    sigaddset(&g.set, SIGINT);
    sigaddset(&g.set, SIGTERM);
    sigaddset(&g.set, SIGHUP);
    pthread_sigmask(SIG_BLOCK, &g.set, &g.old);
    g.watching = pthread_create(&g.watcher, NULL, watch_main, NULL) == 0;
    if (!g.watching)
        pthread_sigmask(SIG_SETMASK, &g.old, NULL);
    pthread_mutex_unlock(&g.reg);
    return g.watching ? 0 : -1;
}

/* The watcher is cleaning up and will end the process: a command must not
 * return (and exit with its own status) meanwhile. */
static void wait_if_interrupted(void)
{
    while (atomic_load(&g.interrupted))
        pause();
}

int cleanup_interrupted(void)
{
    return atomic_load(&g.interrupted);
}

void cleanup_end(void)
{
    wait_if_interrupted();
    pthread_mutex_lock(&g.reg);
    if (g.depth == 0 || --g.depth > 0) {
        pthread_mutex_unlock(&g.reg);
        return;
    }
    for (int i = 0; i < CLEANUP_MAX; i++) {
        if (g.e[i].used && g.e[i].path)
            cleanup_rmtree(g.e[i].path);
        free(g.e[i].path);
        memset(&g.e[i], 0, sizeof g.e[i]);
    }
    atomic_store(&g.stop, 1);
    pthread_mutex_unlock(&g.reg);
    if (g.watching) {
        /* Wake the sigwait with a signal it takes as "done"; one that
         * races in now is lost, but nothing is left to clean up. */
        pthread_kill(g.watcher, SIGHUP);
        pthread_join(g.watcher, NULL);
        g.watching = 0;
        pthread_sigmask(SIG_SETMASK, &g.old, NULL);
    }
}

static int add(const char *path, void (*fn)(void *, char *, size_t), void *arg)
{
    pthread_mutex_lock(&g.reg);
    int h = -1;
    for (int i = 0; i < CLEANUP_MAX && h < 0; i++) {
        if (g.e[i].used)
            continue;
        char *p = path ? strdup(path) : NULL;
        if (path && !p)
            break;
        g.e[i] = (struct entry){1, p, fn, arg};
        h = i;
    }
    pthread_mutex_unlock(&g.reg);
    return h;
}

int cleanup_add_path(const char *path)
{
    return add(path, NULL, NULL);
}

int cleanup_add_fn(void (*fn)(void *arg, char *msg, size_t cap), void *arg)
{
    return add(NULL, fn, arg);
}

static void forget(int h, int remove)
{
    if (h < 0 || h >= CLEANUP_MAX)
        return;
    pthread_mutex_lock(&g.reg);
    if (g.e[h].used) {
        if (remove && g.e[h].path)
            cleanup_rmtree(g.e[h].path);
        free(g.e[h].path);
        memset(&g.e[h], 0, sizeof g.e[h]);
    }
    pthread_mutex_unlock(&g.reg);
}

void cleanup_drop(int h)
{
    forget(h, 0);
}

void cleanup_remove(int h)
{
    wait_if_interrupted();
    forget(h, 1);
}

void cleanup_lock(void)
{
    pthread_mutex_lock(&g.crit);
}

void cleanup_unlock(void)
{
    pthread_mutex_unlock(&g.crit);
}
