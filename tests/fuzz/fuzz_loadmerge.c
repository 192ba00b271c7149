/* build: src/load/ src/base/ src/measure/hist.c src/measure/report.c src/measure/env.c src/measure/provenance.c src/measure/timeline.c build/sqlite3.o -lcjson -lhttp_parser -lnghttp2 -lssl -lcrypto -lpthread -lm */
/* libFuzzer target: the reader of `kvtest shortener load-merge` inputs —
 * one load --json result parsed and added (load_merge_add, then
 * load_merge_finish; load/load_merge.h), not the command line around it.
 *
 * Input: up to four results separated by NUL bytes (JSON text holds none),
 * added in order, stopping at the first refused as the command does.
 *
 * Invariants checked:
 *  - each add answers 0 or -1, -1 with a terminated reason (its one line
 *    is not checked: it may quote the input's strings, which hold any
 *    character once JSON-decoded; cli's messages flatten every line);
 *  - after finish answers 0: the shared interval is not empty and is the
 *    totals' seconds; nruns runs were added; the "all" histogram holds
 *    every kind's samples and its buckets add up to its count (exactly,
 *    not modulo 2^64); requests = answered + failed per kind and in all;
 *    the rates are not negative;
 *  - a run merged with itself is accepted (same URL, scenario, latency
 *    measure, kinds and layout) and holds twice its samples;
 *  - two runs merge the same in either order: both accepted or both
 *    refused, and then the same totals, histograms, interval and rates.
 *
 * Its build line links all of load/: load_report.c and load_engine.c,
 * which load_merge calls, take the rest of it along.
 *
 * Build and run: make fuzz [FUZZ_TIME=30] */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "load/load_merge.h"

#define FUZZ_NAME "fuzz_loadmerge"
#include "tests/fuzz/fuzz_check.h"

#define MAX_RUNS 4

struct part {
    const char *p;
    size_t n;
};

/* Add parts[0..n) in order (stop at the first refused), then finish.
 * Returns how many were added; *fin is finish's answer (-2: not called). */
static int merge(struct load_merge *m, const struct part *parts, int n, int *fin)
{
    char why[512];
    load_merge_init(m);
    *fin = -2;
    int added = 0;
    for (; added < n; added++) {
        /* Exactly n bytes on the heap: a read past the text is caught. */
        char *t = malloc(parts[added].n ? parts[added].n : 1);
        if (!t)
            abort();
        memcpy(t, parts[added].p, parts[added].n);
        int rc = load_merge_add(m, t, parts[added].n, why, sizeof why);
        free(t);
        CHECK(rc == 0 || rc == -1, "load_merge_add returned neither 0 nor -1");
        if (rc != 0) {
            CHECK(memchr(why, '\0', sizeof why) && why[0], "a run refused without a reason");
            return added;
        }
    }
    *fin = load_merge_finish(m, why, sizeof why);
    CHECK(*fin == 0 || *fin == -1, "load_merge_finish returned neither 0 nor -1");
    CHECK(*fin == 0 || (memchr(why, '\0', sizeof why) && why[0]), "finish refused without a reason");
    return added;
}

static unsigned __int128 bucket_sum(const struct hist *h)
{
    unsigned __int128 t = 0;
    for (unsigned i = 0; i < HIST_BUCKETS; i++)
        t += h->b[i];
    return t;
}

