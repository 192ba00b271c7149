/* csv: JSON trees flattened into CSV rows (names with dots, the measurement
 * array as rows, other arrays joined or indexed, a union of columns) and
 * RFC 4180 quoting. Only json.h's subset of cJSON is used, so the same
 * tests run against libcjson and the core build's json_core.c. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tests/unit/unit.h"
#include "tests/unit/capture.h"

#include "base/csv.h"

/* What the table writes, as one string (free it). */
static char *written(const struct csv_table *t)
{
    struct capture c;
    assert_int_equal(csv_table_write(t, capture_open(&c)), 0);
    return capture_close(&c);
}

/* Add obj (then freed) to a new table with rows_path; the CSV text. */
static char *one(cJSON *obj, const char *rows_path)
{
    struct csv_table *t = csv_table_new();
    assert_non_null(t);
    assert_int_equal(csv_table_add(t, obj, rows_path), 0);
    cJSON_Delete(obj);
    char *s = written(t);
    csv_table_free(t);
    return s;
}

static void test_flat_names_and_values(void **state)
{
    (void)state;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "command", "run");
    cJSON *opt = cJSON_AddObjectToObject(o, "options");
    cJSON_AddNumberToObject(opt, "count", 1000);
    cJSON_AddNumberToObject(opt, "zipf", 0.5);
    cJSON_AddBoolToObject(opt, "cold", 1);
    cJSON_AddBoolToObject(opt, "mmap", 0);
    cJSON_AddNullToObject(opt, "seed");
    cJSON_AddObjectToObject(o, "empty");   /* no columns */
    char *s = one(o, NULL);
    assert_string_equal(s, "command,options.count,options.zipf,options.cold,options.mmap,"
                           "options.seed\nrun,1000,0.5,true,false,\n");
    free(s);
}

static void test_quoting(void **state)
{
    (void)state;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "plain", "a b");
    cJSON_AddStringToObject(o, "comma", "a,b");
    cJSON_AddStringToObject(o, "quote", "say \"hi\"");
    cJSON_AddStringToObject(o, "nl", "x\ny");
    cJSON_AddStringToObject(o, "cr", "x\ry");
    cJSON_AddStringToObject(o, "a,\"name\"", "v");
    char *s = one(o, NULL);
    assert_string_equal(s, "plain,comma,quote,nl,cr,\"a,\"\"name\"\"\"\n"
                           "a b,\"a,b\",\"say \"\"hi\"\"\",\"x\ny\",\"x\ry\",v\n");
    free(s);
}

/* Rows from result.runs: its fields named without the index, everything
 * else repeated; a scalar array joined; an array of objects indexed. */
static void test_rows_and_arrays(void **state)
{
    (void)state;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddStringToObject(o, "command", "run");
    cJSON *tags = cJSON_AddArrayToObject(o, "tags");
    cJSON_AddItemToArray(tags, cJSON_CreateString("A=1"));
    cJSON_AddItemToArray(tags, cJSON_CreateNumber(2));
    cJSON_AddArrayToObject(o, "none");
    cJSON *res = cJSON_AddObjectToObject(o, "result");
    cJSON *runs = cJSON_AddArrayToObject(res, "runs");
    for (int i = 1; i <= 3; i++) {
        cJSON *r = cJSON_CreateObject();
        cJSON_AddNumberToObject(r, "seconds", i);
        cJSON_AddItemToArray(runs, r);
    }
    cJSON_AddNumberToObject(res, "us_per_blob", 2.5);
    cJSON *b = cJSON_AddArrayToObject(res, "buckets");
    cJSON *b0 = cJSON_CreateObject();
    cJSON_AddNumberToObject(b0, "lo", 4);
    cJSON_AddItemToArray(b, b0);
    char *s = one(o, "result.runs");
    assert_string_equal(s, "command,tags,none,result.runs.seconds,result.us_per_blob,"
                           "result.buckets.0.lo\n"
                           "run,A=1 2,,1,2.5,4\nrun,A=1 2,,2,2.5,4\nrun,A=1 2,,3,2.5,4\n");
    free(s);
}

/* A rows path that is missing, empty or not an array: the object is one row. */
static void test_rows_missing(void **state)
{
    (void)state;
    cJSON *o = cJSON_CreateObject();
    cJSON_AddArrayToObject(o, "rows");
    cJSON_AddNumberToObject(o, "n", 1);
    char *s = one(o, "rows");
    assert_string_equal(s, "rows,n\n,1\n");
    free(s);
    o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "n", 1);
    s = one(o, "result.nothing.here");
    assert_string_equal(s, "n\n1\n");
    free(s);
}

/* Several objects (a JSON-lines command): one header, the union of the
 * columns in first-seen order, empty cells where a row has none. */
static void test_union_of_columns(void **state)
{
    (void)state;
    struct csv_table *t = csv_table_new();
    assert_non_null(t);
    cJSON *a = cJSON_CreateObject();
    cJSON_AddNumberToObject(a, "x", 1);
    cJSON_AddNumberToObject(a, "y", 2);
    cJSON *b = cJSON_CreateObject();
    cJSON_AddNumberToObject(b, "z", 3);
    cJSON_AddNumberToObject(b, "x", 4);
    assert_int_equal(csv_table_add(t, a, NULL), 0);
    assert_int_equal(csv_table_add(t, b, NULL), 0);
    cJSON_Delete(a);
    cJSON_Delete(b);
    char *s = written(t);
    assert_string_equal(s, "x,y,z\n1,2,\n4,,3\n");
    free(s);
    csv_table_free(t);
}

/* Nothing added: nothing written (not even a header); NULLs refused. */
static void test_empty_and_null(void **state)
{
    (void)state;
    struct csv_table *t = csv_table_new();
    assert_non_null(t);
    assert_int_equal(csv_table_add(t, NULL, NULL), -1);
    assert_int_equal(csv_table_add(NULL, NULL, NULL), -1);
    char *s = written(t);
    assert_string_equal(s, "");
    free(s);
    csv_table_free(t);
    csv_table_free(NULL);
}

UNIT_MAIN(NULL, NULL,
    cmocka_unit_test(test_flat_names_and_values),
    cmocka_unit_test(test_quoting),
    cmocka_unit_test(test_rows_and_arrays),
    cmocka_unit_test(test_rows_missing),
    cmocka_unit_test(test_union_of_columns),
    cmocka_unit_test(test_empty_and_null))
