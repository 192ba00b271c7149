/* url_mask: every password a store or cache URL, a libpq query or a
 * connection string can carry comes out as "***"; nothing else changes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "tests/unit/unit.h"

#include "base/url_mask.h"

/* mask(IN, WANT): the masked text is WANT, it says whether it masked, and
 * no "secret" survives. */
static void mask(const char *in, const char *want)
{
    char out[256];
    int r = url_mask(in, out, sizeof out);
    assert_string_equal(out, want);
    assert_int_equal(r, strcmp(in, want) != 0);
    assert_null(strstr(out, "secret"));
}

static void test_userinfo(void **state)
{
    (void)state;
    mask("postgres://u:secretpw@127.0.0.1:1/db", "postgres://u:***@127.0.0.1:1/db");
    mask("valkey://:secretpw@127.0.0.1:1", "valkey://:***@127.0.0.1:1");
    mask("valkey://app:secret@[::1]:6379/2", "valkey://app:***@[::1]:6379/2");
    mask("valkey-cluster+track://app:secret@h1:1,h2:2", "valkey-cluster+track://app:***@h1:1,h2:2");
    /* typed raw: '@', '/' and ':' inside the password */
    mask("postgres://u:se/cr:et@x@h/db", "postgres://u:***@h/db");
    /* a user and no password, no userinfo, a port: unchanged */
    mask("valkey://app@h:1", "valkey://app@h:1");
    mask("http://example.com:80/a", "http://example.com:80/a");
    mask("x.db", "x.db");
    mask("", "");
}

static void test_in_messages(void **state)
{
    (void)state;
    mask("bad cache URL 'valkey://:secret@h:1': bad host",
         "bad cache URL 'valkey://:***@h:1': bad host");
    mask("--from postgres://a:secret1@h/d and \"postgres://b:secret2@h/e\"",
         "--from postgres://a:***@h/d and \"postgres://b:***@h/e\"");
    mask("kvtest shortener serve postgres://u:secret@h/db --cache valkey://:secret@h:2",
         "kvtest shortener serve postgres://u:***@h/db --cache valkey://:***@h:2");
}

static void test_password_keys(void **state)
{
    (void)state;
    mask("postgres://h/db?user=u&password=secret&sslmode=disable",
         "postgres://h/db?user=u&password=***&sslmode=disable");
    mask("postgres://h/db?PassWord=secret", "postgres://h/db?PassWord=***");
    mask("host=h password='se cr\\'et' dbname=d", "host=h password=*** dbname=d");
    mask("password=secret", "password=***");
    mask("password=", "password=***");
    /* not the key: part of a longer word */
    mask("mypassword=x", "mypassword=x");
}

/* Cut to the buffer after masking: a short buffer never shows more of a
 * password than a long one; always terminated. */
static void test_cut(void **state)
{
    (void)state;
    char out[16];
    url_mask("postgres://u:secretpw@h/db", out, sizeof out);
    assert_string_equal(out, "postgres://u:**");
    char one[1] = {'x'};
    url_mask("abc", one, sizeof one);
    assert_int_equal(one[0], '\0');
    url_mask("abc", NULL, 0);
}

UNIT_MAIN(NULL, NULL,
    cmocka_unit_test(test_userinfo),
    cmocka_unit_test(test_in_messages),
    cmocka_unit_test(test_password_keys),
    cmocka_unit_test(test_cut))
