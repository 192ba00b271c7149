/* cli: table-driven option parsing and the one-line error contract. */
#include "base/cli.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/errbuf.h"
#include "base/units.h"
#include "base/url_mask.h"

static void vmsg(const char *cmd, const char *prefix, const char *fmt, va_list ap)
{
    /* Built in one buffer and written with one call so concurrent writers
     * (threads) never interleave halves of a line. */
    char line[1024];
    int n = snprintf(line, sizeof(line), "kvtest%s%s: %s", cmd && *cmd ? " " : "",
                     cmd ? cmd : "", prefix);
    if (n < 0)
        n = 0;
    if ((size_t)n < sizeof(line))
        vsnprintf(line + n, sizeof(line) - (size_t)n, fmt, ap);
    /* One line, whatever the message held, and no password: a message
     * quoting a store or cache URL needs no care of its own. */
    for (char *p = line; *p; p++)
        if (*p == '\n' || *p == '\r')
            *p = ' ';
    char shown[sizeof line];
    url_mask(line, shown, sizeof shown);
    fprintf(stderr, "%s\n", shown);
}

int cli_usage(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmsg(cmd, "", fmt, ap);
    va_end(ap);
    return 2;
}

int cli_fail(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmsg(cmd, "", fmt, ap);
    va_end(ap);
    return 1;
}

int cli_status(const char *cmd, int rc, const char *err)
{
    if (rc == 0)
        return 0;
    if (rc == ERRBUF_MISUSE)
        return cli_usage(cmd, "%s", err);
    return cli_fail(cmd, "%s", err);
}

void cli_warn(const char *cmd, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vmsg(cmd, "warning: ", fmt, ap);
    va_end(ap);
}

static char cmdline[4096];

void cli_set_cmdline(int argc, char **argv)
{
    size_t n = 0;
    cmdline[0] = 0;
    for (int i = 0; i < argc && n + 1 < sizeof(cmdline); i++) {
        int w = snprintf(cmdline + n, sizeof(cmdline) - n, "%s%s", i ? " " : "",
                         i == 0 ? "kvtest" : argv[i]);
        if (w < 0)
            break;
        n += (size_t)w;
    }
    if (n >= sizeof(cmdline))
        cmdline[sizeof(cmdline) - 1] = 0;
    /* Results record it: a store or cache URL's password goes first. */
    char raw[sizeof cmdline];
    memcpy(raw, cmdline, sizeof raw);
    url_mask(raw, cmdline, sizeof cmdline);
}

const char *cli_cmdline(void)
{
    return cmdline;
}

static const struct cli_opt *find_opt(const struct cli_opt *opts, int nopts,
                                      const char *name, size_t len)
{
    for (int i = 0; i < nopts; i++)
        if (strlen(opts[i].name) == len && strncmp(opts[i].name, name, len) == 0)
            return &opts[i];
    return NULL;
}

/* "--NAME must be A or B, got 'X'", or "one of A, B, C; got 'X'" for
 * three or more: the lists this replaced were written that way. */
static int enum_misuse(const char *cmd, const struct cli_opt *o, const char *val)
{
    char list[512];
    size_t n = 0, count = 0;
    while (o->choices[count])
        count++;
    list[0] = 0;
    for (size_t i = 0; i < count && n < sizeof list; i++) {
        const char *sep = i == 0 ? "" : count == 2 ? " or " : ", ";
        int w = snprintf(list + n, sizeof list - n, "%s%s", sep, o->choices[i]);
        if (w < 0)
            break;
        n += (size_t)w;
    }
    if (count == 2)
        return cli_usage(cmd, "--%s must be %s, got '%s'", o->name, list, val);
    return cli_usage(cmd, "--%s must be one of %s; got '%s'", o->name, list, val);
}

/* Store val, the value of option o, in o->dest. 0, or 2 after printing
 * why val is not a value of o. */
static int set_value(const char *cmd, const struct cli_opt *o, const char *val)
{
    switch (o->type) {
    case CLI_INT: {
        int64_t v;
        if (units_parse_int(val, &v) != 0)
            return cli_usage(cmd, "invalid number for --%s: '%s' "
                             "(expected a whole number such as 1000, 10k or 4KiB)",
                             o->name, val);
        if (v < o->min || v > o->max)
            return cli_usage(cmd, "--%s must be between %lld and %lld, got %s",
                             o->name, (long long)o->min, (long long)o->max, val);
        *(int64_t *)o->dest = v;
        return 0;
    }
    case CLI_DOUBLE: {
        double v;
        if (units_parse_double(val, &v) != 0)
            return cli_usage(cmd, "invalid number for --%s: '%s'", o->name, val);
        if (v < o->dmin || v > o->dmax)
            return cli_usage(cmd, "--%s must be between %g and %g, got %s",
                             o->name, o->dmin, o->dmax, val);
        *(double *)o->dest = v;
        return 0;
    }
    case CLI_ENUM:
        for (int i = 0; o->choices[i]; i++)
            if ((o->anycase ? strcasecmp : strcmp)(val, o->choices[i]) == 0) {
                *(int *)o->dest = i;
                return 0;
            }
        return enum_misuse(cmd, o, val);
    case CLI_STR:
        *(const char **)o->dest = val;
        return 0;
    default:
        return 0;
    }
}

