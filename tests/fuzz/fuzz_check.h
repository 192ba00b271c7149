/* fuzz_check: what every target does when an invariant breaks, and the
 * copy each makes of its input. Define FUZZ_NAME ("fuzz_url") first. */
#ifndef KVTEST_FUZZ_CHECK_H
#define KVTEST_FUZZ_CHECK_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* One line naming the target and the invariant, then abort(): libFuzzer
 * reports a crash and keeps the input. */
#define CHECK(cond, what)                                                     \
    do {                                                                      \
        if (!(cond)) {                                                        \
            fprintf(stderr, FUZZ_NAME ": invariant failed: %s\n", (what));    \
            abort();                                                          \
        }                                                                     \
    } while (0)

/* The n bytes at p, NUL-terminated, on the heap (abort when out of
 * memory: the fuzzer's limits, not the target's). */
static inline char *fuzz_dupn(const void *p, size_t n)
{
    char *s = malloc(n + 1);
    if (!s)
        abort();
    memcpy(s, p, n);
    s[n] = '\0';
    return s;
}

#endif
