/* timeline: a completion lands in the interval it completed in (by its
 * time since the run's start, not its latency), failures without an answer
 * count without a latency, two workers' timelines merge slot by slot, and
 * the CSV has one row per interval up to the run's end, empty intervals
 * included. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tests/unit/unit.h"
#include "tests/unit/capture.h"

#include "measure/timeline.h"

#define MS 1000000ull
#define T0 (5000 * MS)   /* the run's start: not 0, so offsets matter */

static void attribution(void **state)
{
    (void)state;
    struct timeline t;
    timeline_init(&t, T0, 200 * MS);
    timeline_record(&t, T0 + 10 * MS, 3 * MS, 0);          /* interval 0 */
    timeline_record(&t, T0 + 199 * MS, 150 * MS, 0);       /* still 0 */
    timeline_record(&t, T0 + 200 * MS, 1 * MS, 1);         /* 1: its first ns */
    timeline_record(&t, T0 + 650 * MS, TIMELINE_NO_LATENCY, 1);   /* 3 */
    timeline_record(&t, T0 - 1, 2 * MS, 0);                /* before start: 0 */
    assert_int_equal(t.n, 4);
    assert_int_equal(t.s[0].n, 3);
    assert_int_equal(t.s[0].fail, 0);
    assert_int_equal(t.s[0].h->count, 3);
    assert_int_equal(t.s[0].h->max, 150 * MS);
    assert_int_equal(t.s[1].n, 1);
    assert_int_equal(t.s[1].fail, 1);
    assert_int_equal(t.s[2].n, 0);
    assert_null(t.s[2].h);
    assert_int_equal(t.s[3].n, 1);
    assert_int_equal(t.s[3].fail, 1);
    assert_null(t.s[3].h);   /* no answer: no latency */
    assert_int_equal(t.dropped, 0);
    timeline_free(&t);
}

static void bounded(void **state)
{
    (void)state;
    struct timeline t;
    timeline_init(&t, T0, 1 * MS);
    timeline_record(&t, T0 + (TIMELINE_MAX - 1) * MS, TIMELINE_NO_LATENCY, 0);
    timeline_record(&t, T0 + TIMELINE_MAX * MS, 5, 0);
    assert_int_equal(t.n, TIMELINE_MAX);
    assert_int_equal(t.s[TIMELINE_MAX - 1].n, 1);
    assert_int_equal(t.dropped, 1);
    timeline_free(&t);
}

static void merge(void **state)
{
    (void)state;
    struct timeline a, b, sum;
    timeline_init(&a, T0, 100 * MS);
    timeline_init(&b, T0, 100 * MS);
    timeline_init(&sum, T0, 100 * MS);
    timeline_record(&a, T0 + 50 * MS, 1 * MS, 0);
    timeline_record(&a, T0 + 250 * MS, 2 * MS, 0);
    timeline_record(&b, T0 + 60 * MS, 9 * MS, 1);
    timeline_record(&b, T0 + 950 * MS, TIMELINE_NO_LATENCY, 1);
    timeline_merge(&sum, &a);
    timeline_merge(&sum, &b);
    assert_int_equal(sum.n, 10);
    assert_int_equal(sum.s[0].n, 2);
    assert_int_equal(sum.s[0].fail, 1);
    assert_int_equal(sum.s[0].h->count, 2);
    assert_int_equal(sum.s[0].h->max, 9 * MS);
    assert_int_equal(sum.s[0].h->min, 1 * MS);
    assert_int_equal(sum.s[2].n, 1);
    assert_int_equal(sum.s[2].h->max, 2 * MS);
    assert_int_equal(sum.s[9].n, 1);
    assert_int_equal(sum.s[9].fail, 1);
    assert_null(sum.s[9].h);
    timeline_free(&a);
    timeline_free(&b);
    timeline_free(&sum);
}

static void csv(void **state)
{
    (void)state;
    struct timeline t;
    timeline_init(&t, T0, 500 * MS);
    timeline_record(&t, T0 + 100 * MS, 2000, 0);           /* 2 us */
    timeline_record(&t, T0 + 120 * MS, 4000, 0);           /* 4 us */
    timeline_record(&t, T0 + 1100 * MS, 7000, 1);          /* interval 2 */
    struct capture c;
    /* 1.7 s: intervals 0..3, the last one partial. */
    assert_int_equal(timeline_write_csv(&t, capture_open(&c), 1.7), 0);
    char *buf = capture_close(&c);
    assert_string_equal(buf, "t_s,requests,failures,p50_us,p99_us,max_us\n"
                             "0.000,2,0,2.0,4.0,4.0\n"
                             "0.500,0,0,,,\n"
                             "1.000,1,1,7.0,7.0,7.0\n"
                             "1.500,0,0,,,\n");
    free(buf);
    timeline_free(&t);
}

UNIT_MAIN(NULL, NULL,
    cmocka_unit_test(attribution),
    cmocka_unit_test(bounded),
    cmocka_unit_test(merge),
    cmocka_unit_test(csv))
