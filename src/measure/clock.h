/* clock: the one monotonic clock every timer in kvtest uses. */
#ifndef KVTEST_CLOCK_H
#define KVTEST_CLOCK_H
#include <stdint.h>
#include <sys/time.h>
#include <time.h>

/* CLOCK_MONOTONIC goes through the vDSO on Linux (~20 ns), cheap enough to
 * bracket every blob access without distorting a microsecond-scale read. */
static inline uint64_t clock_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The wall clock, seconds since the epoch: only to say when something
 * happened (runs on several machines lined up), never to time it. */
static inline double clock_wall_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* A timeout in milliseconds as the struct timeval hiredis takes. */
static inline struct timeval clock_timeval_ms(int ms)
{
    struct timeval tv = {ms / 1000, (ms % 1000) * 1000};
    return tv;
}
#endif
