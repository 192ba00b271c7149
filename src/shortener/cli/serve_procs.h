/* serve_procs.h: the restart policy of "shortener serve --processes N"
 * (serve_procs.c), a pure function apart from the forking so that its time
 * window is unit-tested at its boundary, where a supervised run could only
 * hit it by chance: more than SERVE_RESTART_BURST restarts within
 * SERVE_RESTART_WINDOW_NS is a crash loop, and the parent gives up. */
#ifndef KVTEST_SHORTENER_SERVE_PROCS_H
#define KVTEST_SHORTENER_SERVE_PROCS_H
#include <stdint.h>

#include "shortener/cli/serve_int.h"

#define SERVE_RESTART_BURST 5
#define SERVE_RESTART_WINDOW_NS 10000000000ull   /* 10 s */

/* The last SERVE_RESTART_BURST restarts; all zero: none yet. */
struct serve_restarts {
    uint64_t ns[SERVE_RESTART_BURST];   /* a ring: ns[n % BURST] is the oldest */
    unsigned n;                         /* restarts so far */
};

/* A child died at now (ns on a monotonic clock, never earlier than the
 * restarts recorded): 1 when it may be restarted, the restart recorded at
 * now; 0, nothing recorded, when the last SERVE_RESTART_BURST restarts
 * all fall less than SERVE_RESTART_WINDOW_NS before now, so that this one
 * would be one more than the burst within the window. */
int serve_restart_take(struct serve_restarts *r, uint64_t now);

/* --processes N > 1: fork, supervise, stop. Returns the exit status. */
int serve_procs(const struct serve_opts *o, const struct fd_limits *lim);

#endif
