/* os: Linux facilities, their macOS/BSD counterparts and POSIX fallbacks
 * (see os.h). The rest of kvtest is compiled with -D_POSIX_C_SOURCE=200809L
 * alone in the core build; this file alone asks for the platform's
 * extensions, and only in the branch that uses them. */
#if !defined(KVTEST_OS_FALLBACK) && defined(__linux__)
#define OS_LINUX 1
#ifndef _GNU_SOURCE
#define _GNU_SOURCE   /* sync_file_range, mincore */
#endif
#elif !defined(KVTEST_OS_FALLBACK) && defined(__APPLE__)
#define OS_APPLE 1
#undef _POSIX_C_SOURCE   /* it hides mincore, F_RDAHEAD, statfs names */
#define _DARWIN_C_SOURCE 1
#elif !defined(KVTEST_OS_FALLBACK) && (defined(__FreeBSD__) || defined(__NetBSD__) || \
                                       defined(__OpenBSD__) || defined(__DragonFly__))
#define OS_BSD 1
#undef _POSIX_C_SOURCE   /* it hides mincore, sysctl, statfs names */
#endif

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#if defined(OS_LINUX)
#include <dirent.h>
#include <sys/random.h>
#include <sys/statfs.h>
#elif defined(OS_APPLE) || defined(OS_BSD)
#include <sys/param.h>
#include <sys/mount.h>
#include <sys/sysctl.h>
#if defined(__NetBSD__)
#include <sys/statvfs.h>
#endif
#endif

#include "base/os.h"

/* Eviction needs posix_fadvise(DONTNEED) to drop the pages and mincore()
 * to prove it. macOS has no per-file eviction without root; OpenBSD's
 * posix_fadvise does nothing and it has no mincore. */
#if (defined(OS_LINUX) || defined(OS_BSD)) && defined(POSIX_FADV_DONTNEED) && \
    !defined(__OpenBSD__)
#define OS_HAVE_EVICT 1
#endif
#if defined(POSIX_FADV_RANDOM) && !defined(__OpenBSD__)
#define OS_HAVE_FADV_RANDOM 1
#endif

const char *os_flavour(void)
{
#if defined(OS_LINUX)
    return "linux";
#elif defined(OS_APPLE)
    return "macos";
#elif defined(OS_BSD)
    return "bsd";
#else
    return "posix";
#endif
}

/* ---- random bytes ---- */

int os_random_bytes(void *buf, size_t n)
{
    unsigned char *p = buf;
#if defined(OS_LINUX)
    while (n > 0) {
        ssize_t got = getrandom(p, n, 0);
        if (got < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        p += got;
        n -= (size_t)got;
    }
    return 0;
#else
    /* Every Unix has it; getentropy is not on older NetBSD or macOS. */
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    while (n > 0) {
        ssize_t got = read(fd, p, n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0) {
            int e = got < 0 ? errno : EIO;
            close(fd);
            errno = e;
            return -1;
        }
        p += got;
        n -= (size_t)got;
    }
    close(fd);
    return 0;
#endif
}

/* ---- write-back ---- */

void os_writeback_start(int fd)
{
#if defined(OS_LINUX)
    sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WRITE);
#else
    (void)fd;
#endif
}

static int datasync(int fd)
{
#if defined(_POSIX_SYNCHRONIZED_IO) && _POSIX_SYNCHRONIZED_IO > 0
    return fdatasync(fd);
#else
    return fsync(fd);   /* macOS declares no fdatasync */
#endif
}

int os_writeback_wait(int fd)
{
#if defined(OS_LINUX)
    if (sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE |
                        SYNC_FILE_RANGE_WAIT_AFTER) == 0)
        return 0;
    /* EINVAL/ENOSYS: a filesystem without it. */
#endif
    if (datasync(fd) == 0 || errno == EINVAL)
        return 0;
    return -1;
}

/* ---- page-cache eviction and residency ---- */

