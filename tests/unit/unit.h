/* What every unit test binary starts from: cmocka (with the headers it
 * needs included before it) and UNIT_MAIN, the binary's main(). Every
 * binary's main was the same lines (the table of tests, then one group
 * run); written once here, a binary names only its group setup and
 * teardown and its tests. The table keeps the name `tests`, the group
 * name cmocka prints and writes into its XML output, so tests/run.sh
 * reads the same lines as before. */
#ifndef TESTS_UNIT_UNIT_H
#define TESTS_UNIT_UNIT_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

/* main(): run the tests (cmocka_unit_test(f), or any of its
 * setup/teardown/prestate forms) as one group between group_setup and
 * group_teardown (either may be NULL); the exit status is the number of
 * tests that failed. */
#define UNIT_MAIN(group_setup, group_teardown, ...) \
    UNIT_MAIN_PREPARED(unit_unprepared, group_setup, group_teardown, __VA_ARGS__)

/* The same after prepare() (void, no arguments): for what must hold for
 * the whole process before any setup runs, such as an ignored SIGPIPE or
 * a file size limit. */
#define UNIT_MAIN_PREPARED(prepare, group_setup, group_teardown, ...) \
    int main(void)                                                     \
    {                                                                  \
        prepare();                                                     \
        const struct CMUnitTest tests[] = {__VA_ARGS__};               \
        return cmocka_run_group_tests(tests, group_setup, group_teardown); \
    }

static inline void unit_unprepared(void)
{
}

#endif
