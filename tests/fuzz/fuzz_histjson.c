/* build: src/load/load_histjson.c src/measure/hist.c -lcjson */
/* libFuzzer target: the latency histogram of load's --json, read back
 * (load_histjson_add, load/load_histjson.h), as load-merge reads every
 * run's histograms.
 *
 * Input: JSON text (what is not JSON is dropped: cJSON's own parser is not
 * the subject). It is added into an empty histogram and into one that
 * already holds samples.
 *
 * Invariants checked:
 *  - the answer is 0 or -1; on -1 the histogram added into is unchanged
 *    and why holds a reason, terminated within any cap;
 *  - on 0 the histogram added into gained exactly "count" samples, its
 *    buckets add up to its count (in exact arithmetic, not modulo 2^64),
 *    its sum gained "sum", and its min and max take in the new ones
 *    (when there were samples);
 *  - an accepted histogram written again (load_histjson_new, printed as
 *    load --json prints it) reads back to exactly the same struct (every bucket, count, min, max and sum);
 *  - the same text gives the same histogram twice.
 *
 * Build and run: make fuzz [FUZZ_TIME=30] */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "load/load_histjson.h"

#define FUZZ_NAME "fuzz_histjson"
#include "tests/fuzz/fuzz_check.h"

static struct hist *empty, *busy, *busy0, *h1, *h2, *back;

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    empty = hist_new();
    busy0 = hist_new();
    busy = hist_new();
    h1 = hist_new();
    h2 = hist_new();
    back = hist_new();
    if (!empty || !busy0 || !busy || !h1 || !h2 || !back)
        abort();
    static const uint64_t ns[] = {1, 127, 128, 1000, 123456, 5000000000ULL, UINT64_MAX / 3};
    for (size_t i = 0; i < sizeof ns / sizeof ns[0]; i++)
        hist_record(busy0, ns[i]);
    return 0;
}

static unsigned __int128 bucket_sum(const struct hist *h)
{
    unsigned __int128 t = 0;
    for (unsigned i = 0; i < HIST_BUCKETS; i++)
        t += h->b[i];
    return t;
}

/* Add j into h (a copy of from); the answer, checked as failures are. */
static int add(struct hist *h, const struct hist *from, const cJSON *j)
{
    char why[256];
    memcpy(h, from, sizeof *h);
    int rc = load_histjson_add(h, j, why, sizeof why);
    CHECK(rc == 0 || rc == -1, "load_histjson_add returned neither 0 nor -1");
    if (rc != 0) {
        CHECK(memcmp(h, from, sizeof *h) == 0, "a refused histogram changed what it was added into");
        CHECK(memchr(why, '\0', sizeof why) && why[0], "refused without a reason");
        char small[8];
        CHECK(load_histjson_add(h, j, small, sizeof small) == -1 && memchr(small, '\0', sizeof small),
              "a small reason buffer overran");
    }
    return rc;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    cJSON *j = cJSON_ParseWithLength((const char *)data, size);
    if (!j)
        return 0;
    int rc = add(h1, empty, j);
    CHECK(add(h2, empty, j) == rc && memcmp(h1, h2, sizeof *h1) == 0, "load_histjson_add not deterministic");
    CHECK(add(busy, busy0, j) == rc, "the answer depends on what is added into");
    if (rc == 0) {
        const cJSON *c = cJSON_GetObjectItemCaseSensitive(j, "count");
        uint64_t n = (uint64_t)c->valuedouble;
        CHECK(h1->count == n && bucket_sum(h1) == n, "buckets do not add up to count");
        CHECK(busy->count == busy0->count + n && bucket_sum(busy) == busy->count,
              "adding did not add count samples");
        CHECK(busy->sum == busy0->sum + h1->sum, "adding did not add the sum");
        if (n) {
            CHECK(busy->min == (h1->min < busy0->min ? h1->min : busy0->min) &&
                      busy->max == (h1->max > busy0->max ? h1->max : busy0->max),
                  "min and max not merged");
        } else {
            CHECK(memcmp(busy, busy0, sizeof *busy) == 0, "an empty histogram changed what it was added into");
        }
        /* Written again as load --json prints it (text) and read back:
         * the same histogram. */
        cJSON *obj = load_histjson_new(h1);
        char *text = obj ? cJSON_PrintUnformatted(obj) : NULL;
        cJSON *again = text ? cJSON_Parse(text) : NULL;
        CHECK(again != NULL, "load_histjson_new or its text failed");
        char why[256];
        hist_reset(back);
        int rc2 = load_histjson_add(back, again, why, sizeof why);
        if (rc2 != 0)
            fprintf(stderr, "fuzz_histjson: written again as %s, refused: %s\n", text, why);
        CHECK(rc2 == 0 && memcmp(back, h1, sizeof *back) == 0,
              "an accepted histogram, written again, does not read back the same");
        cJSON_Delete(again);
        cJSON_free(text);
        cJSON_Delete(obj);
    }
    cJSON_Delete(j);
    return 0;
}
