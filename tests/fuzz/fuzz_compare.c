/* build: src/commands/compare/compare_read.c src/commands/compare/compare_extract.c src/commands/compare/compare_group.c src/commands/compare/compare_json.c src/base/json_alloc.c src/base/cli.c src/base/url_mask.c src/base/units.c -lcjson -lm */
/* libFuzzer target: the reader of kvtest compare's inputs (one side: a
 * file of --json lines or a results directory, compare_side_read in
 * commands/compare/compare_int.h) and the per-command extraction of
 * samples it calls (compare_extract.c, compare_group.c).
 *
 * Input: the content of a file of JSON lines. It is written to side.jsonl
 * in a private tmpfs directory (fuzz_tmp.h) and read twice: as the FILE
 * and as a results DIR holding only that file (its *.jsonl).
 *
 * Invariants checked:
 *  - the answer is 0, or 2 (misuse) or 1 (out of memory) after one line
 *    on stderr (sent to /dev/null here);
 *  - reading the DIR gives exactly what reading the FILE gave: the
 *    answer, the counts and every group (label, definitions, where it
 *    came from, metrics and samples, in order) — the directory path
 *    globs its way to the same file;
 *  - on 0, every non-blank line (only spaces, tabs, CR, LF: blank) was
 *    counted once: measured, a warm-up or another's record;
 *  - every group: a terminated label of a known measurement, at most
 *    COMPARE_MAX_DEFS definitions with names and terminated strings, a
 *    terminated where; every metric named and holding 1..cap samples,
 *    each finite and above zero (compare_group_add's promise); and no two
 *    groups of a side have the same label and agreeing definitions (each
 *    would have pooled into the other).
 *
 * Build and run: make fuzz [FUZZ_TIME=30] */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands/compare/compare_int.h"
#include "tests/fuzz/fuzz_tmp.h"

#define FUZZ_NAME "fuzz_compare"
#include "tests/fuzz/fuzz_check.h"

static FILE *devnull;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    devnull = fopen("/dev/null", "w");
    if (!devnull)
        abort();
    fuzz_tmp_init();
    return 0;
}

/* compare_side_read with its message (misuse is printed on stderr) sent
 * to /dev/null: glibc's stderr is a variable. */
static int read_side(struct compare_side *s, const char *path)
{
    FILE *err = stderr;
    stderr = devnull;
    memset(s, 0, sizeof *s);
    int rc = compare_side_read(s, path);
    stderr = err;
    return rc;
}

static int terminated(const char *s, size_t cap)
{
    return memchr(s, '\0', cap) != NULL;
}

static void check_group(const struct compare_group *g)
{
    static const char *const first[] = {"run ", "bench ", "load ", "sweep ", "space "};
    const struct compare_key *k = &g->key;
    CHECK(terminated(k->label, sizeof k->label), "label unterminated");
    int known = 0;
    for (size_t i = 0; i < sizeof first / sizeof first[0]; i++)
        known |= strncmp(k->label, first[i], strlen(first[i])) == 0;
    CHECK(known, "label of no known measurement");
    CHECK(k->ndefs >= 0 && k->ndefs <= COMPARE_MAX_DEFS, "definitions outside 0..COMPARE_MAX_DEFS");
    for (int i = 0; i < k->ndefs; i++)
        CHECK(k->defs[i].name && terminated(k->defs[i].str, sizeof k->defs[i].str), "definition unnamed or unterminated");
    CHECK(terminated(g->where, sizeof g->where), "where unterminated");
    CHECK(g->nm <= g->mcap, "more metrics than room");
    for (size_t i = 0; i < g->nm; i++) {
        const struct compare_metric *m = &g->m[i];
        CHECK(m->name && m->unit, "metric without a name or unit");
        CHECK(m->n >= 1 && m->n <= m->cap, "metric sample count outside 1..cap");
        for (size_t j = 0; j < m->n; j++)
            CHECK(isfinite(m->v[j]) && m->v[j] > 0, "a sample that is not finite and above zero");
    }
}

static void check_side(const struct compare_side *s)
{
    for (size_t i = 0; i < s->ng; i++) {
        check_group(&s->g[i]);
        for (size_t j = 0; j < i; j++)
            CHECK(strcmp(s->g[i].key.label, s->g[j].key.label) != 0 ||
                      compare_key_differs(&s->g[i].key, &s->g[j].key) != NULL,
                  "two groups of one side that agree");
    }
}

static int same_key(const struct compare_key *a, const struct compare_key *b)
{
    if (strcmp(a->label, b->label) != 0 || a->ndefs != b->ndefs)
        return 0;
    for (int i = 0; i < a->ndefs; i++) {
        const struct compare_def *x = &a->defs[i], *y = &b->defs[i];
        if (strcmp(x->name, y->name) != 0 || x->is_str != y->is_str ||
            (x->is_str ? strcmp(x->str, y->str) != 0
                       : memcmp(&x->num, &y->num, sizeof x->num) != 0 || x->tol != y->tol))
            return 0;
    }
    return 1;
}

static int same_side(const struct compare_side *a, const struct compare_side *b)
{
    if (a->objects != b->objects || a->warmups != b->warmups || a->others != b->others ||
        a->ng != b->ng)
        return 0;
    for (size_t i = 0; i < a->ng; i++) {
        const struct compare_group *x = &a->g[i], *y = &b->g[i];
        if (!same_key(&x->key, &y->key) || strcmp(x->where, y->where) != 0 || x->nm != y->nm)
            return 0;
        for (size_t j = 0; j < x->nm; j++)
            if (strcmp(x->m[j].name, y->m[j].name) != 0 || x->m[j].n != y->m[j].n ||
                memcmp(x->m[j].v, y->m[j].v, x->m[j].n * sizeof(double)) != 0)
                return 0;
    }
    return 1;
}

/* Lines as getline gives them, and how many are not blank. */
static size_t nonblank_lines(const uint8_t *d, size_t n)
{
    size_t count = 0;
    int blank = 1;
    for (size_t i = 0; i < n; i++) {
        if (d[i] != ' ' && d[i] != '\t' && d[i] != '\r' && d[i] != '\n')
            blank = 0;
        if (d[i] == '\n' || i + 1 == n) {
            count += !blank;
            blank = 1;
        }
    }
    return count;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_tmp_write("side.jsonl", data, size);
    struct compare_side f, d;
    int rc = read_side(&f, path);
    int rcd = read_side(&d, fuzz_tmp_dir);
    CHECK(rc == 0 || rc == 1 || rc == 2, "compare_side_read returned neither 0, 1 nor 2");
    CHECK(rcd == rc && same_side(&f, &d), "the results directory reads otherwise than its file");
    if (rc == 0)
        CHECK(f.objects + f.warmups + f.others == nonblank_lines(data, size),
              "a line read without being counted");
    check_side(&f);
    compare_side_free(&f);
    compare_side_free(&d);
    return 0;
}
