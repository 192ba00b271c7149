/* memlimit: a private memory cgroup for this process (see memlimit.h).
 * Plain POSIX calls on the cgroup filesystem, so the file builds in the
 * core too; only memlimit_missing() tells whether the platform has it. */
#include "base/memlimit.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <time.h>
#include <unistd.h>

#define GROUP_PREFIX "kvtest-memlimit-"
#define TEXT_MAX (256 * 1024)   /* /proc/self/mountinfo of a busy host */

static struct {
    int entered, version;
    pid_t pid;
    char parent[1024];
    char dir[1100];
} g;

const char *memlimit_missing(void)
{
#if defined(__linux__) && !defined(KVTEST_OS_FALLBACK)
    return NULL;
#else
    return "memory cgroups are Linux only: not supported here";
#endif
}

/* Is `word` one of the comma-separated items of list[0..len)? */
static int has_item(const char *list, size_t len, const char *word)
{
    size_t wl = strlen(word);
    for (size_t i = 0; i < len;) {
        size_t j = i;
        while (j < len && list[j] != ',')
            j++;
        if (j - i == wl && strncmp(list + i, word, wl) == 0)
            return 1;
        i = j + 1;
    }
    return 0;
}

/* The path of the memory group (v1) or of the unified one (v2) in a
 * /proc/self/cgroup text ("ID:CONTROLLERS:PATH" lines) into path. */
static int group_path(const char *text, int *version, char *path, size_t cap)
{
    int found = 0;
    for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
        const char *c1 = strchr(l, ':'), *nl = strchr(l, '\n');
        const char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c1 || !c2 || (nl && c2 > nl))
            continue;
        size_t plen = nl ? (size_t)(nl - c2 - 1) : strlen(c2 + 1);
        int v1 = has_item(c1 + 1, (size_t)(c2 - c1 - 1), "memory");
        int v2 = c2 == c1 + 1 && c1 - l == 1 && l[0] == '0';
        /* The v1 memory controller wins: then v2 cannot have it. */
        if ((v1 || (v2 && found != 1)) && plen < cap) {
            memcpy(path, c2 + 1, plen);
            path[plen] = '\0';
            found = v1 ? 1 : 2;
        }
    }
    *version = found;
    return found ? 0 : -1;
}

/* The mount point and root of the hierarchy for `version` in a mountinfo
 * text: "ID PARENT MAJ:MIN ROOT POINT OPTS [TAGS] - FSTYPE SOURCE SUPER". */
static int mount_of(const char *text, int version, char *root, char *point, size_t cap)
{
    for (const char *l = text; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
        const char *nl = strchr(l, '\n');
        size_t len = nl ? (size_t)(nl - l) : strlen(l);
        char line[4096];
        if (len >= sizeof line)
            continue;
        memcpy(line, l, len);
        line[len] = '\0';
        char *dash = strstr(line, " - ");
        if (!dash)
            continue;
        *dash = '\0';
        char fstype[64], super[1024], r[1024], p[1024];
        if (sscanf(dash + 3, "%63s %*s %1023s", fstype, super) != 2 ||
            sscanf(line, "%*s %*s %*s %1023s %1023s", r, p) != 2)
            continue;
        int match = version == 1 ? strcmp(fstype, "cgroup") == 0 &&
                                       has_item(super, strlen(super), "memory")
                                 : strcmp(fstype, "cgroup2") == 0;
        if (match && strlen(r) < cap && strlen(p) < cap) {
            strcpy(root, r);
            strcpy(point, p);
            return 0;
        }
    }
    return -1;
}

int memlimit_locate(const char *proc_cgroup, const char *mountinfo, struct memlimit_where *w)
{
    char path[1024], root[1024], point[1024];
    if (group_path(proc_cgroup, &w->version, path, sizeof path) != 0 ||
        mount_of(mountinfo, w->version, root, point, sizeof point) != 0)
        return -1;
    /* Inside a container the mount's root can be the group itself: the
     * path is then relative to it. */
    const char *rel = path;
    size_t rl = strlen(root);
    if (strcmp(root, "/") != 0 && strncmp(path, root, rl) == 0 &&
        (path[rl] == '/' || path[rl] == '\0'))
        rel = path + rl;
    if (strcmp(rel, "/") == 0)
        rel = "";
    int n = snprintf(w->dir, sizeof w->dir, "%s%s", point, rel);
    return n > 0 && (size_t)n < sizeof w->dir ? 0 : -1;
}

