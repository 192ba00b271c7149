/* history_csv: a series as CSV, parsed by libcsv (quoting, embedded
 * commas): a header naming commit, time, metric and value, and unit and
 * measurement if it has them, in any order; other columns are ignored (a
 * commit's subject, say). One row per sample, in commit order. */
#include <csv.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/cli.h"
#include "commands/history/history_int.h"

#define FIELD_MAX 256
#define MAX_FIELDS 32

enum col { COL_COMMIT, COL_TIME, COL_METRIC, COL_VALUE, COL_UNIT, COL_MEASUREMENT, NCOLS };
static const char *const col_name[NCOLS] = {"commit", "time", "metric", "value", "unit",
                                            "measurement"};

struct csv_ctx {
    struct history *h;
    const char *path;
    long row;                       /* 1 is the header */
    char field[MAX_FIELDS][FIELD_MAX];
    int nfield;
    int too_long;                   /* a field read of this row was longer than FIELD_MAX */
    int col[NCOLS];                 /* each column's position, -1 when absent */
    int used[MAX_FIELDS];           /* the positions read after the header */
    int rc;                         /* the first failure: the rest is not read */
};

/* A field: the header's all (up to MAX_FIELDS), a row's only those in the
 * columns read; the others (a commit's subject, anything) are skipped
 * whatever their length. */
static void on_field(void *s, size_t len, void *data)
{
    struct csv_ctx *x = data;
    int i = x->nfield++;
    if (x->rc || i >= MAX_FIELDS || (x->row > 0 && !x->used[i]))
        return;
    if (len >= FIELD_MAX)
        x->too_long = 1;
    size_t n = len < FIELD_MAX ? len : FIELD_MAX - 1;
    memcpy(x->field[i], s ? s : "", n);
    x->field[i][n] = '\0';
}

static int header(struct csv_ctx *x)
{
    for (int c = 0; c < NCOLS; c++)
        x->col[c] = -1;
    for (int i = 0; i < x->nfield && i < MAX_FIELDS; i++)
        for (int c = 0; c < NCOLS; c++)
            if (strcmp(x->field[i], col_name[c]) == 0 && x->col[c] < 0)
                x->col[c] = i;
    for (int c = 0; c < NCOLS; c++)
        if (x->col[c] >= 0)
            x->used[x->col[c]] = 1;
    for (int c = 0; c <= COL_VALUE; c++)
        if (x->col[c] < 0)
            return cli_usage("history", "%s:1: no column '%s' (a CSV series starts with a header "
                             "naming commit, time, metric, value, and unit if it has one)",
                             x->path, col_name[c]);
    return 0;
}

static const char *get(const struct csv_ctx *x, enum col c)
{
    return x->col[c] >= 0 && x->col[c] < x->nfield && x->col[c] < MAX_FIELDS ? x->field[x->col[c]]
                                                                            : "";
}

static int row(struct csv_ctx *x)
{
    char where[COMPARE_WHERE_MAX];
    snprintf(where, sizeof where, "%s:%ld", x->path, x->row);
    if (x->too_long)
        return cli_usage("history", "%s: a commit, time, metric, value, unit or measurement "
                         "longer than %d bytes", where, FIELD_MAX - 1);
    const char *commit = get(x, COL_COMMIT), *metric = get(x, COL_METRIC), *val = get(x, COL_VALUE);
    if (!*commit || !*metric)
        return cli_usage("history", "%s: no %s", where, *commit ? "metric" : "commit");
    if (strlen(commit) >= HISTORY_ID_MAX || strlen(metric) >= HISTORY_METRIC_MAX ||
        strlen(get(x, COL_UNIT)) >= HISTORY_UNIT_MAX)
        return cli_usage("history", "%s: a commit, metric or unit too long", where);
    char *end;
    errno = 0;
    double v = strtod(val, &end);
    if (end == val || *end || errno == ERANGE || !isfinite(v) || v <= 0)
        return cli_usage("history", "%s: value '%s' of %s is not a positive number", where, val,
                         metric);
    int rc = history_commit(x->h, commit, get(x, COL_TIME), where);
    if (rc)
        return rc;
    const char *unit = get(x, COL_UNIT), *label = get(x, COL_MEASUREMENT);
    struct compare_key key;
    compare_key_init(&key, *label ? label : metric);
    size_t ul = strlen(unit);
    int rate = ul > 2 && strcmp(unit + ul - 2, "/s") == 0;
    return history_sample(x->h, &key, metric, unit, rate, v, where);
}

static void on_row(int term, void *data)
{
    (void)term;
    struct csv_ctx *x = data;
    if (x->rc)
        return;
    x->row++;
    int rc = x->row == 1 ? header(x) : row(x);
    x->rc = rc < 0 ? cli_fail("history", "out of memory") : rc;
    x->nfield = 0, x->too_long = 0;
}

int history_read_csv(struct history *h, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return errno == ENOMEM ? cli_fail("history", "%s: %s", path, strerror(errno))
                               : cli_usage("history", "%s: %s", path, strerror(errno));
    struct csv_parser p;
    if (csv_init(&p, CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL) != 0) {
        fclose(f);
        return cli_fail("history", "out of memory");
    }
    struct csv_ctx *x = calloc(1, sizeof *x);
    if (!x) {
        csv_free(&p);
        fclose(f);
        return cli_fail("history", "out of memory");
    }
    x->h = h, x->path = path;
    char buf[65536];
    size_t n;
    while (!x->rc && (n = fread(buf, 1, sizeof buf, f)) > 0)
        if (csv_parse(&p, buf, n, on_field, on_row, x) != n)
            break;
    int rc = x->rc;
    if (!rc && ferror(f))
        rc = cli_usage("history", "%s: %s", path, strerror(errno ? errno : EIO));
    if (!rc && csv_error(&p) == CSV_SUCCESS) {
        /* the last row without a line end; its failure is csv_error's */
        csv_fini(&p, on_field, on_row, x);
        rc = x->rc;
    }
    if (!rc && csv_error(&p) != CSV_SUCCESS)
        rc = csv_error(&p) == CSV_ENOMEM
                 ? cli_fail("history", "out of memory")
                 : cli_usage("history", "%s:%ld: not CSV (%s)", path, x->row + 1,
                             csv_strerror(csv_error(&p)));
    if (!rc && x->row == 0)
        rc = cli_usage("history", "%s: empty (a CSV series has a header and a row per sample)",
                       path);
    csv_free(&p);
    free(x);
    fclose(f);
    return rc;
}
