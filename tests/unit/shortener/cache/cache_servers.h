/* What cache/test_cluster and cache/test_track add to valkey_fixture.h
 * so that no verdict depends on how fast the machine is:
 *  - CACHE_WAIT_MS: the real-time cap of every wait for a server's doing
 *    (a reply, a closed channel, a map read). Generous on purpose: a busy
 *    2-core machine is no failure; only something that never happens is.
 *  - cache_server_halt: SIGSTOP and wait until the kernel reports the
 *    server stopped, so the next command sent is certain to go
 *    unanswered (the test's subject), not merely very likely to.
 * Include after tests/unit/unit.h and tests/unit/valkey_fixture.h. */
#ifndef TESTS_UNIT_SHORTENER_CACHE_CACHE_SERVERS_H
#define TESTS_UNIT_SHORTENER_CACHE_CACHE_SERVERS_H

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <hiredis/hiredis.h>

#include "measure/clock.h"

#define CACHE_WAIT_MS 30000

/* 1 when /proc says pid is stopped. */
static inline int cache_pid_stopped(pid_t pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    const char *rp = strrchr(buf, ')');   /* the command name may hold anything */
    return rp && rp[1] == ' ' && (rp[2] == 'T' || rp[2] == 't');
}

/* SIGSTOP the server and wait until it is stopped (else the test fails). */
static inline void cache_server_halt(const struct valkey_server *s)
{
    kill(s->pid, SIGSTOP);
    uint64_t until = clock_now_ns() + (uint64_t)CACHE_WAIT_MS * 1000000u;
    while (!cache_pid_stopped(s->pid)) {
        if (clock_now_ns() > until)
            fail_msg("valkey-server %ld not stopped %d ms after SIGSTOP", (long)s->pid,
                     CACHE_WAIT_MS);
        usleep(1000);
    }
}

#endif
