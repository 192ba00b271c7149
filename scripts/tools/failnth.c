/* build: -shared -fPIC -ldl */
/* failnth: an LD_PRELOAD library that makes one call fail on demand, so a
 * test can see what kvtest does when a resource runs out exactly there
 * (tests/cli/failnth/failnth.bats sweeps N over every call a command makes).
 *
 *   KVTEST_FAIL=FUNC:N     the Nth call of FUNC in this process fails (1 is
 *                          the first after the library is loaded); FUNC is
 *                          malloc (malloc, calloc and realloc counted
 *                          together), write (write, pwrite, pwrite64,
 *                          writev), fsync (fsync, fdatasync) or open (open,
 *                          open64, openat, openat64). It fails as the
 *                          kernel or libc would: NULL with ENOMEM, -1 with
 *                          ENOSPC, EIO or EMFILE.
 *   KVTEST_FAIL_COUNT=FILE at exit, append "FUNC CALLS PID" for each FUNC:
 *                          how many calls the process made, the range a
 *                          sweep of N needs.
 *   KVTEST_FAIL_TRACE=1    print the failed call's stack on stderr (to find
 *                          the caller that took the failure for success).
 *   KVTEST_FAIL_SPARE=NAME[,NAME...]  calls made from a shared library
 *                          whose path holds NAME are neither counted nor
 *                          failed. h2o ends the process on a failed
 *                          allocation by design (h2o_fatal "no memory"), so
 *                          a sweep of the service spares libh2o and fails
 *                          what kvtest and the other libraries must answer.
 *                          Libraries loaded later (dlopen) are not spared.
 *
 * A forked child counts on from its parent's counts. The malloc family is
 * reached through glibc's __libc_* entry points, not dlsym (which itself
 * allocates). Under AddressSanitizer, whose allocator sits in the program
 * itself, only write, fsync and open can be failed: use the release build
 * for malloc. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE   /* RTLD_NEXT */
#endif
#include <dlfcn.h>
#include <link.h>
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

enum { F_MALLOC, F_WRITE, F_FSYNC, F_OPEN, F_N };
static const char *const names[F_N] = {"malloc", "write", "fsync", "open"};
static const int errs[F_N] = {ENOMEM, ENOSPC, EIO, EMFILE};

static _Atomic long calls[F_N];
static int target = -1;   /* the FUNC to fail, -1: none */
static long nth;
static int trace;
/* KVTEST_FAIL_SPARE: the executable segments of the spared libraries */
#define SPARE_MAX 16
static uintptr_t spare_lo[SPARE_MAX], spare_hi[SPARE_MAX];
static int nspare;

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);

/* 1 when the address lies in a spared library's code. */
static int spared(const void *pc)
{
    for (int i = 0; i < nspare; i++)
        if ((uintptr_t)pc >= spare_lo[i] && (uintptr_t)pc < spare_hi[i])
            return 1;
    return 0;
}

/* dl_iterate_phdr callback: note the executable segments of each object
 * whose path holds one of the comma-separated names in arg. */
static int find_spared(struct dl_phdr_info *info, size_t size, void *arg)
{
    (void)size;
    const char *names = arg, *p = names;
    int hit = 0;
    while (*p && !hit) {
        size_t k = strcspn(p, ",");
        for (const char *q = info->dlpi_name; *q && !hit; q++)
            hit = k > 0 && strncmp(q, p, k) == 0;
        p += k + (p[k] == ',');
    }
    for (int i = 0; hit && i < info->dlpi_phnum && nspare < SPARE_MAX; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
            spare_lo[nspare] = info->dlpi_addr + ph->p_vaddr;
            spare_hi[nspare] = spare_lo[nspare] + ph->p_memsz;
            nspare++;
        }
    }
    return 0;
}

/* 1 when this call of f, made from caller, is the one to fail (errno set). */
static int fail_now(int f, const void *caller)
{
    if (nspare && spared(caller))
        return 0;
    long n = atomic_fetch_add(&calls[f], 1) + 1;
    if (f != target || n != nth)
        return 0;
    if (trace) {
        void *pc[32];
        backtrace_symbols_fd(pc, backtrace(pc, 32), 2);
    }
    errno = errs[f];
    return 1;
}

typedef ssize_t (*write_fn)(int, const void *, size_t);
typedef ssize_t (*pwrite_fn)(int, const void *, size_t, off_t);
typedef ssize_t (*writev_fn)(int, const struct iovec *, int);
typedef int (*fsync_fn)(int);
typedef int (*open_fn)(const char *, int, ...);
typedef int (*openat_fn)(int, const char *, int, ...);

static void report(void)
{
    const char *path = getenv("KVTEST_FAIL_COUNT");
    if (!path)
        return;
    /* The real open and write: these calls are not the program's. */
    open_fn ropen = (open_fn)dlsym(RTLD_NEXT, "open");
    write_fn rwrite = (write_fn)dlsym(RTLD_NEXT, "write");
    int fd = ropen ? ropen(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644) : -1;
    if (fd < 0 || !rwrite)
        return;
    for (int f = 0; f < F_N; f++) {
        char line[80];
        int k = snprintf(line, sizeof line, "%s %ld %ld\n", names[f], atomic_load(&calls[f]),
                         (long)getpid());
        (void)!rwrite(fd, line, (size_t)k);
    }
    close(fd);
}