/* Up to cap-1 bytes of a file, NUL-terminated. Bytes read, or -1. */
static ssize_t read_text(const char *path, char *buf, size_t cap)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return -1;
    size_t n = 0;
    ssize_t r;
    while (n + 1 < cap && (r = read(fd, buf + n, cap - 1 - n)) > 0)
        n += (size_t)r;
    close(fd);
    buf[n] = '\0';
    return (ssize_t)n;
}

/* Write text to dir/name. 0, or -1 with errno. */
static int write_file(const char *dir, const char *name, const char *text)
{
    char path[1200];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    int fd = open(path, O_WRONLY);
    if (fd < 0)
        return -1;
    ssize_t w = write(fd, text, strlen(text));
    int err = errno;
    close(fd);
    errno = err;
    return w == (ssize_t)strlen(text) ? 0 : -1;
}

static int64_t read_num(const char *dir, const char *name)
{
    char path[1200], buf[64];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    if (read_text(path, buf, sizeof buf) <= 0)
        return -1;
    return strncmp(buf, "max", 3) == 0 ? INT64_MAX : strtoll(buf, NULL, 10);
}

/* A "KEY VALUE" line of dir/memory.stat. */
static int64_t read_stat(const char *dir, const char *key)
{
    char path[1200], buf[8192];
    snprintf(path, sizeof path, "%s/memory.stat", dir);
    if (read_text(path, buf, sizeof buf) <= 0)
        return -1;
    size_t kl = strlen(key);
    for (const char *l = buf; l; l = strchr(l, '\n'), l = l ? l + 1 : NULL)
        if (strncmp(l, key, kl) == 0 && l[kl] == ' ')
            return strtoll(l + kl + 1, NULL, 10);
    return -1;
}

/* Groups of kvtest processes that are gone (killed before they could
 * remove theirs): rmdir fails harmlessly on one still in use. */
static void sweep_stale(const char *parent)
{
    DIR *d = opendir(parent);
    if (!d)
        return;
    struct dirent *e;
    while ((e = readdir(d)) != NULL) {
        if (strncmp(e->d_name, GROUP_PREFIX, strlen(GROUP_PREFIX)) != 0)
            continue;
        long pid = strtol(e->d_name + strlen(GROUP_PREFIX), NULL, 10);
        if (pid > 0 && (pid == (long)getpid() || (kill((pid_t)pid, 0) != 0 && errno == ESRCH))) {
            char path[1400];
            snprintf(path, sizeof path, "%s/%s", parent, e->d_name);
            rmdir(path);
        }
    }
    closedir(d);
}

/* v2: the controller must be enabled for the children of the parent. */
static int v2_enable(const char *parent, char *err, size_t errcap)
{
    char path[1200], buf[1024];
    snprintf(path, sizeof path, "%s/cgroup.controllers", parent);
    if (read_text(path, buf, sizeof buf) < 0 || !strstr(buf, "memory")) {
        snprintf(err, errcap, "--mem-limit: no memory controller in %s (cgroup v2)", parent);
        return ERRBUF_MISUSE;
    }
    snprintf(path, sizeof path, "%s/cgroup.subtree_control", parent);
    if (read_text(path, buf, sizeof buf) >= 0 && strstr(buf, "memory"))
        return 0;
    if (write_file(parent, "cgroup.subtree_control", "+memory") != 0) {
        snprintf(err, errcap, "--mem-limit: cannot enable the memory controller in %s: %s",
                 path, strerror(errno));
        return ERRBUF_FAIL;
    }
    return 0;
}

