/* What a function writes to a FILE, caught as one string: open a
 * capture, hand its FILE to the writer, close it and read the text.
 * Shared because the tests of every writer (csv, hist_spectrum, sizedist,
 * timeline, report) caught output the same way, some checking that the
 * stream closed cleanly and some not; here it always is checked. Include
 * after tests/unit/unit.h (the checks are cmocka assertions). */
#ifndef TESTS_UNIT_CAPTURE_H
#define TESTS_UNIT_CAPTURE_H

#include <stdio.h>

struct capture {
    char *buf;    /* the text written, NUL-terminated; the caller frees it */
    size_t len;   /* its length, without the NUL */
    FILE *f;
};

/* A FILE writing into c. */
static inline FILE *capture_open(struct capture *c)
{
    c->buf = NULL;
    c->len = 0;
    c->f = open_memstream(&c->buf, &c->len);
    assert_non_null(c->f);
    return c->f;
}

/* Closes c's FILE; the text written (free it). */
static inline char *capture_close(struct capture *c)
{
    assert_int_equal(fclose(c->f), 0);
    return c->buf;
}

#endif
