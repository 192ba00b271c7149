/* urlgen: deterministic, realistic URLs to fill a links database with
 * (hosts, path segments, tracking parameters, fragments), so stored rows
 * have the length spread of real links. */
#ifndef KVTEST_SHORTENER_URLGEN_H
#define KVTEST_SHORTENER_URLGEN_H
#include <stddef.h>
#include <stdint.h>

/* URL number k of a seed, 20..~300 bytes, written NUL-terminated into buf
 * (cap >= LINKS_URL_MAX + 1). Returns its length. */
size_t urlgen_sample(uint64_t seed, uint64_t k, char *buf, size_t cap);

#endif
