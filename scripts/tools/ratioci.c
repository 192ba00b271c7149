/* build: src/measure/stats.c src/measure/keys/rng.c src/base/os.c -lm */
/*
 * ratioci: the 95% interval of a ratio (or a median) for the report scripts.
 *
 * The study runs the variants it compares interleaved in rounds; a finding
 * "A vs B" pairs A's and B's figure of the same round. This reads those
 * pairs and prints the median of the per-round ratios NUM/DEN with its
 * percentile-bootstrap 95% interval (stats_paired_ratio_ci: 10000
 * resamples, a fixed seed, so a report redrawn from the same raw data says
 * the same thing). A seeded bootstrap is no job for jq or awk: the scripts
 * call this instead.
 *
 * Build:  make build/ratioci   (make bench and make test build it)
 * Usage:  printf '9.2 4.4\n9.3 4.5\n' | build/ratioci
 *         printf '4.4\n4.5\n4.3\n' | build/ratioci --median
 *
 *   default    stdin: one line "NUM DEN" per paired round, both > 0
 *   --median   stdin: one value per line; the median and its 95% interval
 *              (order statistics, stats_median_ci)
 *
 * Output: one line "EST LO HI N COVERED" (COVERED 1 when the interval
 * reaches 95%: at least 4 pairs for a ratio, 6 values for a median).
 * Blank lines are skipped. Bad input or no input: one line on stderr,
 * exit 2; out of memory: exit 1.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "measure/stats.h"

#define RESAMPLES 10000
#define SEED 20260101u
#define MAXLINE 256

struct cols {
    double *a, *b;
    size_t n, cap;
};

static int usage(FILE *f, int rc)
{
    fputs("usage: ratioci [--median] < pairs\n"
          "  stdin: lines \"NUM DEN\" (paired rounds; with --median one value per line)\n"
          "  prints \"EST LO HI N COVERED\": median ratio (or median) and its 95% interval\n",
          f);
    return rc;
}

static int push(struct cols *c, double a, double b)
{
    if (c->n == c->cap) {
        size_t cap = c->cap ? c->cap * 2 : 64;
        double *na = realloc(c->a, cap * sizeof *na);
        if (!na)
            return -1;
        c->a = na;
        double *nb = realloc(c->b, cap * sizeof *nb);
        if (!nb)
            return -1;
        c->b = nb;
        c->cap = cap;
    }
    c->a[c->n] = a, c->b[c->n] = b;
    c->n++;
    return 0;
}

/* One field: a finite number (positive when pos). NULL when there is none. */
static const char *number(const char *s, int pos, double *out)
{
    char *end;
    while (*s == ' ' || *s == '\t')
        s++;
    errno = 0;
    *out = strtod(s, &end);
    if (end == s || errno == ERANGE || !isfinite(*out) || (pos && !(*out > 0)))
        return NULL;
    return end;
}

/* Parse one line into c: 0, or 2 after printing why. */
static int parse_line(struct cols *c, const char *line, long lineno, int median)
{
    const char *p = line;
    double a = 0, b = 1;
    if (!(p = number(p, !median, &a)) || (!median && !(p = number(p, 1, &b)))) {
        fprintf(stderr, "ratioci: line %ld: expected %s\n", lineno,
                median ? "one finite number" : "two positive numbers \"NUM DEN\"");
        return 2;
    }
    while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')
        p++;
    if (*p) {
        fprintf(stderr, "ratioci: line %ld: unexpected text after the %s\n", lineno,
                median ? "value" : "two numbers");
        return 2;
    }
    if (push(c, a, b)) {
        fputs("ratioci: out of memory\n", stderr);
        return 1;
    }
    return 0;
}

static int read_input(struct cols *c, int median)
{
    char line[MAXLINE];
    long lineno = 0;
    while (fgets(line, sizeof line, stdin)) {
        lineno++;
        if (!strchr(line, '\n') && !feof(stdin)) {
            fprintf(stderr, "ratioci: line %ld: longer than %d bytes\n", lineno, MAXLINE - 2);
            return 2;
        }
        if (strspn(line, " \t\r\n") == strlen(line))
            continue;
        int rc = parse_line(c, line, lineno, median);
        if (rc)
            return rc;
    }
    if (ferror(stdin)) {
        fprintf(stderr, "ratioci: reading stdin: %s\n", strerror(errno));
        return 1;
    }
    if (c->n == 0) {
        fprintf(stderr, "ratioci: no input: expected %s\n",
                median ? "one value per line" : "lines \"NUM DEN\"");
        return 2;
    }
    return 0;
}

int main(int argc, char **argv)
{
    int median = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--median"))
            median = 1;
        else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h"))
            return usage(stdout, 0);
        else {
            fprintf(stderr, "ratioci: unknown argument %s (try --help)\n", argv[i]);
            return 2;
        }
    }
    struct cols c = {0};
    int rc = read_input(&c, median);
    struct stats_ci ci;
    if (!rc) {
        int bad = median ? stats_median_ci(c.a, c.n, &ci)
                         : stats_paired_ratio_ci(c.a, c.b, c.n, RESAMPLES, SEED, &ci);
        if (bad) {
            fputs("ratioci: out of memory\n", stderr); /* the input was checked above */
            rc = 1;
        } else {
            printf("%.6g %.6g %.6g %zu %d\n", ci.est, ci.lo, ci.hi, c.n, ci.covered);
        }
    }
    free(c.a);
    free(c.b);
    return rc;
}
