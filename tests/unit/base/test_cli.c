/* Unit tests of base/cli: option rows written with the CLI_*_OPT macros,
 * their bounds, the enum type and its one-line misuse, and cli_parse_one.
 * Misuse messages are read back from stderr: they are the user's only
 * clue, so their exact text is part of what is tested. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tests/unit/unit.h"

#include "base/cli.h"

/* stderr of the last parse, one line without its newline. */
static char err_line[1024];

/* cli_parse on a copy of args (the parser takes char **), with stderr
 * captured into err_line. Returns what cli_parse returned. */
static int parse_capture(const struct cli_opt *opts, int nopts, int argc, const char *const *args,
                         const char **pos, int maxpos, int *npos, const char *missing)
{
    char *argv[16];
    assert_true(argc <= 16);
    for (int i = 0; i < argc; i++)
        argv[i] = (char *)args[i];
    FILE *tmp = tmpfile();
    assert_non_null(tmp);
    fflush(stderr);
    int saved = dup(2);
    assert_true(saved >= 0);
    assert_true(dup2(fileno(tmp), 2) >= 0);
    int rc = missing ? cli_parse_one("t", argc, argv, opts, nopts, pos, missing)
                     : cli_parse("t", argc, argv, opts, nopts, pos, maxpos, npos);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(tmp);
    size_t n = fread(err_line, 1, sizeof err_line - 1, tmp);
    fclose(tmp);
    err_line[n] = 0;
    if (n > 0 && err_line[n - 1] == '\n')
        err_line[n - 1] = 0;
    return rc;
}

static void test_cli_parse(void **state)
{
    (void)state;
    int64_t count = 1000;
    int flag = 0, ord = 0;
    double z = 0;
    const char *name = NULL;
    const struct cli_opt opts[] = {
        CLI_INT_OPT("count", &count, 1, 1000000),
        CLI_FLAG_OPT("nosync", &flag),
        CLI_SET_OPT("asc", &ord, 0),
        CLI_SET_OPT("desc", &ord, 1),
        CLI_DOUBLE_OPT("zipf", &z, 0.01, 10),
        CLI_STR_OPT("name", &name),
    };
    const int n = CLI_COUNT(opts);
    assert_int_equal(n, 6);
    const char *pos[2];
    int npos;
    char *a1[] = {"x.db", "-count", "10k", "--nosync", "--desc", "--zipf=1.5", "--name", "q"};
    assert_int_equal(cli_parse("t", 8, a1, opts, n, pos, 2, &npos), 0);
    assert_int_equal(npos, 1);
    assert_string_equal(pos[0], "x.db");
    assert_int_equal(count, 10000);
    assert_int_equal(flag, 1);
    assert_int_equal(ord, 1);
    assert_true(z == 1.5);
    assert_string_equal(name, "q");
    /* Each a misuse: exit status 2. */
    struct { int argc; const char *argv[3]; } bad[] = {
        {2, {"--asc", "--desc"}}, {1, {"--bogus"}}, {1, {"--count"}},
        {2, {"--count", "0"}}, {2, {"--count", "-3"}}, {3, {"a", "b", "c"}},
        {1, {"--nosync=1"}}, {2, {"--zipf", "0"}},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (parse_capture(opts, n, bad[i].argc, bad[i].argv, pos, 2, &npos, NULL) != 2)
            fail_msg("misuse %zu (%s) was accepted", i, bad[i].argv[0]);
    char *a10[] = {"--", "-file"};
    assert_int_equal(cli_parse("t", 2, a10, opts, n, pos, 2, &npos), 0);
    assert_string_equal(pos[0], "-file");
}

/* Both ends of each range are in it, one step past either end is not, and
 * the message names the range the row declared. */
static void test_cli_bounds(void **state)
{
    (void)state;
    int64_t c = 0;
    double d = 0;
    const struct cli_opt opts[] = {
        CLI_INT_OPT("count", &c, 1, 10),
        CLI_DOUBLE_OPT("ratio", &d, 0.5, 2),
    };
    const char *pos[1];
    int npos;
    const char *ok[][2] = {{"--count", "1"}, {"--count", "10"},
                           {"--ratio", "0.5"}, {"--ratio", "2"}};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++)
        if (parse_capture(opts, CLI_COUNT(opts), 2, ok[i], pos, 0, &npos, NULL) != 0)
            fail_msg("%s %s refused: %s", ok[i][0], ok[i][1], err_line);
    assert_int_equal(c, 10);
    assert_true(d == 2);
    const char *a[] = {"--count", "11"};
    assert_int_equal(parse_capture(opts, CLI_COUNT(opts), 2, a, pos, 0, &npos, NULL), 2);
    assert_string_equal(err_line, "kvtest t: --count must be between 1 and 10, got 11");
    const char *b[] = {"--count", "0"};
    assert_int_equal(parse_capture(opts, CLI_COUNT(opts), 2, b, pos, 0, &npos, NULL), 2);
    const char *e[] = {"--ratio=0.49"};
    assert_int_equal(parse_capture(opts, CLI_COUNT(opts), 1, e, pos, 0, &npos, NULL), 2);
    assert_string_equal(err_line, "kvtest t: --ratio must be between 0.5 and 2, got 0.49");
    const char *f[] = {"--ratio", "2.01"};
    assert_int_equal(parse_capture(opts, CLI_COUNT(opts), 2, f, pos, 0, &npos, NULL), 2);
    assert_int_equal(c, 10);   /* a refused value writes nothing */
    assert_true(d == 2);
}

