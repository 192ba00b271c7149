/* load_wait: how a worker's event loop sleeps until its next event, its
 * next paced send or its next timeout scan (see load_vu.h). */
#include "load/load_wait.h"

#include <errno.h>
#include <sys/epoll.h>
#include <time.h>

#include "measure/clock.h"

/* How long the loop may sleep, to the nanosecond: with --rate a request
 * is timed from its scheduled send, so a sleep rounded up to whole
 * milliseconds (epoll_wait's unit) would send it up to 1 ms late and count
 * the generator's lateness as the service's latency. */
static struct timespec wait_for(const struct load_worker *w)
{
    struct timespec ts = {0, 0};
    if (w->pend_head)
        return ts;
    uint64_t now = clock_now_ns();
    uint64_t t = w->next_wake < w->next_scan ? w->next_wake : w->next_scan;
    if (t > now) {
        ts.tv_sec = (time_t)((t - now) / 1000000000u);
        ts.tv_nsec = (long)((t - now) % 1000000000u);
    }
    return ts;
}

/* epoll_pwait2 (Linux 5.11) where the kernel has it; otherwise
 * epoll_wait, rounded up to the millisecond as before. */
int load_wait_events(struct load_worker *w, struct epoll_event *ev, int max)
{
    struct timespec ts = wait_for(w);
    if (!w->no_pwait2) {
        int n = epoll_pwait2(w->ep, ev, max, &ts, NULL);
        if (n >= 0 || errno != ENOSYS)
            return n;
        w->no_pwait2 = 1;
    }
    int64_t ns = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
    return epoll_wait(w->ep, ev, max, (int)((ns + 999999) / 1000000));
}
