/* cli: table-driven option parsing and the error contract.
 * Options may be written -opt or --opt, with the value as the next argument
 * or after '=' (--count=10). Misuse prints one line "kvtest CMD: problem"
 * on stderr; the caller returns exit status 2. */
#ifndef KVTEST_CLI_H
#define KVTEST_CLI_H
#include <stdint.h>

enum cli_type {
    CLI_FLAG,    /* int *dest = 1 */
    CLI_SET,     /* int *dest = (int)set; for mutually exclusive choices */
    CLI_INT,     /* int64_t *dest, units_parse_int, checked against [min,max] */
    CLI_DOUBLE,  /* double *dest, checked against [dmin,dmax] */
    CLI_STR,     /* const char **dest = argv value */
};

struct cli_opt {
    const char *name;     /* without dashes: "count" */
    enum cli_type type;
    void *dest;
    int64_t min, max;     /* CLI_INT bounds (inclusive); CLI_SET value in min */
    double dmin, dmax;    /* CLI_DOUBLE bounds (inclusive) */
};

/* Parse argv[0..argc) (argv[0] is the first argument after the subcommand
 * name). Positional arguments are stored in pos[] (at most maxpos; more is
 * an error "unexpected argument X"); their number goes to *npos.
 * "--" ends options. Returns 0 on success, 2 after printing the error. */
int cli_parse(const char *cmd, int argc, char **argv,
              const struct cli_opt *opts, int nopts,
              const char **pos, int maxpos, int *npos);

/* Print "kvtest CMD: <message>" and return 2 (usage error). */
int cli_usage(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Print "kvtest CMD: <message>" and return 1 (runtime failure). */
int cli_fail(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Print "kvtest CMD: warning: <message>". */
void cli_warn(const char *cmd, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The full command line of this process, for JSON output ("kvtest run x"). */
void cli_set_cmdline(int argc, char **argv);
const char *cli_cmdline(void);

#endif
