/* units: parse and format the sizes, counts and durations users type. */
#ifndef KVTEST_UNITS_H
#define KVTEST_UNITS_H
#include <stddef.h>
#include <stdint.h>

/* Parse a non-negative integer with an optional suffix, as SQLite's kvtest
 * does: K/M/G (also KB/MB/GB) multiply by 1000^n, KiB/MiB/GiB by 1024^n,
 * case-insensitive; "0x" hex is accepted. Rejects empty strings, signs,
 * trailing garbage and anything that overflows int64.
 * Returns 0 on success, -1 on error (nothing printed). */
int units_parse_int(const char *s, int64_t *out);

/* units_parse_int for a size that is a power of two (a database page):
 * a bare K means 1024, as "4k" can mean nothing else there (no power of
 * two is a multiple of 1000). Whether it is one is the caller's check. */
int units_parse_pow2(const char *s, int64_t *out);

/* Parse a non-negative decimal number ("1.1", "0.25"). 0 ok, -1 error. */
int units_parse_double(const char *s, double *out);

/* Parse a duration: a plain decimal number (no sign, hex, inf or nan),
 * alone for seconds or with a unit ms, s, m or h; -1 for one that is not
 * finite once in seconds. */
int units_parse_duration(const char *s, double *seconds);

/* Parse a latency, in microseconds: the same numbers and table of units,
 * but the unit is required and from us to s (us, ms, s). A latency bound judges a whole
 * capacity search, and "5" alone could mean 5 us or 5 s, "5m" 5 ms or 5
 * minutes: refused rather than guessed. 0, or -1 (zero is the caller's
 * to refuse). */
int units_parse_latency(const char *s, double *us);

/* The value of the n decimal digits at s, which need not end there (a
 * port in "host:port", a key in a file name): 0 for none, -1 when n is
 * over 18 (where int64 could overflow) or a character is not a digit. */
int64_t units_parse_digits(const char *s, size_t n);

/* Format bytes as "123 B", "10.0 KiB", "1.5 MiB" ... into buf. */
void units_format_bytes(char *buf, size_t cap, int64_t bytes);

#endif
