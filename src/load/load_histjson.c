/* load_histjson: a histogram to and from load's --json (see
 * load_histjson.h). */
#include "load/load_histjson.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* v as a JSON number that reads back as v exactly. cJSON prints 15 digits
 * whenever they read back within its epsilon, so a sum (or a count, a
 * min, a max) of 16 or 17 digits came back as another number (a fuzzed
 * sum of 7.8e66 did): the shortest of 15, 16 and 17 digits that strtod
 * reads back exactly, as a raw number. */
static cJSON *exact_number(double v)
{
    char buf[32];
    for (int digits = 15; digits <= 17; digits++) {
        snprintf(buf, sizeof buf, "%.*g", digits, v);
        if (strtod(buf, NULL) == v)
            break;
    }
    return cJSON_CreateRaw(buf);
}

cJSON *load_histjson_new(const struct hist *h)
{
    cJSON *o = cJSON_CreateObject(), *b = cJSON_CreateArray();
    if (!o || !b) {
        cJSON_Delete(o);
        cJSON_Delete(b);
        return NULL;
    }
    cJSON_AddStringToObject(o, "unit", "ns");
    cJSON_AddNumberToObject(o, "sub_bits", HIST_SUB_BITS);
    cJSON_AddNumberToObject(o, "nbuckets", HIST_BUCKETS);
    cJSON_AddItemToObject(o, "count", exact_number((double)h->count));
    cJSON_AddItemToObject(o, "min", exact_number(h->count ? (double)h->min : 0.0));
    cJSON_AddItemToObject(o, "max", exact_number((double)h->max));
    cJSON_AddItemToObject(o, "sum", exact_number(h->sum));
    for (unsigned i = 0; i < HIST_BUCKETS; i++) {
        if (!h->b[i])
            continue;
        cJSON_AddItemToArray(b, cJSON_CreateNumber(i));
        cJSON_AddItemToArray(b, exact_number((double)h->b[i]));
    }
    cJSON_AddItemToObject(o, "buckets", b);
    return o;
}

/* v's number: a cJSON number, or one of exact_number's raw numbers (a
 * histogram passed on in memory, not printed; parsed text never holds
 * one). 0, or -1 when v is neither. */
static int number_of(const cJSON *v, double *d)
{
    if (cJSON_IsNumber(v)) {
        *d = v->valuedouble;
        return 0;
    }
    char *end;
    if (!cJSON_IsRaw(v) || !v->valuestring || !*v->valuestring)
        return -1;
    *d = strtod(v->valuestring, &end);
    return *end == '\0' ? 0 : -1;
}

/* A whole number in [0, 2^53] (what a double holds exactly); -1 if not. */
static double whole(const cJSON *j, const char *name)
{
    const cJSON *v = name ? cJSON_GetObjectItemCaseSensitive(j, name) : j;
    double d;
    if (number_of(v, &d) != 0)
        return -1;
    return d >= 0 && d <= 9007199254740992.0 && d == (double)(uint64_t)d ? d : -1;
}

/* Read j into h (reset first). 0, or -1 with why set. */
static int read_hist(struct hist *h, const cJSON *j, char *why, size_t cap)
{
    const cJSON *unit = cJSON_GetObjectItemCaseSensitive(j, "unit");
    const cJSON *b = cJSON_GetObjectItemCaseSensitive(j, "buckets");
    double sum;
    double count = whole(j, "count"), mn = whole(j, "min"), mx = whole(j, "max");
    if (!cJSON_IsString(unit) || !cJSON_IsArray(b) ||
        number_of(cJSON_GetObjectItemCaseSensitive(j, "sum"), &sum) != 0 || count < 0 ||
        mn < 0 || mx < 0)
        return snprintf(why, cap, "histogram lacks unit, count, min, max, sum or buckets"), -1;
    /* 1e500 reads as infinity, which prints as null: a merge could not be
     * read back */
    if (!isfinite(sum) || sum < 0)
        return snprintf(why, cap, "histogram sum is not a finite number of at least 0"), -1;
    if (strcmp(unit->valuestring, "ns") != 0 || whole(j, "sub_bits") != HIST_SUB_BITS ||
        whole(j, "nbuckets") != HIST_BUCKETS)
        return snprintf(why, cap, "histogram layout differs from this kvtest's (unit ns, "
                        "sub_bits %d, nbuckets %d)", HIST_SUB_BITS, HIST_BUCKETS), -1;
    hist_reset(h);
    int n = cJSON_GetArraySize(b);
    if (n % 2)
        return snprintf(why, cap, "histogram buckets are not index/count pairs"), -1;
    uint64_t total = 0;
    const cJSON *e = b->child;
    for (int k = 0; k < n; k += 2, e = e->next->next) {
        double i = whole(e, NULL), c = whole(e->next, NULL);
        if (i < 0 || i >= HIST_BUCKETS || c < 0)
            return snprintf(why, cap, "histogram bucket pair %d is not an index below %d "
                            "and a count", k / 2, HIST_BUCKETS), -1;
        /* the count is at most 2^53: a total past it could wrap round to
         * any count at all */
        if ((uint64_t)c > (UINT64_C(1) << 53) - total)
            return snprintf(why, cap, "histogram buckets hold more than 2^53 samples"), -1;
        h->b[(unsigned)i] += (uint64_t)c;
        total += (uint64_t)c;
    }
    if (total != (uint64_t)count)
        return snprintf(why, cap, "histogram buckets hold %llu samples, its count says %.0f",
                        (unsigned long long)total, count), -1;
    h->count = total;
    h->sum = sum;
    if (total) {
        h->min = (uint64_t)mn;
        h->max = (uint64_t)mx;
    }
    return 0;
}

int load_histjson_add(struct hist *dst, const cJSON *j, char *why, size_t cap)
{
    struct hist *h = hist_new();
    if (!h)
        return snprintf(why, cap, "out of memory"), -1;
    int rc = read_hist(h, j, why, cap);
    if (rc == 0)
        hist_merge(dst, h);
    hist_free(h);
    return rc;
}
