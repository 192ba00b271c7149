/* sweep_crossover: interpolation of the size where files start to win. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "commands/sweep.h"

static void test_cross_between_two_sizes(void **st)
{
    (void)st;
    const double s[] = {1000, 10000, 100000};
    const double r[] = {1.5, 1.2, 0.8};
    struct sweep_crossing c;
    assert_int_equal(sweep_crossover(s, r, 3, &c), SWEEP_CROSS);
    assert_int_equal(c.kind, SWEEP_CROSS);
    assert_int_equal(c.lo, 1);
    assert_int_equal(c.crossings, 1);
    /* Halfway in ratio (1.2 -> 0.8) is halfway in log size: sqrt(10k*100k). */
    assert_true(fabs(c.size - sqrt(1e4 * 1e5)) < 1e-6 * c.size);
    char line[512];
    sweep_crossover_line(&c, s, 3, line, sizeof line);
    assert_true(strncmp(line, "Crossover: ", 11) == 0);
    assert_non_null(strstr(line, "31.6k"));
    assert_non_null(strstr(line, "between 10k and 100k"));
}

static void test_cross_uneven(void **st)
{
    (void)st;
    const double s[] = {4000, 30000};
    const double r[] = {1.1, 0.7};   /* t = 0.1/0.4 = 0.25 */
    struct sweep_crossing c;
    assert_int_equal(sweep_crossover(s, r, 2, &c), SWEEP_CROSS);
    double want = exp(log(4000) + 0.25 * (log(30000) - log(4000)));
    assert_true(fabs(c.size - want) < 1e-6 * want);
    assert_true(c.size > 4000 && c.size < 30000);
}

static void test_none_db_wins(void **st)
{
    (void)st;
    const double s[] = {1000, 4000, 10000, 1000000};
    const double r[] = {2.0, 1.7, 1.3, 1.01};
    struct sweep_crossing c;
    assert_int_equal(sweep_crossover(s, r, 4, &c), SWEEP_DB_WINS);
    assert_int_equal(c.crossings, 0);
    char line[512];
    sweep_crossover_line(&c, s, 4, line, sizeof line);
    assert_true(strncmp(line, "Crossover: none in range 1k..1M", 31) == 0);
    assert_non_null(strstr(line, "database is faster"));
}

static void test_none_files_win(void **st)
{
    (void)st;
    const double s[] = {1000, 4000};
    const double r[] = {0.9, 0.5};
    struct sweep_crossing c;
    assert_int_equal(sweep_crossover(s, r, 2, &c), SWEEP_FILES_WIN);
    char line[512];
    sweep_crossover_line(&c, s, 2, line, sizeof line);
    assert_true(strncmp(line, "Crossover: none in range", 24) == 0);
    assert_non_null(strstr(line, "files are already faster"));
}

static void test_endpoints(void **st)
{
    (void)st;
    struct sweep_crossing c;
    /* Exactly 1 at the first size, files win at the next: the crossing is
     * the first size itself, not a point inside the interval. */
    const double s[] = {1000, 2000, 3000};
    const double r1[] = {1.0, 0.9, 0.8};
    assert_int_equal(sweep_crossover(s, r1, 3, &c), SWEEP_CROSS);
    assert_true(c.size == 1000.0);
    /* Files win only at the last size: crossing inside the last interval. */
    const double r2[] = {1.4, 1.2, 0.99};
    assert_int_equal(sweep_crossover(s, r2, 3, &c), SWEEP_CROSS);
    assert_int_equal(c.lo, 1);
    assert_true(c.size > 2000 && c.size <= 3000);
    assert_true(c.size > 2900);   /* 0.2 of 0.21 of the way in log size */
    /* A tie at the last size is not a win: none in range. */
    const double r3[] = {1.4, 1.2, 1.0};
    assert_int_equal(sweep_crossover(s, r3, 3, &c), SWEEP_DB_WINS);
    /* One size only. */
    assert_int_equal(sweep_crossover(s, r3, 1, &c), SWEEP_DB_WINS);
    assert_int_equal(sweep_crossover(s, r1 + 1, 1, &c), SWEEP_FILES_WIN);
}

static void test_non_monotonic(void **st)
{
    (void)st;
    const double s[] = {1000, 4000, 10000, 30000, 100000};
    const double r[] = {1.3, 0.9, 1.1, 0.8, 0.6};
    struct sweep_crossing c;
    assert_int_equal(sweep_crossover(s, r, 5, &c), SWEEP_CROSS);
    assert_int_equal(c.lo, 0);            /* the first crossing is reported */
    assert_int_equal(c.crossings, 3);
    assert_true(c.size > 1000 && c.size < 4000);
    char line[512];
    sweep_crossover_line(&c, s, 5, line, sizeof line);
    assert_non_null(strstr(line, "not monotonic"));
    /* Files win first, then lose: none where files "start to win", but the
     * noise is reported. */
    const double r2[] = {0.9, 1.2, 1.3, 1.4, 1.5};
    assert_int_equal(sweep_crossover(s, r2, 5, &c), SWEEP_FILES_WIN);
    assert_int_equal(c.crossings, 1);
}

static void test_bad_input(void **st)
{
    (void)st;
    struct sweep_crossing c;
    const double s[] = {1000, 1000};
    const double r[] = {1.2, 0.8};
    assert_int_equal(sweep_crossover(s, r, 2, &c), SWEEP_BAD);   /* not increasing */
    const double s2[] = {1000, 2000};
    const double rn[] = {1.2, NAN};
    assert_int_equal(sweep_crossover(s2, rn, 2, &c), SWEEP_BAD);
    const double rz[] = {1.2, 0.0};
    assert_int_equal(sweep_crossover(s2, rz, 2, &c), SWEEP_BAD);
    assert_int_equal(sweep_crossover(s2, r, 0, &c), SWEEP_BAD);
    assert_int_equal(sweep_crossover(NULL, r, 2, &c), SWEEP_BAD);
    char line[128];
    sweep_crossover_line(&c, s2, 2, line, sizeof line);
    assert_true(strncmp(line, "Crossover: ", 11) == 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_cross_between_two_sizes),
        cmocka_unit_test(test_cross_uneven),
        cmocka_unit_test(test_none_db_wins),
        cmocka_unit_test(test_none_files_win),
        cmocka_unit_test(test_endpoints),
        cmocka_unit_test(test_non_monotonic),
        cmocka_unit_test(test_bad_input),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
