/* cli: table-driven option parsing and the error contract.
 * Options may be written -opt or --opt, with the value as the next argument
 * or after '=' (--count=10). Misuse prints one line "kvtest CMD: problem"
 * on stderr; the caller returns exit status 2. */
#ifndef KVTEST_CLI_H
#define KVTEST_CLI_H
#include <stdint.h>
#include <string.h>

enum cli_type {
    CLI_FLAG,    /* int *dest = 1 */
    CLI_SET,     /* int *dest = (int)set; for mutually exclusive choices */
    CLI_INT,     /* int64_t *dest, units_parse_int, checked against [min,max] */
    CLI_DOUBLE,  /* double *dest, checked against [dmin,dmax] */
    CLI_STR,     /* const char **dest = argv value */
    CLI_ENUM,    /* int *dest = index of the value in choices */
};

/* One row of an option table. Write rows with the CLI_*_OPT macros below,
 * which name what each number means and check dest's type. */
struct cli_opt {
    const char *name;     /* without dashes: "count" */
    enum cli_type type;
    void *dest;
    int64_t min, max;     /* CLI_INT bounds (inclusive); CLI_SET value in min */
    double dmin, dmax;    /* CLI_DOUBLE bounds (inclusive) */
    const char *const *choices;  /* CLI_ENUM: the names, NULL-terminated */
    int anycase;          /* CLI_ENUM: match ignoring case (SQLite's pragma values) */
    int path;             /* CLI_STR: the value names a file or directory (completion) */
    int hidden;           /* not in the help, so not listed (test hooks, baselines) */
};

/* The (1 ? (d) : (T *)0) in each macro makes a dest of the wrong type
 * (an int where int64_t is written) a compile error instead of a silent
 * half-written value. */
#define CLI_FLAG_OPT(nm, d) {.name = (nm), .type = CLI_FLAG, .dest = (1 ? (d) : (int *)0)}
#define CLI_SET_OPT(nm, d, value) \
    {.name = (nm), .type = CLI_SET, .dest = (1 ? (d) : (int *)0), .min = (value)}
#define CLI_INT_OPT(nm, d, lo, hi) \
    {.name = (nm), .type = CLI_INT, .dest = (1 ? (d) : (int64_t *)0), .min = (lo), .max = (hi)}
#define CLI_DOUBLE_OPT(nm, d, lo, hi) \
    {.name = (nm), .type = CLI_DOUBLE, .dest = (1 ? (d) : (double *)0), .dmin = (lo), .dmax = (hi)}
#define CLI_STR_OPT(nm, d) {.name = (nm), .type = CLI_STR, .dest = (1 ? (d) : (const char **)0)}
/* A string that names a file or directory: shell completion offers files. */
#define CLI_PATH_OPT(nm, d) \
    {.name = (nm), .type = CLI_STR, .dest = (1 ? (d) : (const char **)0), .path = 1}
/* A path option left out of the help and of completion (a test hook). */
#define CLI_HIDDEN_PATH_OPT(nm, d) \
    {.name = (nm), .type = CLI_STR, .dest = (1 ? (d) : (const char **)0), .path = 1, .hidden = 1}
/* *d = index in names (a NULL-terminated array); a value not in it is the
 * misuse "--NAME must be A or B, got 'X'" (or "one of A, B, C; got"). */
#define CLI_ENUM_OPT(nm, d, names) \
    {.name = (nm), .type = CLI_ENUM, .dest = (1 ? (d) : (int *)0), .choices = (names)}
#define CLI_ENUM_ANYCASE_OPT(nm, d, names) \
    {.name = (nm), .type = CLI_ENUM, .dest = (1 ? (d) : (int *)0), .choices = (names), \
     .anycase = 1}
/* An enum left out of the help and of completion (a benchmark baseline). */
#define CLI_HIDDEN_ENUM_OPT(nm, d, names) \
    {.name = (nm), .type = CLI_ENUM, .dest = (1 ? (d) : (int *)0), .choices = (names), \
     .hidden = 1}

/* The number of rows of an option table (an array, not a pointer). */
#define CLI_COUNT(table) ((int)(sizeof(table) / sizeof((table)[0])))

/* The end of a function that builds option table t (an array) over a
 * struct it is given, so that the parser and the options' JSON share one
 * table (run_opts.c): copy t into rows, which has room for cap rows (a
 * compile-time check), and return its number of rows. */
#define CLI_TABLE_RETURN(rows, cap, t)                                        \
    do {                                                                      \
        _Static_assert(sizeof(t) / sizeof((t)[0]) <= (cap), "table too big"); \
        memcpy((rows), (t), sizeof(t));                                       \
        return CLI_COUNT(t);                                                  \
    } while (0)

/* Parse argv[0..argc) (argv[0] is the first argument after the subcommand
 * name). Positional arguments are stored in pos[] (at most maxpos; more is
 * an error "unexpected argument X"); their number goes to *npos.
 * "--" ends options. Returns 0 on success, 2 after printing the error. */
int cli_parse(const char *cmd, int argc, char **argv,
              const struct cli_opt *opts, int nopts,
              const char **pos, int maxpos, int *npos);

/* The command line most commands take: options and exactly one positional
 * argument, stored in *arg. Returns 0, or 2 after printing the misuse:
 * cli_parse's, or "kvtest CMD: MISSING" when the argument is absent. */
int cli_parse_one(const char *cmd, int argc, char **argv,
                  const struct cli_opt *opts, int nopts,
                  const char **arg, const char *missing);

/* List mode ("kvtest __options CMD", what shell completion asks): while
 * it is on, cli_parse and cli_parse_one parse nothing. They print the
 * table on stdout, one line per row not hidden, "--NAME TYPE" with TYPE
 * flag, int, double, str, path or enum (then the choices: "--jmode enum
 * delete truncate ..."), and return 2: every command parses before it does
 * any work, so it stops there as after a misuse, and main exits 0 because
 * cli_list_done() says the table was printed. Process-wide, because the
 * tables are local to each command's entry function. */
void cli_list_set(int on);
int cli_list_mode(void);
/* 1 when a table or a word was listed since cli_list_set(1). */
int cli_list_done(void);
/* In list mode, "WORD KIND" for what is not an option row (a subcommand:
 * "load command"); marks the listing done. */
void cli_list_word(const char *word, const char *kind);

/* Print "kvtest CMD: <message>" and return 2 (usage error). */
int cli_usage(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Print "kvtest CMD: <message>" and return 1 (runtime failure). */
int cli_fail(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* A lower layer's failure as an exit status: rc 0 is 0; ERRBUF_MISUSE
 * (base/errbuf.h) prints err as cli_usage does and is 2; any other rc
 * prints it as cli_fail does and is 1. The layers below report into a
 * buffer; this is where their verdict becomes the command's. */
int cli_status(const char *cmd, int rc, const char *err);
/* Print "kvtest CMD: warning: <message>". */
void cli_warn(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The full command line of this process, for JSON output ("kvtest run x"). */
void cli_set_cmdline(int argc, char **argv);
const char *cli_cmdline(void);

#endif
