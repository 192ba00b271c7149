/* cli_json: a parsed command's options as JSON from its option table: each
 * type's rule, the table's order, rows outside the struct left out, rules
 * that replace or drop a row, and a table built over one struct read
 * against another. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "base/cli_json.h"

struct toy {
    int64_t count;
    double zipf;
    int verify, order, mode;
    const char *name, *none;
    int hook;
};

struct toy_args {
    struct toy t;
    const char *text;   /* a parser's own value, outside struct toy */
};

static const char *const modes[] = {"delete", "wal", NULL};

static int toy_table(struct toy_args *a, struct cli_opt *rows)
{
    const struct cli_opt t[] = {
        CLI_INT_OPT("count", &a->t.count, 1, 100),
        CLI_STR_OPT("text", &a->text),
        CLI_DOUBLE_OPT("zipf", &a->t.zipf, 0, 10),
        CLI_FLAG_OPT("verify", &a->t.verify),
        CLI_SET_OPT("asc", &a->t.order, 0),
        CLI_SET_OPT("desc", &a->t.order, 1),
        CLI_ENUM_OPT("journal-mode", &a->t.mode, modes),
        CLI_STR_OPT("name", &a->t.name),
        CLI_STR_OPT("none", &a->t.none),
        CLI_FLAG_OPT("hook", &a->t.hook),
    };
    CLI_TABLE_RETURN(rows, 16, t);
}

static char *options_text(const struct toy *obj, const struct cli_json_rule *rules, int n)
{
    struct toy_args scratch;
    memset(&scratch, 0xa5, sizeof scratch);   /* nothing may be read from it */
    struct cli_opt rows[16];
    int nrows = toy_table(&scratch, rows);
    cJSON *j = cJSON_CreateObject();
    cli_json_options(j, rows, nrows, &scratch.t, sizeof scratch.t, obj, rules, n, obj);
    char *s = cJSON_PrintUnformatted(j);
    cJSON_Delete(j);
    return s;
}

static void test_each_type_in_table_order(void **state)
{
    (void)state;
    struct toy o = {.count = 42, .zipf = 1.5, .verify = 1, .order = 1, .mode = 1,
                    .name = "x", .none = NULL};
    char *s = options_text(&o, NULL, 0);
    assert_string_equal(s, "{\"count\":42,\"zipf\":1.5,\"verify\":true,\"asc\":false,"
                           "\"desc\":true,\"journal_mode\":\"wal\",\"name\":\"x\","
                           "\"none\":null,\"hook\":false}");
    free(s);
    o.mode = -1;   /* an enum not given */
    s = options_text(&o, NULL, 0);
    assert_non_null(strstr(s, "\"journal_mode\":null"));
    free(s);
}

static void count_twice(cJSON *j, const char *key, const void *obj, const void *ctx)
{
    assert_ptr_equal(obj, ctx);
    cJSON_AddNumberToObject(j, key, 2.0 * (double)((const struct toy *)obj)->count);
}

static void text_as_order(cJSON *j, const char *key, const void *obj, const void *ctx)
{
    (void)ctx;
    assert_string_equal(key, "text");
    cJSON_AddStringToObject(j, "order", ((const struct toy *)obj)->order ? "desc" : "asc");
}

static void test_rules_replace_drop_and_reach_outside(void **state)
{
    (void)state;
    struct toy o = {.count = 5, .order = 0, .mode = 0};
    const struct cli_json_rule rules[] = {
        {"count", count_twice},   /* derived */
        {"text", text_as_order},  /* a row outside the struct, written */
        {"asc", NULL}, {"desc", NULL}, {"hook", NULL},   /* left out */
    };
    char *s = options_text(&o, rules, CLI_COUNT(rules));
    assert_string_equal(s, "{\"count\":10,\"order\":\"asc\",\"zipf\":0,\"verify\":false,"
                           "\"journal_mode\":\"delete\",\"name\":null,\"none\":null}");
    free(s);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_each_type_in_table_order),
        cmocka_unit_test(test_rules_replace_drop_and_reach_outside),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
