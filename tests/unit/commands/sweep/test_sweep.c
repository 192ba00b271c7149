/* sweep_crossover: interpolation of the size where files start to win,
 * per page size; the --page-sizes list. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "tests/unit/unit.h"
#include <stdio.h>

#include "commands/sweep/sweep.h"

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

/* Files timed once per size, the database once per page size: each page
 * size gets its own ratios against the same files figures, and its own
 * crossover (or none). */
static void test_cross_per_page(void **st)
{
    (void)st;
    const double s[] = {1000, 10000, 100000, 1000000};
    const double files[] = {10, 20, 50, 200};
    const double db[] = {
        5, 25, 100, 400,     /* 4k:  ratio 2, 0.8, ...: files win from 10k */
        4, 10, 40, 400,      /* 16k: ratio 2.5, 2, 1.25, 0.5: from 100k */
        2, 4, 10, 20,        /* 64k: ratio >= 5 everywhere: none in range */
    };
    double ratios[12];
    struct sweep_crossing c[3];
    sweep_crossover_pages(s, files, db, 4, 3, ratios, c);
    assert_true(ratios[0] == 2.0 && ratios[1] == 0.8);
    assert_true(ratios[4] == 2.5 && ratios[6] == 1.25 && ratios[7] == 0.5);
    assert_true(ratios[8] == 5.0 && ratios[11] == 10.0);
    assert_int_equal(c[0].kind, SWEEP_CROSS);
    assert_int_equal(c[0].lo, 0);
    /* ratio 2 -> 0.8: t = 1/1.2 of the way from 1k to 10k in log size. */
    double want = exp(log(1000) + (1.0 / 1.2) * (log(10000) - log(1000)));
    assert_true(fabs(c[0].size - want) < 1e-6 * want);
    assert_int_equal(c[1].kind, SWEEP_CROSS);
    assert_int_equal(c[1].lo, 2);
    want = exp(log(100000) + (0.25 / 0.75) * (log(1000000) - log(100000)));
    assert_true(fabs(c[1].size - want) < 1e-6 * want);
    assert_int_equal(c[2].kind, SWEEP_DB_WINS);

    char line[512];
    sweep_crossover_line_page(&c[1], s, 4, 16384, line, sizeof line);
    assert_true(strncmp(line, "Crossover (page 16384): 215k bytes", 34) == 0);
    assert_non_null(strstr(line, "between 100k and 1M"));
    sweep_crossover_line_page(&c[2], s, 4, 65536, line, sizeof line);
    assert_string_equal(line, "Crossover (page 65536): none in range 1k..1M "
                        "(the database is faster at every size)");
}

/* A page size without a valid time is unknown; the others still report. */
static void test_cross_per_page_bad(void **st)
{
    (void)st;
    const double s[] = {1000, 10000};
    const double files[] = {10, 20};
    const double db[] = {5, 40, 0, 10};
    double ratios[4];
    struct sweep_crossing c[2];
    sweep_crossover_pages(s, files, db, 2, 2, ratios, c);
    assert_int_equal(c[0].kind, SWEEP_CROSS);
    assert_int_equal(c[1].kind, SWEEP_BAD);
    assert_true(isnan(ratios[2]));
    char line[256];
    sweep_crossover_line_page(&c[1], s, 2, 4096, line, sizeof line);
    assert_string_equal(line, "Crossover (page 4096): unknown (no valid measurements)");
}

/* Page 0 is the single-page-size spelling scripts grep for. */
static void test_line_single_page(void **st)
{
    (void)st;
    const double s[] = {1000, 10000, 100000};
    const double r[] = {1.5, 1.2, 0.8};
    struct sweep_crossing c;
    sweep_crossover(s, r, 3, &c);
    char a[512], b[512];
    sweep_crossover_line(&c, s, 3, a, sizeof a);
    sweep_crossover_line_page(&c, s, 3, 0, b, sizeof b);
    assert_string_equal(a, b);
    assert_true(strncmp(a, "Crossover: 31.6k bytes", 22) == 0);
}

static void test_parse_pages(void **st)
{
    (void)st;
    int64_t p[8];
    int n;
    char err[256];
    assert_int_equal(sweep_parse_pages("4k,64k,16k", p, 8, &n, err, sizeof err), 0);
    assert_int_equal(n, 3);
    assert_true(p[0] == 4096 && p[1] == 16384 && p[2] == 65536);
    assert_int_equal(sweep_parse_pages("512,4KiB,0x2000", p, 8, &n, err, sizeof err), 0);
    assert_int_equal(n, 3);
    assert_true(p[0] == 512 && p[1] == 4096 && p[2] == 8192);
    assert_int_equal(sweep_parse_pages("65536", p, 8, &n, err, sizeof err), 0);
    assert_true(n == 1 && p[0] == 65536);
    assert_int_equal(sweep_parse_pages("512,1k,2k,4k,8k,16k,32k,64k", p, 8, &n, err,
                                       sizeof err), 0);
    assert_int_equal(n, 8);
    const char *bad[] = {"", "4k,", ",4k", "4k,,8k", "4000", "1000", "256", "128k",
                         "131072", "3k", "abc", "4k,4096", "-4k", "4 k", "k", "0"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        if (sweep_parse_pages(bad[i], p, 8, &n, err, sizeof err) != -1)
            fail_msg("accepted --page-sizes '%s'", bad[i]);
        assert_true(err[0] != '\0');
        assert_null(strchr(err, '\n'));
    }
    assert_int_equal(sweep_parse_pages("4k,8k,16k", p, 2, &n, err, sizeof err), -1);
    assert_non_null(strstr(err, "more than 2"));
}

