/* hist_spectrum: HdrHistogram's percentile distribution text, read back
 * as its plotter reads it. 1000 samples at 1, 2, ..., 1000 us: the rows
 * checked here were worked out by hand from hist.h's bucket layout (the
 * 500th sample, 500000 ns, lies in the 2048 ns wide bucket
 * [499712, 501759], which holds the samples up to 501 us). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tests/unit/unit.h"
#include "tests/unit/capture.h"

#include "measure/hist.h"
#include "measure/hist_spectrum.h"

static char *spectrum(const struct hist *h)
{
    struct capture c;
    assert_int_equal(hist_spectrum_write(h, capture_open(&c)), 0);
    return capture_close(&c);
}

static void test_rows(void **state)
{
    (void)state;
    struct hist *h = hist_new();
    for (int i = 1; i <= 1000; i++)
        hist_record(h, (uint64_t)i * 1000);
    char *text = spectrum(h);
    const char *head = "       Value   Percentile   TotalCount 1/(1-Percentile)\n\n";
    assert_memory_equal(text, head, strlen(head));
    /* Rows: value, percentile and count never go down; the last is 1.0. */
    double v, p, inv, lv = -1, lp = -1, lc = -1;
    unsigned long long c;
    int rows = 0;
    char *line = text + strlen(head);
    for (; *line && *line != '#'; line = strchr(line, '\n') + 1, rows++) {
        char tail[16];
        assert_int_equal(sscanf(line, "%lf %lf %llu %15s", &v, &p, &c, tail), 4);
        assert_true(v >= lv && p >= lp && (double)c >= lc);
        lv = v, lp = p, lc = (double)c;
        inv = p < 1 ? strtod(tail, NULL) : 0;
        assert_true(p == 1 ? strcmp(tail, "inf") == 0 : inv > 0.99 / (1 - p));
    }
    assert_true(rows > 20);
    assert_true(lp == 1.0 && lc == 1000 && lv == 1.0);   /* the exact max, in ms */
    assert_non_null(strstr(text, "\n       0.001     0.000000            1         1.00\n"));
    assert_non_null(strstr(text, "\n       0.502     0.500000          501         2.00\n"));
    assert_non_null(strstr(text, "\n       1.000     1.000000         1000          inf\n"));
    assert_non_null(strstr(text, "#[Max     =        1.000, Total count    =         1000]\n"));
    assert_non_null(strstr(text, "#[Buckets =           58, SubBuckets     =          128]\n"));
    /* Mean 500.5 us; the standard deviation of 1..1000 us is 288.7 us. */
    assert_non_null(strstr(text, "StdDeviation   =        0.289]\n"));
    free(text);
    hist_free(h);
}

/* The ticks: 0, 10%, ..., 50%, then 55%, ... halving the step each time
 * the distance to 100% halves (5 per half distance). */
static void test_ticks(void **state)
{
    (void)state;
    struct hist *h = hist_new();
    for (int i = 0; i < 100000; i++)
        hist_record(h, 10);   /* exact buckets below 128 ns */
    for (int i = 0; i < 100000; i++)
        hist_record(h, (uint64_t)(i % 100) + 20);
    char *text = spectrum(h);
    const char *want[] = {" 0.000000 ", " 0.100000 ", " 0.500000 ", " 0.550000 ", " 0.775000 ",
                          " 0.887500 ", " 0.943750 "};
    for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
        if (!strstr(text, want[i]))
            fail_msg("no row at percentile%s", want[i]);
    assert_null(strstr(text, " 0.525000 "));
    /* A tick reached exactly (half the samples at 10 ns) is that bucket's. */
    assert_non_null(strstr(text, "\n       0.000     0.500000       100000         2.00\n"));
    free(text);
    hist_free(h);
}

static void test_empty(void **state)
{
    (void)state;
    struct hist *h = hist_new();
    char *text = spectrum(h);
    assert_string_equal(text, "       Value   Percentile   TotalCount 1/(1-Percentile)\n\n"
                        "#[Mean    =        0.000, StdDeviation   =        0.000]\n"
                        "#[Max     =        0.000, Total count    =            0]\n"
                        "#[Buckets =           58, SubBuckets     =          128]\n");
    free(text);
    hist_free(h);
}

UNIT_MAIN(NULL, NULL,
    cmocka_unit_test(test_rows),
    cmocka_unit_test(test_ticks),
    cmocka_unit_test(test_empty))
