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

UNIT_MAIN(NULL, NULL,
    cmocka_unit_test(test_units_parse_int),
    cmocka_unit_test(test_units_other))
