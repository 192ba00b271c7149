/* mix_keys: files of existing link ids. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tests/unit/unit.h"

#include "shortener/mix/mix_keys.h"

static int parse(struct mix_keys *k, const char *text, char *err)
{
    size_t len = strlen(text);
    char *buf = malloc(len + 1);
    assert_non_null(buf);
    memcpy(buf, text, len + 1);
    int rc = mix_keys_parse(k, buf, len, err, 160);
    if (rc != 0)
        free(buf);   /* on error the caller keeps the buffer */
    return rc;
}

static void test_keys_parse(void **state)
{
    (void)state;
    struct mix_keys k;
    char err[160];
    assert_int_equal(parse(&k, "abc\n\n  Def12 \r\nxyz9", err), 0);
    assert_int_equal(k.n, 3);
    assert_string_equal(k.id[0], "abc");
    assert_string_equal(k.id[1], "Def12");
    assert_string_equal(k.id[2], "xyz9");   /* last line without newline */
    mix_keys_free(&k);
    assert_int_equal(parse(&k, "", err), 0);
    assert_int_equal(k.n, 0);
    mix_keys_free(&k);

    assert_int_equal(parse(&k, "good\nbad id\n", err), -1);
    assert_non_null(strstr(err, "line 2"));
    assert_null(k.buf);
    assert_int_equal(parse(&k, "ok\nslash/no\n", err), -1);
    char long_id[80];
    memset(long_id, 'a', 65);
    long_id[65] = '\0';
    assert_int_equal(parse(&k, long_id, err), -1);
}

static void test_keys_read(void **state)
{
    (void)state;
    char path[] = "/tmp/kvtest-test-mixkeys-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    assert_non_null(f);
    for (int i = 0; i < 5000; i++)   /* larger than the first read buffer */
        fprintf(f, "Id%08d\n", i);
    fclose(f);
    struct mix_keys k;
    char err[256];
    assert_int_equal(mix_keys_read(&k, path, err, sizeof(err)), 0);
    assert_int_equal(k.n, 5000);
    assert_string_equal(k.id[0], "Id00000000");
    assert_string_equal(k.id[4999], "Id00004999");
    mix_keys_free(&k);

    f = fopen(path, "w");   /* empty: an error, not a silent run with no keys */
    assert_non_null(f);
    fclose(f);
    assert_int_equal(mix_keys_read(&k, path, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "no link ids"));
    unlink(path);
    assert_int_equal(mix_keys_read(&k, path, err, sizeof(err)), -1);
    assert_non_null(strstr(err, path));
}

UNIT_MAIN(NULL, NULL,
    cmocka_unit_test(test_keys_parse),
    cmocka_unit_test(test_keys_read))