__attribute__((constructor)) static void init(void)
{
    const char *spec = getenv("KVTEST_FAIL");
    if (spec) {
        for (int f = 0; f < F_N; f++) {
            size_t k = strlen(names[f]);
            if (strncmp(spec, names[f], k) == 0 && spec[k] == ':') {
                char *end;
                long v = strtol(spec + k + 1, &end, 10);
                if (*end == '\0' && v > 0)
                    target = f, nth = v;
            }
        }
        if (target < 0) {
            static const char msg[] = "failnth: bad KVTEST_FAIL (FUNC:N, FUNC malloc, write, "
                                      "fsync or open, N >= 1)\n";
            (void)!write(2, msg, sizeof msg - 1);
            _exit(2);
        }
    }
    if (getenv("KVTEST_FAIL_TRACE")) {
        void *pc[1];
        backtrace(pc, 1);   /* loads libgcc now: its allocations are not counted below */
        trace = 1;
    }
    const char *spare = getenv("KVTEST_FAIL_SPARE");
    if (spare && *spare)
        dl_iterate_phdr(find_spared, (void *)spare);
    for (int f = 0; f < F_N; f++)
        atomic_store(&calls[f], 0);
    atexit(report);
}

void *malloc(size_t n)
{
    return fail_now(F_MALLOC, __builtin_return_address(0)) ? NULL : __libc_malloc(n);
}

void *calloc(size_t k, size_t n)
{
    return fail_now(F_MALLOC, __builtin_return_address(0)) ? NULL : __libc_calloc(k, n);
}

void *realloc(void *p, size_t n)
{
    return fail_now(F_MALLOC, __builtin_return_address(0)) ? NULL : __libc_realloc(p, n);
}

/* NEXT(type, name): the next definition of name, found once. */
#define NEXT(type, name)                                      \
    static type real;                                         \
    if (!real)                                                \
        real = (type)dlsym(RTLD_NEXT, name)

ssize_t write(int fd, const void *b, size_t n)
{
    NEXT(write_fn, "write");
    return fail_now(F_WRITE, __builtin_return_address(0)) ? -1 : real(fd, b, n);
}

ssize_t pwrite(int fd, const void *b, size_t n, off_t o)
{
    NEXT(pwrite_fn, "pwrite");
    return fail_now(F_WRITE, __builtin_return_address(0)) ? -1 : real(fd, b, n, o);
}

ssize_t pwrite64(int fd, const void *b, size_t n, off_t o)
{
    NEXT(pwrite_fn, "pwrite64");
    return fail_now(F_WRITE, __builtin_return_address(0)) ? -1 : real(fd, b, n, o);
}

ssize_t writev(int fd, const struct iovec *v, int k)
{
    NEXT(writev_fn, "writev");
    return fail_now(F_WRITE, __builtin_return_address(0)) ? -1 : real(fd, v, k);
}

int fsync(int fd)
{
    NEXT(fsync_fn, "fsync");
    return fail_now(F_FSYNC, __builtin_return_address(0)) ? -1 : real(fd);
}

int fdatasync(int fd)
{
    NEXT(fsync_fn, "fdatasync");
    return fail_now(F_FSYNC, __builtin_return_address(0)) ? -1 : real(fd);
}

/* The open family passes a mode only with O_CREAT or O_TMPFILE. */
#define OPEN_MODE(flags, mode)                       \
    mode_t mode = 0;                                 \
    if ((flags) & (O_CREAT | O_TMPFILE)) {           \
        va_list ap;                                  \
        va_start(ap, flags);                         \
        mode = (mode_t)va_arg(ap, int);              \
        va_end(ap);                                  \
    }

int open(const char *p, int flags, ...)
{
    OPEN_MODE(flags, mode);
    NEXT(open_fn, "open");
    return fail_now(F_OPEN, __builtin_return_address(0)) ? -1 : real(p, flags, mode);
}

int open64(const char *p, int flags, ...)
{
    OPEN_MODE(flags, mode);
    NEXT(open_fn, "open64");
    return fail_now(F_OPEN, __builtin_return_address(0)) ? -1 : real(p, flags, mode);
}

int openat(int dfd, const char *p, int flags, ...)
{
    OPEN_MODE(flags, mode);
    NEXT(openat_fn, "openat");
    return fail_now(F_OPEN, __builtin_return_address(0)) ? -1 : real(dfd, p, flags, mode);
}

int openat64(int dfd, const char *p, int flags, ...)
{
    OPEN_MODE(flags, mode);
    NEXT(openat_fn, "openat64");
    return fail_now(F_OPEN, __builtin_return_address(0)) ? -1 : real(dfd, p, flags, mode);
}
