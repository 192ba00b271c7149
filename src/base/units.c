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

int units_parse_int(const char *s, int64_t *out)
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
        mult = suffixes[i].mult;
    }
    if ((int64_t)v > INT64_MAX / mult)
        return -1;
    *out = (int64_t)v * mult;
    return 0;
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

int units_parse_duration(const char *s, double *seconds)
{
    double v;
    char *end;
    if (leading_number(s, &v, &end) != 0)
        return -1;
    double mult;
    if (*end == 0 || strcmp(end, "s") == 0)
        mult = 1;
    else if (strcmp(end, "ms") == 0)
        mult = 0.001;
    else if (strcmp(end, "m") == 0)
        mult = 60;
    else if (strcmp(end, "h") == 0)
        mult = 3600;
    else
        return -1;
    *seconds = v * mult;
    return isfinite(*seconds) ? 0 : -1;   /* "1e306h" overflows */
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
