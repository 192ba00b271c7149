/* bench_mem: "shortener bench --mem-limit SIZE", the lookups in a memory
 * cgroup of their own (base/memlimit.h), so the page cache they may use is
 * SIZE at most and a database larger than that is read from storage. */
#include <stdio.h>

#include "base/cleanup.h"
#include "base/errbuf.h"
#include "base/memlimit.h"
#include "base/os.h"
#include "measure/coldcache.h"
#include "shortener/bench/bench_mem.h"

#define CMD BENCH_CMD

int bench_mem_check(const struct bench_opts *o, char *err, size_t errcap)
{
    return o->mem_limit ? memlimit_check(err, errcap) : 0;
}

/* On SIGINT/SIGTERM the cleanup watcher takes the process out of its
 * group and removes the group before it exits. */
static void leave_fn(void *arg, char *msg, size_t cap)
{
    (void)arg;
    char err[400];
    if (memlimit_leave(err, sizeof err) != 0)
        snprintf(msg, cap, "%s", err);
    else
        snprintf(msg, cap, "memory cgroup removed");
}

int bench_mem_enter(const struct bench_opts *o, int *h, char *err, size_t errcap)
{
    *h = -1;
    if (!o->mem_limit)
        return 0;
    if (cleanup_begin(CMD) != 0) {
        errbuf_say(err, errcap, "--mem-limit: cannot watch for signals");
        return ERRBUF_FAIL;
    }
    int rc = memlimit_enter(o->mem_limit, err, errcap);
    if (rc) {
        cleanup_end();
        return rc;
    }
    *h = cleanup_add_fn(leave_fn, NULL);
    /* Pages cached before the move stay charged to the old group and
     * readable for free: out with them, so every page a lookup needs is
     * read into this group's budget. */
    const char *paths[2] = {o->store.sqlite_file, o->compare.sqlite_file};
    for (int k = 0; k < 2 && paths[k]; k++) {
        struct coldcache_set cset = {.path = paths[k], .is_db = 1};
        struct coldcache_stat cs;
        char why[512];
        if (coldcache_evict(&cset, &cs, why, sizeof why) != 0) {
            errbuf_say(err, errcap, "--mem-limit: %s", why);
            return ERRBUF_FAIL;
        }
    }
    struct memlimit_info mi;
    if (memlimit_info(&mi) == 0)
        fprintf(stderr, "kvtest %s: memory limit %lld bytes: cgroup v%d %s\n", CMD,
                (long long)mi.limit, mi.version, mi.dir);
    return 0;
}

void bench_mem_note(struct bench *b)
{
    static const char *const keys[] = {"read_bytes"};
    b->mem_read_bytes = -1;
    if (b->o->mem_limit && memlimit_info(&b->mem) == 0 &&
        os_io_counters(keys, 1, &b->mem_read_bytes) != 0)
        b->mem_read_bytes = -1;
}

int bench_mem_leave(const struct bench_opts *o, int h, int rc, char *err, size_t errcap)
{
    if (!o->mem_limit)
        return rc;
    char why[512];
    /* Inside the section the watcher waits for: a signal now cannot run
     * leave_fn at the same time. */
    cleanup_lock();
    int left = memlimit_leave(why, sizeof why);
    cleanup_drop(h);
    cleanup_unlock();
    cleanup_end();
    if (left != 0 && rc == 0) {
        errbuf_say(err, errcap, "%s", why);
        return ERRBUF_FAIL;
    }
    return rc;
}
