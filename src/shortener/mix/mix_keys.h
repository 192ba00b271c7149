/* mix_keys: a file of existing link ids, one per line (as "kvtest
 * shortener keys" prints), for the load's GETs of links it did not create. */
#ifndef KVTEST_MIX_KEYS_H
#define KVTEST_MIX_KEYS_H
#include <stddef.h>

struct mix_keys {
    char **id;     /* id[0..n) point into buf */
    size_t n;
    char *buf;
};

/* Parse buf[0..len) in place; buf must have room for buf[len] (a NUL goes
 * there when the last line has no newline). On success k owns buf
 * (mix_keys_free frees it); on error k is empty and buf stays the
 * caller's. Blank lines and surrounding white space are skipped; an id that
 * is not 1-64 of [A-Za-z0-9] is an error naming its line. 0 ok, -1 with
 * err set. */
int mix_keys_parse(struct mix_keys *k, char *buf, size_t len, char *err, size_t errcap);
/* Read and parse a file; an empty file is an error. 0 ok, -1 with err set. */
int mix_keys_read(struct mix_keys *k, const char *path, char *err, size_t errcap);
void mix_keys_free(struct mix_keys *k);

#endif
