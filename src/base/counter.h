/* counter: single-writer event counters of the shortener (service and
 * cache). A relaxed load and store, no locked instruction on the hot path,
 * yet a data-race-free read for the threads that report them. */
#ifndef KVTEST_SHORTENER_COUNTER_H
#define KVTEST_SHORTENER_COUNTER_H
#include <stdatomic.h>
#include <stdint.h>

static inline void counter_bump(_Atomic uint64_t *v)
{
    atomic_store_explicit(v, atomic_load_explicit(v, memory_order_relaxed) + 1,
                          memory_order_relaxed);
}

static inline uint64_t counter_get(_Atomic uint64_t *v)
{
    return atomic_load_explicit(v, memory_order_relaxed);
}

#endif
