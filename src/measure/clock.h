/* clock: the one monotonic clock every timer in kvtest uses. */
#ifndef KVTEST_CLOCK_H
#define KVTEST_CLOCK_H
#include <stdint.h>
#include <time.h>

/* CLOCK_MONOTONIC goes through the vDSO on Linux (~20 ns), cheap enough to
 * bracket every blob access without distorting a microsecond-scale read. */
static inline uint64_t clock_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
#endif