static int list_on, list_done;

void cli_list_set(int on)
{
    list_on = on;
    list_done = 0;
}

int cli_list_mode(void)
{
    return list_on;
}

int cli_list_done(void)
{
    return list_done;
}

void cli_list_word(const char *word, const char *kind)
{
    printf("%s %s\n", word, kind);
    list_done = 1;
}

/* The table as list mode prints it (see cli.h); 2, so the caller stops. */
static int list_table(const struct cli_opt *opts, int nopts)
{
    static const char *const types[] = {
        [CLI_FLAG] = "flag", [CLI_SET] = "flag", [CLI_INT] = "int",
        [CLI_DOUBLE] = "double", [CLI_STR] = "str", [CLI_ENUM] = "enum",
    };
    for (int i = 0; i < nopts; i++) {
        const struct cli_opt *o = &opts[i];
        if (o->hidden)
            continue;
        printf("--%s %s", o->name, o->type == CLI_STR && o->path ? "path" : types[o->type]);
        for (int c = 0; o->type == CLI_ENUM && o->choices[c]; c++)
            printf(" %s", o->choices[c]);
        putchar('\n');
    }
    fflush(stdout);
    list_done = 1;
    return 2;
}

int cli_parse(const char *cmd, int argc, char **argv,
              const struct cli_opt *opts, int nopts,
              const char **pos, int maxpos, int *npos)
{
    if (list_on) {
        *npos = 0;
        return list_table(opts, nopts);
    }
    /* Which CLI_SET option last wrote each destination, to catch
     * "--asc --desc" instead of silently letting the last one win. */
    const struct cli_opt *set_by[64] = {0};
    int nset = nopts < 64 ? nopts : 64;
    int only_pos = 0;
    *npos = 0;

    for (int i = 0; i < argc; i++) {
        const char *a = argv[i];
        if (only_pos || a[0] != '-' || a[1] == 0) {
            if (*npos >= maxpos)
                return cli_usage(cmd, "unexpected argument '%s'", a);
            pos[(*npos)++] = a;
            continue;
        }
        if (strcmp(a, "--") == 0) {
            only_pos = 1;
            continue;
        }
        const char *name = a + 1;
        if (*name == '-')
            name++;
        const char *eq = strchr(name, '=');
        size_t len = eq ? (size_t)(eq - name) : strlen(name);
        const struct cli_opt *o = find_opt(opts, nopts, name, len);
        if (!o)
            return cli_usage(cmd, "unknown option '%.*s'", (int)(len + (size_t)(name - a)), a);

        if (o->type == CLI_FLAG || o->type == CLI_SET) {
            if (eq)
                return cli_usage(cmd, "option --%s takes no value", o->name);
            if (o->type == CLI_FLAG) {
                *(int *)o->dest = 1;
                continue;
            }
            for (int j = 0; j < nset; j++) {
                const struct cli_opt *prev = set_by[j];
                if (prev && prev->dest == o->dest && prev != o)
                    return cli_usage(cmd, "options --%s and --%s conflict", prev->name, o->name);
            }
            *(int *)o->dest = (int)o->min;
            set_by[o - opts < 64 ? o - opts : 63] = o;
            continue;
        }

        const char *val;
        if (eq) {
            val = eq + 1;
        } else {
            if (i + 1 >= argc)
                return cli_usage(cmd, "option --%s needs a value", o->name);
            val = argv[++i];
        }
        int rc = set_value(cmd, o, val);
        if (rc != 0)
            return rc;
    }
    return 0;
}

int cli_parse_one(const char *cmd, int argc, char **argv,
                  const struct cli_opt *opts, int nopts,
                  const char **arg, const char *missing)
{
    int npos = 0;
    int rc = cli_parse(cmd, argc, argv, opts, nopts, arg, 1, &npos);
    if (rc != 0)
        return rc;
    if (npos != 1)
        return cli_usage(cmd, "%s", missing);
    return 0;
}