const char *os_evict_missing(void)
{
#if defined(OS_HAVE_EVICT)
    return NULL;
#elif defined(OS_APPLE)
    return "macOS cannot drop one file's cached pages without root "
           "(no posix_fadvise DONTNEED)";
#else
    return "this build has no posix_fadvise DONTNEED and mincore() to evict "
           "pages and verify it";
#endif
}

int os_evict(int fd)
{
#if defined(OS_HAVE_EVICT)
    int rc = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
    if (rc == 0)
        return 0;
    errno = rc;
#else
    (void)fd;
    errno = ENOTSUP;
#endif
    return -1;
}

int os_resident(int fd, int64_t size, int64_t *pages, int64_t *resident)
{
    long psl = sysconf(_SC_PAGESIZE);
    int64_t ps = psl > 0 ? psl : 4096;
    int64_t npages = (size + ps - 1) / ps;
    *pages += npages;
    if (size == 0)
        return 0;
#if defined(OS_HAVE_EVICT)
#if defined(OS_LINUX)
    typedef unsigned char vec_t;
#else
    typedef char vec_t;
#endif
    void *map = mmap(NULL, (size_t)size, PROT_READ, MAP_SHARED, fd, 0);
    if (map == MAP_FAILED)
        return -1;
    /* Chunked so a multi-gigabyte database needs only a small vector. */
    enum { CHUNK = 65536 };
    vec_t vec[CHUNK];
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
            *resident += vec[i] & 1;
    }
    int e = errno;
    munmap(map, (size_t)size);
    errno = e;
    return rc;
#else
    (void)fd, (void)resident;
    errno = ENOTSUP;
    return -1;
#endif
}

/* ---- readahead ---- */

const char *os_readahead_missing(void)
{
#if defined(OS_HAVE_FADV_RANDOM) || defined(OS_APPLE)
    return NULL;
#else
    return "this build has no posix_fadvise to switch readahead";
#endif
}

int os_readahead(int fd, int random)
{
#if defined(OS_HAVE_FADV_RANDOM)
    return posix_fadvise(fd, 0, 0, random ? POSIX_FADV_RANDOM : POSIX_FADV_NORMAL);
#elif defined(OS_APPLE)
    return fcntl(fd, F_RDAHEAD, random ? 0 : 1) == 0 ? 0 : errno;
#else
    (void)fd, (void)random;
    return ENOTSUP;
#endif
}

/* ---- descriptors open on a path ---- */

