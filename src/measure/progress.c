/* progress: rate and ETA on stderr when it is a terminal. */
#include <stdio.h>
#include <unistd.h>

#include "measure/progress.h"
#include "measure/clock.h"

void progress_start(struct progress *p, const char *cmd, int64_t total)
{
    p->cmd = cmd;
    p->total = total;
    p->t0 = p->last = clock_now_ns();
    p->on = isatty(2);
    p->unit = "blobs";
}

void progress_update(struct progress *p, int64_t done, int64_t bytes)
{
    if (!p->on)
        return;
    uint64_t now = clock_now_ns();
    if (now - p->last < 250000000u)
        return;
    p->last = now;
    double s = (double)(now - p->t0) / 1e9;
    double rate = s > 0 ? (double)done / s : 0;
    double eta = rate > 0 ? (double)(p->total - done) / rate : 0;
    if (p->total > 0)
        fprintf(stderr, "\rkvtest %s: %lld/%lld %s (%.0f%%), %.0f %s/s, %.1f MB/s, ETA %.0fs   ",
                p->cmd, (long long)done, (long long)p->total, p->unit,
                100.0 * (double)done / (double)p->total, rate, p->unit,
                s > 0 ? (double)bytes / s / 1e6 : 0.0, eta);
    else   /* a total not known ahead (copying a store) */
        fprintf(stderr, "\rkvtest %s: %lld %s, %.0f %s/s, %.1f MB/s   ", p->cmd,
                (long long)done, p->unit, rate, p->unit, s > 0 ? (double)bytes / s / 1e6 : 0.0);
    fflush(stderr);
}

void progress_end(struct progress *p)
{
    if (p->on && p->last != p->t0)
        fprintf(stderr, "\r%*s\r", 79, "");
}