static void test_cli_enum(void **state)
{
    (void)state;
    static const char *const modes[] = {"delete", "truncate", "persist", "memory", "wal", "off",
                                        NULL};
    static const char *const adv[] = {"random", "normal", NULL};
    int mode = -1, how = -1;
    const struct cli_opt opts[] = {
        CLI_ENUM_ANYCASE_OPT("jmode", &mode, modes),
        CLI_ENUM_OPT("fadvise", &how, adv),
    };
    const int n = CLI_COUNT(opts);
    const char *pos[1];
    int npos;
    const char *good[] = {"--jmode", "wal", "--fadvise=normal"};
    assert_int_equal(parse_capture(opts, n, 3, good, pos, 0, &npos, NULL), 0);
    assert_int_equal(mode, 4);
    assert_int_equal(how, 1);
    const char *first[] = {"--jmode", "delete", "--fadvise", "random"};
    assert_int_equal(parse_capture(opts, n, 4, first, pos, 0, &npos, NULL), 0);
    assert_int_equal(mode, 0);
    assert_int_equal(how, 0);
    /* Pragma values in any case, as SQLite takes them. */
    const char *upper[] = {"--jmode", "TRUNCATE"};
    assert_int_equal(parse_capture(opts, n, 2, upper, pos, 0, &npos, NULL), 0);
    assert_int_equal(mode, 1);
    /* A bad value: one line listing every choice, and nothing stored. */
    const char *bad[] = {"--jmode", "x"};
    assert_int_equal(parse_capture(opts, n, 2, bad, pos, 0, &npos, NULL), 2);
    assert_string_equal(err_line, "kvtest t: --jmode must be one of delete, truncate, persist, "
                        "memory, wal, off; got 'x'");
    assert_int_equal(mode, 1);
    const char *bad2[] = {"--fadvise", "maybe"};
    assert_int_equal(parse_capture(opts, n, 2, bad2, pos, 0, &npos, NULL), 2);
    assert_string_equal(err_line, "kvtest t: --fadvise must be random or normal, got 'maybe'");
    /* Neither prefixes, nor longer words, nor the empty value, nor (for a
     * row without ANYCASE) another case. */
    const char *refused[][2] = {{"--jmode", "of"}, {"--jmode", "wa"}, {"--jmode", "wall"},
                                {"--jmode", ""}, {"--fadvise", "rand"}, {"--fadvise", "RANDOM"}};
    for (size_t i = 0; i < sizeof refused / sizeof refused[0]; i++)
        if (parse_capture(opts, n, 2, refused[i], pos, 0, &npos, NULL) != 2)
            fail_msg("%s '%s' was accepted", refused[i][0], refused[i][1]);
    assert_int_equal(how, 0);
}

static void test_cli_parse_one(void **state)
{
    (void)state;
    int json = 0;
    const struct cli_opt opts[] = {
        CLI_FLAG_OPT("json", &json),
    };
    const char *arg = NULL;
    const char *one[] = {"--json", "x.db"};
    assert_int_equal(parse_capture(opts, CLI_COUNT(opts), 2, one, &arg, 0, NULL, "missing X"), 0);
    assert_string_equal(arg, "x.db");
    assert_int_equal(json, 1);
    const char *none[] = {"--json"};
    assert_int_equal(parse_capture(opts, CLI_COUNT(opts), 1, none, &arg, 0, NULL,
                                   "missing DBFILE (usage: kvtest t DBFILE)"), 2);
    assert_string_equal(err_line, "kvtest t: missing DBFILE (usage: kvtest t DBFILE)");
    const char *two[] = {"a.db", "b.db"};
    assert_int_equal(parse_capture(opts, CLI_COUNT(opts), 2, two, &arg, 0, NULL, "missing X"), 2);
    assert_string_equal(err_line, "kvtest t: unexpected argument 'b.db'");
    /* The option's error comes first, as cli_parse reports it. */
    const char *bogus[] = {"--bogus"};
    assert_int_equal(parse_capture(opts, CLI_COUNT(opts), 1, bogus, &arg, 0, NULL, "missing X"), 2);
    assert_string_equal(err_line, "kvtest t: unknown option '--bogus'");
    const char *dash[] = {"--", "-x.db"};
    assert_int_equal(parse_capture(opts, CLI_COUNT(opts), 2, dash, &arg, 0, NULL, "missing X"), 0);
    assert_string_equal(arg, "-x.db");
}

