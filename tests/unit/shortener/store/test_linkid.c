/* linkid: which link ids are valid (1 to 64 of [A-Za-z0-9], nothing else). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tests/unit/unit.h"

#include "shortener/store/linkid.h"

static void test_valid_id(void **st)
{
    (void)st;
    char id64[66];
    memset(id64, 'a', 65);
    id64[65] = '\0';
    assert_true(linkid_valid("a", 1));
    assert_true(linkid_valid("AbC123xyZ9", 10));
    assert_true(linkid_valid(id64, 64));
    assert_false(linkid_valid(id64, 65));
    assert_false(linkid_valid("", 0));
    assert_false(linkid_valid("abc-def", 7));
    assert_false(linkid_valid("abc def", 7));
    assert_false(linkid_valid("abc/def", 7));
    assert_false(linkid_valid("abc\0def", 7));
    assert_false(linkid_valid("caf\xc3\xa9", 5));
    assert_false(linkid_valid("abc_", 4));
}

UNIT_MAIN(NULL, NULL,
    cmocka_unit_test(test_valid_id))
