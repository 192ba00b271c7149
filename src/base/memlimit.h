/* memlimit: run this process under a memory limit that covers its share of
 * the OS page cache, so a database larger than the limit is read from
 * storage instead of from a file cache that the rest of the machine's
 * memory would otherwise provide.
 *
 * The process moves into a private memory cgroup of its own (a child
 * "kvtest-memlimit-PID" of the group it runs in) whose limit is the given
 * size: cgroup v1 (memory.limit_in_bytes) or v2 (memory.max, the unified
 * hierarchy), whichever holds the memory controller, found at run time.
 * Page cache a process reads in is charged to its group, and the kernel
 * reclaims it once the group reaches its limit. Pages cached before the
 * move stay charged elsewhere and stay readable: evict the file first
 * (--cold) for a run that starts cold. Root only; Linux only.
 *
 * Child processes (fork) inherit the group. memlimit_leave() moves the
 * process back and removes the group, which the kernel allows only once no
 * process is left in it. */
#ifndef KVTEST_MEMLIMIT_H
#define KVTEST_MEMLIMIT_H
#include <stddef.h>
#include <stdint.h>

#include "base/errbuf.h"   /* ERRBUF_MISUSE, ERRBUF_FAIL */

/* Smallest limit accepted: below it the process's own memory (not only the
 * file cache) would not fit and the kernel would kill it. */
#define MEMLIMIT_MIN (4LL * 1024 * 1024)

/* NULL where memory cgroups exist on this platform (Linux); otherwise why
 * not, for a one-line refusal of the option. */
const char *memlimit_missing(void);

/* Where the memory controller is, from the texts of /proc/self/cgroup and
 * /proc/self/mountinfo: the directory of the process's current group. */
struct memlimit_where {
    int version;        /* 1 or 2 */
    char dir[1024];     /* e.g. /sys/fs/cgroup/memory/user.slice */
};
/* 0, or -1 when neither names a memory controller (a v2 hierarchy is
 * returned whatever its controllers: the caller checks cgroup.controllers). */
int memlimit_locate(const char *proc_cgroup, const char *mountinfo, struct memlimit_where *w);

/* Could memlimit_enter() work here? 0; or ERRBUF_MISUSE with one line in
 * err (not root, no memory controller, not supported here), or ERRBUF_FAIL
 * when the v2 controller cannot be enabled. Nothing is created: a command checks
 * before any work and enters later. */
int memlimit_check(char *err, size_t errcap);

/* Create the group with a limit of `bytes`, move this process in. 0; or
 * ERRBUF_MISUSE (not root, no memory controller, not supported here) or
 * ERRBUF_FAIL (the group cannot be made) with one line in err and nothing left behind.
 * Groups of earlier kvtest processes that no longer exist are removed
 * first (a process killed with SIGKILL cannot remove its own). */
int memlimit_enter(int64_t bytes, char *err, size_t errcap);

/* The group while entered: its directory, and what the kernel reports. */
struct memlimit_info {
    int version;
    char dir[1100];
    int64_t limit;        /* as the kernel rounded it */
    int64_t peak;         /* highest usage so far; -1 if not reported */
    int64_t file_cache;   /* page cache charged now; -1 if not reported */
};
/* 0, or -1 when not entered. */
int memlimit_info(struct memlimit_info *mi);

/* Move back to the parent group and remove ours; nothing when not entered.
 * Safe to call twice. 0, or -1 with one line in err (the group stays). */
int memlimit_leave(char *err, size_t errcap);

#endif