/* fn(ctx) with stdout captured into out (NUL-terminated). */
static void stdout_capture(void (*fn)(void *), void *ctx, char *out, size_t cap)
{
    FILE *tmp = tmpfile();
    assert_non_null(tmp);
    fflush(stdout);
    int saved = dup(1);
    assert_true(saved >= 0);
    assert_true(dup2(fileno(tmp), 1) >= 0);
    fn(ctx);
    fflush(stdout);
    dup2(saved, 1);
    close(saved);
    rewind(tmp);
    size_t n = fread(out, 1, cap - 1, tmp);
    fclose(tmp);
    out[n] = 0;
}

struct list_case {
    const struct cli_opt *opts;
    int nopts, rc, npos;
};

static void list_parse(void *ctx)
{
    struct list_case *c = ctx;
    const char *args[] = {"--count", "5", "--fast", "--jmode", "wal", "--from", "d", "x.db"};
    const char *pos[1];
    c->npos = -1;
    c->rc = parse_capture(c->opts, c->nopts, 8, args, pos, 1, &c->npos, NULL);
}

static void list_word(void *ctx)
{
    (void)ctx;
    cli_list_word("load", "command");
}

/* List mode (kvtest __options, for completion): the table printed from its
 * rows, hidden ones left out, nothing parsed, and 2 so the command stops. */
static void test_cli_list(void **state)
{
    (void)state;
    int64_t count = 7;
    int fast = 0, ord = 0, jmode = -1, method = 0;
    double z = 0;
    const char *from = NULL, *name = NULL, *hook = NULL;
    static const char *const jmodes[] = {"delete", "wal", NULL};
    const struct cli_opt opts[] = {
        CLI_INT_OPT("count", &count, 1, 100),
        CLI_FLAG_OPT("fast", &fast),
        CLI_SET_OPT("asc", &ord, 1),
        CLI_DOUBLE_OPT("zipf", &z, 0, 9),
        CLI_STR_OPT("name", &name),
        CLI_PATH_OPT("from", &from),
        CLI_ENUM_ANYCASE_OPT("jmode", &jmode, jmodes),
        CLI_HIDDEN_PATH_OPT("keys-out", &hook),
        CLI_HIDDEN_ENUM_OPT("method", &method, jmodes),
    };
    struct list_case c = {opts, CLI_COUNT(opts), -1, -1};
    char out[1024];
    cli_list_set(1);
    assert_int_equal(cli_list_mode(), 1);
    assert_int_equal(cli_list_done(), 0);
    stdout_capture(list_parse, &c, out, sizeof out);
    assert_int_equal(c.rc, 2);
    assert_int_equal(c.npos, 0);
    assert_string_equal(err_line, "");
    assert_string_equal(out, "--count int\n--fast flag\n--asc flag\n--zipf double\n"
                             "--name str\n--from path\n--jmode enum delete wal\n");
    assert_int_equal(cli_list_done(), 1);
    /* Nothing was parsed into the destinations. */
    assert_int_equal(count, 7);
    assert_int_equal(fast, 0);
    assert_int_equal(jmode, -1);
    assert_null(from);
    stdout_capture(list_word, NULL, out, sizeof out);
    assert_string_equal(out, "load command\n");
    /* Off again: the same arguments are parsed as ever. */
    cli_list_set(0);
    assert_int_equal(cli_list_done(), 0);
    stdout_capture(list_parse, &c, out, sizeof out);
    assert_int_equal(c.rc, 0);
    assert_int_equal(c.npos, 1);
    assert_string_equal(out, "");
    assert_int_equal(count, 5);
    assert_int_equal(fast, 1);
    assert_int_equal(jmode, 1);
    assert_string_equal(from, "d");
}

UNIT_MAIN(NULL, NULL,
    cmocka_unit_test(test_cli_parse),
    cmocka_unit_test(test_cli_bounds),
    cmocka_unit_test(test_cli_enum),
    cmocka_unit_test(test_cli_parse_one),
    cmocka_unit_test(test_cli_list))
