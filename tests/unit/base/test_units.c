/* Unit tests of base/units: size suffixes, numbers, durations, byte labels. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tests/unit/unit.h"

#include "base/units.h"

static void test_units_parse_int(void **state)
{
    (void)state;
    int64_t v;
    assert_int_equal(units_parse_int("1000", &v), 0); assert_int_equal(v, 1000);
    assert_int_equal(units_parse_int("10k", &v), 0); assert_int_equal(v, 10000);
    assert_int_equal(units_parse_int("10K", &v), 0); assert_int_equal(v, 10000);
    assert_int_equal(units_parse_int("4KiB", &v), 0); assert_int_equal(v, 4096);
    assert_int_equal(units_parse_int("2MiB", &v), 0); assert_int_equal(v, 2097152);
    assert_int_equal(units_parse_int("3G", &v), 0); assert_int_equal(v, 3000000000LL);
    assert_int_equal(units_parse_int("1GiB", &v), 0); assert_int_equal(v, 1073741824LL);
    assert_int_equal(units_parse_int("5MB", &v), 0); assert_int_equal(v, 5000000);
    assert_int_equal(units_parse_int("0x10", &v), 0); assert_int_equal(v, 16);
    assert_int_equal(units_parse_int("9223372036854775807", &v), 0);
    assert_true(v == INT64_MAX);
    /* rejected */
    assert_int_equal(units_parse_int("", &v), -1);
    assert_int_equal(units_parse_int("-5", &v), -1);
    assert_int_equal(units_parse_int("+5", &v), -1);
    assert_int_equal(units_parse_int(" 5", &v), -1);
    assert_int_equal(units_parse_int("5x", &v), -1);
    assert_int_equal(units_parse_int("10 k", &v), -1);
    assert_int_equal(units_parse_int("abc", &v), -1);
    assert_int_equal(units_parse_int("0x", &v), -1);
    assert_int_equal(units_parse_int("9223372036854775808", &v), -1);
    assert_int_equal(units_parse_int("99999999999999999999", &v), -1);
    assert_int_equal(units_parse_int("9223372036854775807K", &v), -1);
    assert_int_equal(units_parse_int("10000000000G", &v), -1);
    /* a page size: a bare K is 1024, the rest as units_parse_int */
    assert_int_equal(units_parse_pow2("4k", &v), 0); assert_int_equal(v, 4096);
    assert_int_equal(units_parse_pow2("64K", &v), 0); assert_int_equal(v, 65536);
    assert_int_equal(units_parse_pow2("0x10k", &v), 0); assert_int_equal(v, 16384);
    assert_int_equal(units_parse_pow2("4KB", &v), 0); assert_int_equal(v, 4000);
    assert_int_equal(units_parse_pow2("4KiB", &v), 0); assert_int_equal(v, 4096);
    assert_int_equal(units_parse_pow2("1M", &v), 0); assert_int_equal(v, 1000000);
    assert_int_equal(units_parse_pow2("k", &v), -1);
    assert_int_equal(units_parse_pow2("9007199254740991k", &v), 0);
    assert_int_equal(units_parse_pow2("9007199254740992k", &v), -1);
}

static void test_units_other(void **state)
{
    (void)state;
    double d;
    assert_int_equal(units_parse_double("1.25", &d), 0); assert_true(d == 1.25);
    assert_int_equal(units_parse_double("-1", &d), -1);
    assert_int_equal(units_parse_double("1.2.3", &d), -1);
    assert_int_equal(units_parse_double("nan", &d), -1);
    assert_int_equal(units_parse_duration("10", &d), 0); assert_true(d == 10);
    assert_int_equal(units_parse_duration("500ms", &d), 0); assert_true(d == 0.5);
    assert_int_equal(units_parse_duration("2m", &d), 0); assert_true(d == 120);
    assert_int_equal(units_parse_duration("2y", &d), -1);
    /* fuzzing's finds: hexadecimal where the header says decimal, a
     * second "0x", and durations that overflow to infinity */
    assert_int_equal(units_parse_double("0x10", &d), -1);
    assert_int_equal(units_parse_duration("0x10", &d), -1);
    assert_int_equal(units_parse_duration("1e306h", &d), -1);
    assert_int_equal(units_parse_duration("1e300h", &d), 0);
    int64_t v;
    assert_int_equal(units_parse_int("0x10", &v), 0); assert_int_equal(v, 16);
    assert_int_equal(units_parse_int("0x0x10", &v), -1);
    /* a span of digits inside a longer string; 18 digits at most */
    assert_int_equal(units_parse_digits("8080/x", 4), 8080);
    assert_int_equal(units_parse_digits("", 0), 0);
    assert_int_equal(units_parse_digits("12a4", 4), -1);
    assert_int_equal(units_parse_digits("999999999999999999", 18), 999999999999999999LL);
    assert_int_equal(units_parse_digits("1000000000000000000", 19), -1);
    char buf[32];
    units_format_bytes(buf, sizeof(buf), 512); assert_string_equal(buf, "512 B");
    units_format_bytes(buf, sizeof(buf), 10240); assert_string_equal(buf, "10.0 KiB");
    units_format_bytes(buf, sizeof(buf), 3LL << 30); assert_string_equal(buf, "3.0 GiB");
}

/* Durations and latencies are one grammar (one table of units, one
 * refusal of signs, hex, inf and nan); a duration's units are ms to h, a
 * latency must carry one of us to s and comes out in microseconds
 * without a rounding. */
static void test_units_time(void **state)
{
    (void)state;
    double d;
    assert_int_equal(units_parse_duration("250us", &d), -1);
    assert_int_equal(units_parse_duration("1.5h", &d), 0); assert_true(d == 5400);
    assert_int_equal(units_parse_duration("5 ms", &d), -1);
    assert_int_equal(units_parse_duration("5MS", &d), -1);
    assert_int_equal(units_parse_latency("5ms", &d), 0); assert_true(d == 5000);
    assert_int_equal(units_parse_latency("250us", &d), 0); assert_true(d == 250);
    assert_int_equal(units_parse_latency("1.5s", &d), 0); assert_true(d == 1.5e6);
    assert_int_equal(units_parse_latency(".5ms", &d), 0); assert_true(d == 500);
    assert_int_equal(units_parse_latency("0ms", &d), 0); assert_true(d == 0);
    static const char *const bad[] = {
        "5",      /* no unit: 5 us or 5 s? */
        "5m",     /* minutes, or a mistyped ms? */
        "1h", "5min", "5ms ", "-5ms", "+5ms", " 5ms", "0x10ms", "infms",
        "nanms", "ms", "", "1e308s",   /* finite in s, not in us */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (units_parse_latency(bad[i], &d) != -1)
            fail_msg("units_parse_latency(\"%s\") was taken", bad[i]);
    assert_int_equal(units_parse_latency(NULL, &d), -1);
    assert_int_equal(units_parse_duration("1e308s", &d), 0);
}

UNIT_MAIN(NULL, NULL,
    cmocka_unit_test(test_units_parse_int),
    cmocka_unit_test(test_units_other),
    cmocka_unit_test(test_units_time))