int os_fds_on_path(const char *path, int *fds, int cap)
{
    int count = 0;
#if defined(OS_LINUX)
    /* The kernel's own list: no guessing at the highest descriptor. */
    char want[PATH_MAX];
    if (!path || !realpath(path, want))
        return 0;
    DIR *d = opendir("/proc/self/fd");
    if (!d)
        return 0;
    int own = dirfd(d);
    struct dirent *e;
    while (count < cap && (e = readdir(d)) != NULL) {
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
        if (strcmp(target, want) == 0)
            fds[count++] = (int)fd;
    }
    closedir(d);
#else
    /* Ask every possible descriptor: same device and inode is the same
     * file, whatever name it was opened by. */
    struct stat want, sb;
    if (!path || stat(path, &want) != 0)
        return 0;
    long max = sysconf(_SC_OPEN_MAX);
    if (max < 0 || max > 65536)
        max = 65536;
    for (long fd = 0; fd < max && count < cap; fd++)
        if (fstat((int)fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_dev == want.st_dev &&
            sb.st_ino == want.st_ino)
            fds[count++] = (int)fd;
#endif
    return count;
}

/* ---- filesystem name ---- */

#if defined(OS_LINUX)
/* Linux names a filesystem only by its magic number. */
static const struct {
    unsigned long magic;
    const char *name;
} fs_names[] = {
    {0xEF53, "ext4"},          /* ext2/3/4 share the magic */
    {0x58465342, "xfs"},
    {0x9123683E, "btrfs"},
    {0x01021994, "tmpfs"},
    {0x794C7630, "overlay"},
    {0x2FC12FC1, "zfs"},
    {0x6969, "nfs"},
    {0xFF534D42, "cifs"},
    {0xFE534D42, "smb2"},
    {0x65735546, "fuse"},
    {0x4D44, "vfat"},
    {0x5346544E, "ntfs"},
    {0xF2F52010, "f2fs"},
    {0x01021997, "9p"},
    {0x137D, "ext"},
    {0x52654973, "reiserfs"},
    {0x3153464A, "jfs"},
    {0x9FA0, "proc"},
    {0x62656572, "sysfs"},
    {0xCA451A4E, "bcachefs"},
    {0x858458F6, "ramfs"},
};
#endif

int os_fs_type(const char *path, char *buf, int cap)
{
#if defined(OS_LINUX)
    struct statfs sf;
    if (statfs(path, &sf) != 0)
        return -1;
    unsigned long m = (unsigned long)sf.f_type & 0xFFFFFFFFul;
    for (size_t i = 0; i < sizeof fs_names / sizeof fs_names[0]; i++)
        if (fs_names[i].magic == m) {
            snprintf(buf, (size_t)cap, "%s", fs_names[i].name);
            return 0;
        }
    snprintf(buf, (size_t)cap, "0x%lx", m);
    return 0;
#elif defined(__NetBSD__)
    struct statvfs sf;
    if (statvfs(path, &sf) != 0)
        return -1;
    snprintf(buf, (size_t)cap, "%s", sf.f_fstypename);
    return 0;
#elif defined(OS_APPLE) || defined(OS_BSD)
    struct statfs sf;
    if (statfs(path, &sf) != 0)
        return -1;
    snprintf(buf, (size_t)cap, "%s", sf.f_fstypename);
    return 0;
#else
    (void)path, (void)buf, (void)cap;
    return -1;
#endif
}

/* ---- CPU model ---- */

void os_cpu_model(char *buf, int cap)
{
    snprintf(buf, (size_t)cap, "unknown");
#if defined(OS_LINUX)
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        /* x86 says "model name", arm64 often only "Hardware"/"CPU part". */
        if (strncmp(line, "model name", 10) == 0 || strncmp(line, "Hardware", 8) == 0) {
            char *c = strchr(line, ':');
            if (!c)
                continue;
            c++;
            while (*c == ' ' || *c == '\t')
                c++;
            c[strcspn(c, "\n")] = '\0';
            snprintf(buf, (size_t)cap, "%s", c);
            break;
        }
    }
    fclose(f);
#elif defined(OS_APPLE)
    size_t len = (size_t)cap;
    if (sysctlbyname("machdep.cpu.brand_string", buf, &len, NULL, 0) != 0)
        snprintf(buf, (size_t)cap, "unknown");
#elif defined(OS_BSD)
    int mib[2] = {CTL_HW, HW_MODEL};
    size_t len = (size_t)cap;
    if (sysctl(mib, 2, buf, &len, NULL, 0) != 0)
        snprintf(buf, (size_t)cap, "unknown");
#endif
}

/* ---- per-process I/O counters ---- */

const char *os_io_counters_missing(void)
{
#if defined(OS_LINUX)
    if (access("/proc/self/io", R_OK) == 0)
        return NULL;
    return "/proc/self/io is not readable (kernel without task I/O accounting)";
#else
    return "this platform has no /proc/self/io";
#endif
}

int os_io_counters(const char *const *keys, int n, int64_t *v)
{
    memset(v, 0, (size_t)n * sizeof *v);
#if defined(OS_LINUX)
    FILE *f = fopen("/proc/self/io", "r");
    if (!f)
        return -1;
    char line[256];
    while (fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (!colon)
            continue;
        *colon = '\0';
        for (int i = 0; i < n; i++)
            if (strcmp(line, keys[i]) == 0)
                v[i] = strtoll(colon + 1, NULL, 10);
    }
    fclose(f);
    return 0;
#else
    (void)keys;
    return -1;
#endif
}
