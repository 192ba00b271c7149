/* build: src/commands/history/history_series.c src/commands/history/history_csv.c src/commands/history/history_find.c src/commands/history/history_state.c src/commands/compare/compare_read.c src/commands/compare/compare_extract.c src/commands/compare/compare_group.c src/commands/compare/compare_json.c src/measure/stats.c src/measure/change_find.c src/measure/keys/rng.c src/base/ -lcjson -lcsv -lpthread -lm */
/* libFuzzer target: kvtest history's CSV series (history_read_csv, over
 * libcsv) and the search over what it read (history_find, over
 * measure/change_find).
 *
 * Input: the content of a CSV file, written to s.csv in a private tmpfs
 * directory (fuzz_tmp.h) and read as a series, then analysed with a
 * segment of 2 points (the smallest, so that short inputs reach the
 * search).
 *
 * Invariants checked:
 *  - reading answers 0, or 2 (misuse) or 1 (out of memory) after one line
 *    on stderr (sent to /dev/null here); so does the search;
 *  - on 0, every commit has a terminated, non-empty id, and no id is
 *    there twice; every series a terminated label, metric and unit, and
 *    one value per commit at most, each NaN (no point) or finite and > 0;
 *  - after the search, every series not skipped has its points in commit
 *    order, its change points strictly inside (1..points-1), ascending, at
 *    least min_segment apart and from either end, with p < 0.001, and
 *    before/after counts that add up to the segments around them.
 *
 * Its build line links history_state.c too, though the state file's
 * reader is not reached (no --state): history_find's file calls it.
 *
 * Build and run: make fuzz [FUZZ_TIME=30] */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands/history/history_int.h"
#include "tests/fuzz/fuzz_tmp.h"

#define FUZZ_NAME "fuzz_history"
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

static int terminated(const char *s, size_t cap)
{
    return memchr(s, '\0', cap) != NULL;
}

static void check_read(const struct history *h)
{
    for (size_t i = 0; i < h->nc; i++) {
        CHECK(terminated(h->c[i].id, sizeof h->c[i].id) && h->c[i].id[0], "a commit without an id");
        for (size_t j = 0; j < i; j++)
            CHECK(strcmp(h->c[i].id, h->c[j].id) != 0, "a commit twice");
    }
    for (size_t k = 0; k < h->ns; k++) {
        const struct history_series *s = &h->s[k];
        CHECK(terminated(s->label, sizeof s->label) && terminated(s->metric, sizeof s->metric) &&
                  terminated(s->unit, sizeof s->unit),
              "a series name unterminated");
        size_t lim = s->vcap < h->nc ? s->vcap : h->nc;
        for (size_t i = 0; i < lim; i++)
            CHECK(isnan(s->v[i]) || (isfinite(s->v[i]) && s->v[i] > 0), "a value not > 0");
    }
}

static void check_found(const struct history *h)
{
    size_t m = h->opts.min_seg;
    for (size_t k = 0; k < h->ns; k++) {
        const struct history_series *s = &h->s[k];
        for (size_t i = 1; i < s->npt; i++)
            CHECK(s->pc[i] > s->pc[i - 1], "points out of commit order");
        if (s->skipped) {
            CHECK(s->npt < 2 * m && s->nch == 0, "skipped with enough points, or with changes");
            continue;
        }
        size_t prev = 0;
        for (size_t i = 0; i < s->nch; i++) {
            const struct history_change *c = &s->ch[i];
            size_t next = i + 1 < s->nch ? s->ch[i + 1].at : s->npt;
            CHECK(c->at >= prev + m && c->at + m <= next, "a segment shorter than --min-segment");
            CHECK(c->p < h->opts.alpha, "a change not significant");
            CHECK(c->nbefore == c->at - prev && c->nafter == next - c->at, "counts off");
            prev = c->at;
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_tmp_write("s.csv", data, size);
    struct history h;
    memset(&h, 0, sizeof h);
    h.opts = (struct change_opts){.alpha = 0.001, .min_seg = 2, .test = CHANGE_TEST_MW};
    /* the one line of a refusal goes to /dev/null, an invariant's to stderr */
    FILE *err = stderr;
    stderr = devnull;
    int rc = history_read_csv(&h, path);
    if (rc == 0)
        rc = history_close(&h) < 0 ? 1 : 0;
    stderr = err;
    CHECK(rc == 0 || rc == 1 || rc == 2, "reading answered neither 0, 1 nor 2");
    if (rc == 0) {
        check_read(&h);
        stderr = devnull;
        rc = history_find(&h);
        stderr = err;
        CHECK(rc == 0 || rc == 1, "the search answered neither 0 nor 1");
        if (rc == 0)
            check_found(&h);
    }
    history_free(&h);
    return 0;
}
