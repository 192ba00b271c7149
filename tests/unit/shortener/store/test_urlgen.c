/* urlgen: sample URLs are valid, reproducible from (seed, key), and of
 * varied lengths. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tests/unit/unit.h"

#include "shortener/service/request.h"
#include "shortener/store/links.h"
#include "shortener/store/urlgen.h"

static void test_sample_urls(void **st)
{
    (void)st;
    char a[LINKS_URL_MAX + 1], b[LINKS_URL_MAX + 1];
    size_t minlen = SIZE_MAX, maxlen = 0;
    for (uint64_t k = 0; k < 2000; k++) {
        size_t n = urlgen_sample(42, k, a, sizeof a);
        assert_int_equal(n, strlen(a));
        const char *why;
        assert_int_equal(request_check_url(a, n, &why), 0);
        assert_int_equal(urlgen_sample(42, k, b, sizeof b), n);
        assert_string_equal(a, b);   /* reproducible */
        minlen = n < minlen ? n : minlen;
        maxlen = n > maxlen ? n : maxlen;
    }
    assert_true(minlen < 40);   /* varied lengths */
    assert_true(maxlen > 120);
}

UNIT_MAIN(NULL, NULL,
    cmocka_unit_test(test_sample_urls))
