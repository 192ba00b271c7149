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

/* Parse a non-negative decimal number ("1.1", "0.25"). 0 ok, -1 error. */
int units_parse_double(const char *s, double *out);

/* Parse a duration: plain number = seconds, or with suffix ms/s/m/h;
 * -1 for one that is not finite once in seconds. */
int units_parse_duration(const char *s, double *seconds);

/* The value of the n decimal digits at s, which need not end there (a
 * port in "host:port", a key in a file name): 0 for none, -1 when n is
 * over 18 (where int64 could overflow) or a character is not a digit. */
int64_t units_parse_digits(const char *s, size_t n);

/* Format bytes as "123 B", "10.0 KiB", "1.5 MiB" ... into buf. */
void units_format_bytes(char *buf, size_t cap, int64_t bytes);

#endif