static void check_totals(const struct load_merge *m, int nruns)
{
    const struct load_totals *t = &m->t;
    CHECK(m->nruns == nruns, "nruns is not the runs added");
    CHECK(m->to > m->from && t->secs == m->to - m->from, "the shared interval");
    CHECK(t->c.nkinds >= 1 && t->c.nkinds <= LOAD_KINDS_MAX && t->c.nkinds == m->sc.nkinds,
          "kinds outside 1..LOAD_KINDS_MAX");
    uint64_t count = 0, nreq = 0, nfail = 0;
    for (int k = 0; k < t->c.nkinds; k++) {
        const struct hist *h = t->c.h[k];
        CHECK(bucket_sum(h) == h->count, "a kind's buckets do not add up to its count");
        count += h->count;
        uint64_t f = 0;
        for (int i = 1; i < LOAD_NFAIL; i++)
            f += t->c.fail[k][i];
        CHECK(t->failed_req[k] == f && t->requests[k] == t->c.ok[k] + f, "a kind's requests");
        nreq += t->requests[k];
        nfail += f;
        CHECK(m->rates.kind[k] >= 0, "a negative rate");
    }
    CHECK(t->all->count == count && bucket_sum(t->all) == count, "\"all\" is not every kind's samples");
    CHECK(t->nreq == nreq && t->nfail == nfail, "the requests in all");
    CHECK(m->rates.all >= 0 && m->rates.tasks >= 0 && m->rate >= 0, "a negative rate");
}

/* What two merges of the same runs must agree on. */
static int same_totals(const struct load_merge *a, const struct load_merge *b)
{
    if (a->t.c.nkinds != b->t.c.nkinds || a->from != b->from || a->to != b->to ||
        a->t.c.tasks_ok != b->t.c.tasks_ok || a->t.c.tasks_failed != b->t.c.tasks_failed ||
        memcmp(a->t.c.ok, b->t.c.ok, sizeof a->t.c.ok) != 0 ||
        memcmp(a->t.c.fail, b->t.c.fail, sizeof a->t.c.fail) != 0 ||
        memcmp(&a->rates, &b->rates, sizeof a->rates) != 0 || a->rate != b->rate ||
        a->connections != b->connections || a->workers != b->workers || a->tasks != b->tasks ||
        memcmp(a->t.all, b->t.all, sizeof *a->t.all) != 0)
        return 0;
    for (int k = 0; k < a->t.c.nkinds; k++)
        if (memcmp(a->t.c.h[k], b->t.c.h[k], sizeof *a->t.c.h[k]) != 0)
            return 0;
    return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct part parts[MAX_RUNS];
    int n = 0;
    const char *p = (const char *)data, *end = p + size;
    while (n < MAX_RUNS) {
        const char *z = memchr(p, '\0', (size_t)(end - p));
        parts[n].p = p;
        parts[n].n = (size_t)((z ? z : end) - p);
        n++;
        if (!z)
            break;
        p = z + 1;
    }
    struct load_merge m;
    int fin;
    int added = merge(&m, parts, n, &fin);
    if (fin == 0)
        check_totals(&m, added);
    load_merge_free(&m);

    /* The first run with itself. */
    struct load_merge one, twice;
    int fin1, fin2;
    struct part self[2] = {parts[0], parts[0]};
    if (merge(&one, self, 1, &fin1) == 1) {
        int got = merge(&twice, self, 2, &fin2);
        CHECK(got == 2, "a run is refused when merged with itself");
        CHECK(fin2 == fin1, "a run with itself finishes otherwise than alone");
        if (fin1 == 0) {
            check_totals(&twice, 2);
            CHECK(twice.t.all->count == 2 * one.t.all->count, "a run with itself does not hold twice its samples");
        }
        load_merge_free(&twice);
    }
    load_merge_free(&one);

    /* The first two runs in both orders. */
    if (n >= 2) {
        struct load_merge ab, ba;
        int fab, fba;
        struct part rev[2] = {parts[1], parts[0]};
        int nab = merge(&ab, parts, 2, &fab), nba = merge(&ba, rev, 2, &fba);
        CHECK((nab == 2) == (nba == 2), "two runs merge in one order and not in the other");
        CHECK(fab == fba, "two runs finish otherwise in the other order");
        if (fab == 0)
            CHECK(same_totals(&ab, &ba), "two runs merge to other totals in the other order");
        load_merge_free(&ab);
        load_merge_free(&ba);
    }
    return 0;
}