/* ---- the crossover's bootstrap interval (sweep_boot.c) ---- */

#define NR 8

/* Rounds around a true curve: v * (1 + spread * u), u fixed in [-1, 1]. */
static void noisy(double *out, double v, double spread, int k)
{
    static const double u[NR] = {-1.0, -0.6, -0.3, -0.1, 0.1, 0.35, 0.7, 1.0};
    for (int i = 0; i < NR; i++)
        out[i] = v * (1 + spread * u[(i + k) % NR]);
}

static void test_boot_contains_known_crossing(void **st)
{
    (void)st;
    const double s[] = {1000, 10000, 100000, 1000000};
    const double dbv[] = {1, 3, 20, 200}, fv[] = {3, 5, 12, 80};
    /* True ratios 3, 1.667, 0.6, 0.4: files start to win at
     * 10k * 10^0.625 = 42.2k, by the same interpolation as sweep_crossover. */
    double truth = 1e4 * pow(10, 0.625);
    double f[4][NR], d[4][NR];
    struct sweep_rounds fr[4], dr[4];
    for (int i = 0; i < 4; i++) {
        noisy(f[i], fv[i], 0.15, i);
        noisy(d[i], dbv[i], 0.15, i + 3);
        fr[i] = (struct sweep_rounds){f[i], NR};
        dr[i] = (struct sweep_rounds){d[i], NR};
    }
    struct sweep_cross_ci ci, again;
    assert_int_equal(sweep_crossover_boot(s, 4, fr, dr, 2000, 7, &ci), 0);
    assert_int_equal(ci.estimable, 1);
    assert_int_equal(ci.rounds, NR);
    assert_int_equal(ci.resamples, 2000);
    assert_false(ci.lo_open || ci.hi_open || ci.beyond);
    assert_true(ci.lo < truth && truth < ci.hi);
    assert_true(ci.lo >= 10000 && ci.hi <= 100000);   /* noise never flips 1k or 1M */
    assert_true(ci.hi / ci.lo < 3);                    /* an interval, not the range */
    /* A fixed seed: the same interval again. */
    assert_int_equal(sweep_crossover_boot(s, 4, fr, dr, 2000, 7, &again), 0);
    assert_true(again.lo == ci.lo && again.hi == ci.hi);
    /* The line puts it first in the parenthesis. */
    double ratios[4];
    for (int i = 0; i < 4; i++)
        ratios[i] = fv[i] / dbv[i];
    struct sweep_crossing c;
    sweep_crossover(s, ratios, 4, &c);
    char line[512], want[96];
    sweep_crossover_line_ci(&c, &ci, s, 4, 4096, line, sizeof line);
    assert_true(strncmp(line, "Crossover (page 4096): 42.2k bytes (95% CI ", 43) == 0);
    assert_non_null(strstr(line, "; files faster than the database above this blob size"));
    char lo[32], hi[32];
    sweep_fmt_size(lo, sizeof lo, ci.lo);
    sweep_fmt_size(hi, sizeof hi, ci.hi);
    snprintf(want, sizeof want, "(95%% CI %s-%s; ", lo, hi);
    assert_non_null(strstr(line, want));
}

static void test_boot_never_cross(void **st)
{
    (void)st;
    const double s[] = {1000, 10000, 100000};
    double f[3][NR], d[3][NR];
    struct sweep_rounds fr[3], dr[3];
    struct sweep_cross_ci ci;
    struct sweep_crossing c;
    char line[512];
    /* The database 3x faster everywhere: every resample says "above". */
    for (int i = 0; i < 3; i++) {
        noisy(d[i], 1.0 + i, 0.2, i);
        noisy(f[i], 3.0 * (1.0 + i), 0.2, i + 2);
        fr[i] = (struct sweep_rounds){f[i], NR};
        dr[i] = (struct sweep_rounds){d[i], NR};
    }
    assert_int_equal(sweep_crossover_boot(s, 3, fr, dr, 1000, 1, &ci), 0);
    assert_int_equal(ci.estimable, 1);
    assert_true(ci.hi_open && !ci.lo_open && ci.beyond == 1);
    assert_true(ci.lo == 100000 && isnan(ci.hi));
    const double r3[] = {3, 3, 3};
    sweep_crossover(s, r3, 3, &c);
    sweep_crossover_line_ci(&c, &ci, s, 3, 0, line, sizeof line);
    assert_string_equal(line, "Crossover: none in range 1k..100k (95% CI above 100k: not "
                        "within the sizes measured; the database is faster at every size)");
    /* Files 3x faster everywhere: every resample says "below". */
    for (int i = 0; i < 3; i++)
        fr[i] = (struct sweep_rounds){d[i], NR}, dr[i] = (struct sweep_rounds){f[i], NR};
    assert_int_equal(sweep_crossover_boot(s, 3, fr, dr, 1000, 1, &ci), 0);
    assert_true(ci.lo_open && !ci.hi_open && ci.beyond == -1);
    assert_true(isnan(ci.lo) && ci.hi == 1000);
}

