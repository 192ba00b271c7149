/* run_measure through its library API: the same keys and bytes from the
 * database and both exports, updates that verify afterwards, a corrupted
 * file named by --verify (exit 1), and misuse refused (exit 2). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tests/unit/unit.h"

#include "commands/run/run.h"
#include "stores/layout.h"
#include "tests/unit/fixture.h"

static void test_run_same_keys_bytes(void **state)
{
    struct fixture *f = *state;
    const char *layouts[3] = {f->db, f->flat, f->tree};
    int64_t bytes[3];
    for (int i = 0; i < 3; i++) {
        struct run_opts o;
        run_defaults(&o);
        o.path = layouts[i];
        o.count = 150;
        o.order = ORDER_RANDOM;
        o.quiet = 1;
        o.verify = 1;
        o.repeat = 2;
        struct run_result r;
        assert_int_equal(run_measure(&o, &r, "run"), 0);
        assert_int_equal(r.max_id, 300);   /* directories too */
        assert_int_equal(r.count, 150);
        assert_int_equal(r.misses, 0);
        assert_non_null(r.latency);
        assert_int_equal(r.latency->count, 300);   /* 2 runs x 150 */
        assert_true(r.us_min <= r.us_per_blob && r.us_per_blob <= r.us_max);
        bytes[i] = r.bytes;
        run_result_free(&r);
    }
    assert_int_equal(bytes[0], bytes[1]);
    assert_int_equal(bytes[0], bytes[2]);
}

static void test_run_update_then_verify(void **state)
{
    struct fixture *fx = *state;
    const char *layouts[2] = {fx->db, fx->flat};
    for (int i = 0; i < 2; i++) {   /* db and flat */
        for (int api = 0; api < 2; api++) {
            struct run_opts o;
            run_defaults(&o);
            o.path = layouts[i];
            o.count = 40;
            o.update = 1;
            o.blob_api = api;
            o.verify = 1;
            o.quiet = 1;
            o.order = ORDER_RANDOM;
            assert_int_equal(run_measure(&o, NULL, "run"), 0);
            o.update = 0;
            o.count = 300;
            o.order = ORDER_ASC;
            assert_int_equal(run_measure(&o, NULL, "run"), 0);
        }
    }
    /* Corrupt one byte of a file: verify names the failure (exit 1). */
    char p[512];
    layout_path(p, sizeof p, fx->flat, 0, 9);
    FILE *f = fopen(p, "r+b");
    assert_non_null(f);
    fseek(f, 10, SEEK_SET);
    int c = fgetc(f);
    fseek(f, 10, SEEK_SET);
    fputc(c ^ 1, f);
    fclose(f);
    struct run_opts o;
    run_defaults(&o);
    o.path = fx->flat, o.count = 20, o.verify = 1, o.quiet = 1;
    assert_int_equal(run_measure(&o, NULL, "run"), 1);
    /* --threads with --update is a usage error */
    o.update = 1, o.threads = 2, o.verify = 0;
    assert_int_equal(run_measure(&o, NULL, "run"), 2);
}

UNIT_MAIN(fixture_exports_setup, fixture_teardown,
    cmocka_unit_test(test_run_same_keys_bytes),
    cmocka_unit_test(test_run_update_then_verify))