/* The directory of the group this process is in now (its parent-to-be). */
static int find_parent(char *err, size_t errcap)
{
    char *cg = malloc(TEXT_MAX), *mi = malloc(TEXT_MAX);
    struct memlimit_where w;
    int rc = 0;
    if (!cg || !mi || read_text("/proc/self/cgroup", cg, TEXT_MAX) < 0 ||
        read_text("/proc/self/mountinfo", mi, TEXT_MAX) < 0 || memlimit_locate(cg, mi, &w) != 0) {
        snprintf(err, errcap, "--mem-limit: no memory cgroup controller found "
                 "(/proc/self/cgroup, /proc/self/mountinfo)");
        rc = ERRBUF_MISUSE;
    } else {
        g.version = w.version;
        snprintf(g.parent, sizeof g.parent, "%s", w.dir);
        if (w.version == 2)
            rc = v2_enable(g.parent, err, errcap);
    }
    free(cg);
    free(mi);
    return rc;
}

int memlimit_check(char *err, size_t errcap)
{
    const char *why = memlimit_missing();
    if (why) {
        snprintf(err, errcap, "--mem-limit: %s", why);
        return ERRBUF_MISUSE;
    }
    if (g.entered) {
        snprintf(err, errcap, "--mem-limit: already in a limited group");
        return ERRBUF_MISUSE;
    }
    if (geteuid() != 0) {
        snprintf(err, errcap, "--mem-limit needs root (it creates a memory cgroup)");
        return ERRBUF_MISUSE;
    }
    return find_parent(err, errcap);
}

int memlimit_enter(int64_t bytes, char *err, size_t errcap)
{
    int rc = memlimit_check(err, errcap);
    if (rc)
        return rc;
    sweep_stale(g.parent);
    g.pid = getpid();
    snprintf(g.dir, sizeof g.dir, "%s/" GROUP_PREFIX "%ld", g.parent, (long)g.pid);
    if (mkdir(g.dir, 0755) != 0) {
        snprintf(err, errcap, "--mem-limit: cannot create %s: %s", g.dir, strerror(errno));
        return ERRBUF_FAIL;
    }
    char num[32], pid[32];
    snprintf(num, sizeof num, "%lld", (long long)bytes);
    snprintf(pid, sizeof pid, "%ld", (long)g.pid);
    const char *limit_file = g.version == 1 ? "memory.limit_in_bytes" : "memory.max";
    if (write_file(g.dir, limit_file, num) != 0 || write_file(g.dir, "cgroup.procs", pid) != 0) {
        snprintf(err, errcap, "--mem-limit: cannot set up %s: %s", g.dir, strerror(errno));
        rmdir(g.dir);
        return ERRBUF_FAIL;
    }
    /* v2 would otherwise let the group push its pages out to swap and
     * keep going; v1 has no swap in memory.limit_in_bytes' count anyway. */
    if (g.version == 2)
        (void)write_file(g.dir, "memory.swap.max", "0");
    g.entered = 1;
    return 0;
}

int memlimit_info(struct memlimit_info *mi)
{
    if (!g.entered)
        return -1;
    mi->version = g.version;
    snprintf(mi->dir, sizeof mi->dir, "%s", g.dir);
    mi->limit = read_num(g.dir, g.version == 1 ? "memory.limit_in_bytes" : "memory.max");
    mi->peak = read_num(g.dir, g.version == 1 ? "memory.max_usage_in_bytes" : "memory.peak");
    mi->file_cache = read_stat(g.dir, g.version == 1 ? "cache" : "file");
    return 0;
}

int memlimit_leave(char *err, size_t errcap)
{
    if (!g.entered || getpid() != g.pid)   /* a forked child leaves nothing */
        return 0;
    char pid[32];
    snprintf(pid, sizeof pid, "%ld", (long)g.pid);
    if (write_file(g.parent, "cgroup.procs", pid) != 0) {
        snprintf(err, errcap, "--mem-limit: cannot leave %s: %s", g.dir, strerror(errno));
        return -1;
    }
    /* The kernel may still count an exiting child (or our own move) for
     * a moment: retry EBUSY for up to a second. */
    int rc = -1;
    for (int i = 0; i < 100 && (rc = rmdir(g.dir)) != 0 && errno == EBUSY; i++) {
        struct timespec ts = {0, 10 * 1000 * 1000};
        nanosleep(&ts, NULL);
    }
    if (rc != 0) {
        snprintf(err, errcap, "--mem-limit: cannot remove %s: %s", g.dir, strerror(errno));
        return -1;
    }
    g.entered = 0;
    return 0;
}