static void test_boot_half_open(void **st)
{
    (void)st;
    const double s[] = {1000, 10000, 100000};
    const double even[NR] = {0.6, 0.7, 0.8, 0.9, 1.1, 1.2, 1.3, 1.4};   /* median 1 */
    const double one[NR] = {1, 1, 1, 1, 1, 1, 1, 1};
    double f[3][NR];
    struct sweep_rounds fr[3], dr[3];
    struct sweep_cross_ci ci;
    /* Files tie the database at the largest size: about half the
     * resamples cross below it, the rest never do. */
    for (int i = 0; i < 2; i++)
        for (int k = 0; k < NR; k++)
            f[i][k] = 2.0 - 0.5 * i;
    memcpy(f[2], even, sizeof even);
    for (int i = 0; i < 3; i++)
        fr[i] = (struct sweep_rounds){f[i], NR}, dr[i] = (struct sweep_rounds){one, NR};
    assert_int_equal(sweep_crossover_boot(s, 3, fr, dr, 2000, 3, &ci), 0);
    assert_true(ci.hi_open && !ci.lo_open && !ci.beyond);
    assert_true(ci.lo > 10000 && ci.lo < 100000);
    const double r[] = {2, 1.5, 0.9};
    struct sweep_crossing c;
    sweep_crossover(s, r, 3, &c);
    char line[512];
    sweep_crossover_line_ci(&c, &ci, s, 3, 0, line, sizeof line);
    assert_non_null(strstr(line, " to above 100k; files faster"));
    /* The tie at the smallest size instead: open below. */
    memcpy(f[0], even, sizeof even);
    for (int k = 0; k < NR; k++)
        f[1][k] = 0.5, f[2][k] = 0.3;
    assert_int_equal(sweep_crossover_boot(s, 3, fr, dr, 2000, 3, &ci), 0);
    assert_true(ci.lo_open && !ci.hi_open && !ci.beyond);
    assert_true(ci.hi >= 1000 && ci.hi < 10000);
}

static void test_boot_one_round_and_bad(void **st)
{
    (void)st;
    const double s[] = {1000, 10000};
    const double f1[] = {2}, f2[] = {0.5}, d[] = {1};
    struct sweep_rounds fr[2] = {{f1, 1}, {f2, 1}}, dr[2] = {{d, 1}, {d, 1}};
    struct sweep_cross_ci ci;
    assert_int_equal(sweep_crossover_boot(s, 2, fr, dr, 1000, 1, &ci), 0);
    assert_int_equal(ci.estimable, 0);
    assert_int_equal(ci.rounds, 1);
    const double r[] = {2, 0.5};
    struct sweep_crossing c;
    sweep_crossover(s, r, 2, &c);
    char line[512];
    sweep_crossover_line_ci(&c, &ci, s, 2, 0, line, sizeof line);
    assert_true(strncmp(line, "Crossover: ", 11) == 0);
    assert_non_null(strstr(line, "(no 95% CI from 1 measured round per layout; files faster"));
    assert_int_equal(sweep_crossover_boot(s, 2, fr, dr, 50, 1, &ci), -1);
    assert_int_equal(sweep_crossover_boot(s, 0, fr, dr, 1000, 1, &ci), -1);
    struct sweep_rounds empty[2] = {{f1, 0}, {f2, 1}};
    assert_int_equal(sweep_crossover_boot(s, 2, empty, dr, 1000, 1, &ci), -1);
    /* An unknown crossover keeps its line, with no interval. */
    c.kind = SWEEP_BAD;
    sweep_crossover_line_ci(&c, &ci, s, 2, 4096, line, sizeof line);
    assert_string_equal(line, "Crossover (page 4096): unknown (no valid measurements)");
}

UNIT_MAIN(NULL, NULL,
    cmocka_unit_test(test_cross_between_two_sizes),
    cmocka_unit_test(test_cross_uneven),
    cmocka_unit_test(test_none_db_wins),
    cmocka_unit_test(test_none_files_win),
    cmocka_unit_test(test_endpoints),
    cmocka_unit_test(test_non_monotonic),
    cmocka_unit_test(test_bad_input),
    cmocka_unit_test(test_cross_per_page),
    cmocka_unit_test(test_cross_per_page_bad),
    cmocka_unit_test(test_line_single_page),
    cmocka_unit_test(test_parse_pages),
    cmocka_unit_test(test_boot_contains_known_crossing),
    cmocka_unit_test(test_boot_never_cross),
    cmocka_unit_test(test_boot_half_open),
    cmocka_unit_test(test_boot_one_round_and_bad))
