/* errbuf: a reason formatted into the caller's buffer, if it gave one. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "tests/unit/unit.h"

#include "base/errbuf.h"

static void test_say(void **state)
{
    (void)state;
    char buf[32];
    errbuf_say(buf, sizeof(buf), "line %d: %s", 3, "bad id");
    assert_string_equal(buf, "line 3: bad id");
    /* Cut to the buffer, always terminated. */
    errbuf_say(buf, 6, "%s", "abcdefghij");
    assert_string_equal(buf, "abcde");
    /* No buffer, or no room: nothing written, no crash. */
    memset(buf, 'x', sizeof(buf));
    errbuf_say(buf, 0, "%s", "zzz");
    assert_int_equal(buf[0], 'x');
    errbuf_say(NULL, 10, "%s", "zzz");
}

UNIT_MAIN(NULL, NULL,
    cmocka_unit_test(test_say))
