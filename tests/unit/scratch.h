/* A scratch directory for a test: made new under /tmp, removed with all
 * it holds. Shared because nearly every binary that writes files needs
 * one (fixture.h's per-test fixture, the valkey servers' logs, whole
 * groups in test_layout and test_compare_ref, single tests that make
 * their own) and each had its own mkdtemp and rm -rf. Plain functions
 * returning 0 or -1, so cmocka setups and teardowns return them as they
 * are and tests assert them. */
#ifndef TESTS_UNIT_SCRATCH_H
#define TESTS_UNIT_SCRATCH_H

#include <stdio.h>
#include <stdlib.h>

/* A new directory /tmp/kvtest-TAG-XXXXXX, its name in dir (cap bytes). */
static inline int scratch_make(char *dir, size_t cap, const char *tag)
{
    int n = snprintf(dir, cap, "/tmp/kvtest-%s-XXXXXX", tag);
    return n > 0 && (size_t)n < cap && mkdtemp(dir) ? 0 : -1;
}

/* Removes dir and everything below it. */
static inline int scratch_remove(const char *dir)
{
    char cmd[1100];
    int n = snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (n < 0 || (size_t)n >= sizeof cmd)
        return -1;
    return system(cmd) == 0 ? 0 : -1;
}

#endif
