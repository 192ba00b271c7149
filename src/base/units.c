/* units: parse and format sizes, counts and durations. */
#include "base/units.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct suffix {
    const char *s;
    int64_t mult;
};

/* Longest first so "KiB" is not taken for "K" + garbage. */
static const struct suffix suffixes[] = {
    {"KiB", 1024LL}, {"MiB", 1024LL * 1024}, {"GiB", 1024LL * 1024 * 1024},
    {"KB", 1000LL}, {"MB", 1000000LL}, {"GB", 1000000000LL},
    {"K", 1000LL}, {"M", 1000000LL}, {"G", 1000000000LL},
};

/* units_parse_int, and with k1024 a bare K (either case) read as KiB. */
static int parse_count(const char *s, int64_t *out, int k1024)
{
    if (!s || !*s)
        return -1;
    /* strtoll would accept leading blanks and signs; a count never has them. */
    if (!isdigit((unsigned char)s[0]))
        return -1;
    int base = 10;
    const char *p = s;
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')) {
        base = 16;
        p += 2;
        /* strtoull(16) takes a "0x" of its own: "0x0x10" would be 16 */
        if (!isxdigit((unsigned char)*p) || (p[0] == '0' && (p[1] == 'x' || p[1] == 'X')))
            return -1;
    }
    errno = 0;
    char *end;
    unsigned long long v = strtoull(p, &end, base);
    if (errno == ERANGE || v > (unsigned long long)INT64_MAX)
        return -1;
    int64_t mult = 1;
    if (*end) {
        size_t i;
        for (i = 0; i < sizeof(suffixes) / sizeof(suffixes[0]); i++)
            if (strcasecmp(end, suffixes[i].s) == 0)
                break;
        if (i == sizeof(suffixes) / sizeof(suffixes[0]))
            return -1;
        mult = k1024 && strcasecmp(end, "K") == 0 ? 1024 : suffixes[i].mult;
    }
    if ((int64_t)v > INT64_MAX / mult)
        return -1;
    *out = (int64_t)v * mult;
    return 0;
}

int units_parse_int(const char *s, int64_t *out)
{
    return parse_count(s, out, 0);
}

int units_parse_pow2(const char *s, int64_t *out)
{
    return parse_count(s, out, 1);
}

/* The plain decimal number s starts with (a digit or '.' first: no sign,
 * space, "inf", "nan" or "0x" hexadecimal, which strtod alone would take):
 * its value, finite and not negative, and where it ends. 0, or -1. */
static int leading_number(const char *s, double *v, char **end)
{
    if (!s || !*s || !(isdigit((unsigned char)s[0]) || s[0] == '.') ||
        (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')))
        return -1;
    errno = 0;
    *v = strtod(s, end);
    return errno == ERANGE || !isfinite(*v) || *v < 0 ? -1 : 0;
}

int units_parse_double(const char *s, double *out)
{
    double v;
    char *end;
    if (leading_number(s, &v, &end) != 0 || *end)
        return -1;
    *out = v;
    return 0;
}

/* Which grammar may use a unit of time. A latency bound stops at seconds
 * (units.h says why); a duration starts at milliseconds: nothing that
 * takes one (a run, a step, an interval) is measured in microseconds, and
 * the messages that refuse a duration list ms/s/m/h. */
enum { TIME_DURATION = 1, TIME_LATENCY = 2 };

/* The units of time, one table for both grammars. Each has its factor to
 * seconds and to microseconds, so that a value comes out of one product as
 * the parsers this table replaced computed it ("5ms" is 5000 us, not
 * 0.005 s times 1e6, a rounding away). */
static const struct time_unit {
    const char *s;
    double secs, us;
    int uses;
} time_units[] = {
    {"us", 1e-6, 1, TIME_LATENCY},
    {"ms", 0.001, 1e3, TIME_DURATION | TIME_LATENCY},
    {"s", 1, 1e6, TIME_DURATION | TIME_LATENCY},
    {"m", 60, 6e7, TIME_DURATION},
    {"h", 3600, 3.6e9, TIME_DURATION},
};

/* A plain decimal number and one unit of time_units that `use` may take:
 * the number in *v and the unit in *u, or *u NULL when the number stands
 * alone. 0, or -1. */
static int time_number(const char *s, int use, double *v, const struct time_unit **u)
{
    char *end;
    if (leading_number(s, v, &end) != 0)
        return -1;
    *u = NULL;
    if (*end == 0)
        return 0;
    for (size_t i = 0; i < sizeof time_units / sizeof time_units[0]; i++)
        if ((time_units[i].uses & use) && strcmp(end, time_units[i].s) == 0) {
            *u = &time_units[i];
            return 0;
        }
    return -1;
}

int units_parse_duration(const char *s, double *seconds)
{
    double v;
    const struct time_unit *u;
    if (time_number(s, TIME_DURATION, &v, &u) != 0)
        return -1;
    *seconds = u ? v * u->secs : v;
    return isfinite(*seconds) ? 0 : -1;   /* "1e306h" overflows */
}

int units_parse_latency(const char *s, double *us)
{
    double v;
    const struct time_unit *u;
    if (time_number(s, TIME_LATENCY, &v, &u) != 0 || !u)
        return -1;
    *us = v * u->us;
    return isfinite(*us) ? 0 : -1;   /* "1e308s" overflows */
}

int64_t units_parse_digits(const char *s, size_t n)
{
    if (n > 18)
        return -1;
    int64_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v;
}

void units_format_bytes(char *buf, size_t cap, int64_t bytes)
{
    static const char *const names[] = {"B", "KiB", "MiB", "GiB", "TiB", "PiB"};
    double v = (double)bytes;
    size_t i = 0;
    while ((v >= 1024 || v <= -1024) && i + 1 < sizeof(names) / sizeof(names[0])) {
        v /= 1024;
        i++;
    }
    if (i == 0)
        snprintf(buf, cap, "%lld B", (long long)bytes);
    else
        snprintf(buf, cap, "%.1f %s", v, names[i]);
}
