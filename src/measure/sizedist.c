/* sizedist: size percentiles, power-of-two histogram, JSON in and out. */
#include "measure/sizedist.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

void sizedist_own(struct sizedist *d, int64_t *v, int64_t n)
{
    d->v = v;
    d->n = n;
    d->sum = 0;
    if (n > 1)
        qsort(v, (size_t)n, sizeof *v, cmp_i64);
    for (int64_t i = 0; i < n; i++)
        d->sum += (double)v[i];
}

void sizedist_free(struct sizedist *d)
{
    free(d->v);
    memset(d, 0, sizeof *d);
}

int64_t sizedist_pct(const struct sizedist *d, double p)
{
    if (d->n == 0)
        return 0;
    if (p <= 0)
        return d->v[0];
    double r = ceil(p / 100.0 * (double)d->n);
    int64_t i = (int64_t)r - 1;
    if (i < 0)
        i = 0;
    if (i >= d->n)
        i = d->n - 1;
    return d->v[i];
}

double sizedist_mean(const struct sizedist *d)
{
    return d->n ? d->sum / (double)d->n : 0.0;
}

int sizedist_bucket(int64_t size)
{
    if (size <= 0)
        return 0;
    return 64 - __builtin_clzll((unsigned long long)size);
}

void sizedist_buckets(const struct sizedist *d, int64_t *c)
{
    memset(c, 0, SIZEDIST_BUCKETS * sizeof *c);
    for (int64_t i = 0; i < d->n; i++)
        c[sizedist_bucket(d->v[i])]++;
}

/* Lower bound of bucket b in binary units: 0, 1, 2, ... 512, 1Ki, ... */
static void bucket_label(char *buf, size_t cap, int b)
{
    static const char *const unit[] = {"", "Ki", "Mi", "Gi", "Ti", "Pi", "Ei"};
    if (b == 0) {
        snprintf(buf, cap, "0");
        return;
    }
    int e = b - 1;
    snprintf(buf, cap, "%d%s", 1 << (e % 10), unit[e / 10]);
}

void sizedist_print(const struct sizedist *d, FILE *out)
{
    fprintf(out,
            "Size distribution:  count=%" PRId64 " min=%" PRId64 " p10=%" PRId64 " p50=%" PRId64
            " p90=%" PRId64 " p99=%" PRId64 " max=%" PRId64 " mean=%.0f\n",
            d->n, sizedist_pct(d, 0), sizedist_pct(d, 10), sizedist_pct(d, 50),
            sizedist_pct(d, 90), sizedist_pct(d, 99), sizedist_pct(d, 100), sizedist_mean(d));
    fprintf(out, "Size histogram:    ");
    if (d->n == 0) {
        fprintf(out, " (empty)\n");
        return;
    }
    int64_t c[SIZEDIST_BUCKETS];
    sizedist_buckets(d, c);
    int lo = sizedist_bucket(d->v[0]), hi = sizedist_bucket(d->v[d->n - 1]);
    for (int b = lo; b <= hi; b++) {
        char l[16];
        bucket_label(l, sizeof l, b);
        fprintf(out, " %s:%" PRId64, l, c[b]);
    }
    fprintf(out, "\n");
}

void sizedist_json(const struct sizedist *d, cJSON *parent)
{
    cJSON *s = cJSON_AddObjectToObject(parent, "size_distribution");
    static const struct {
        const char *k;
        double p;
    } pc[] = {{"min", 0}, {"p10", 10}, {"p50", 50}, {"p90", 90}, {"p99", 99}, {"max", 100}};
    cJSON_AddNumberToObject(s, "count", (double)d->n);
    for (size_t i = 0; i < sizeof pc / sizeof pc[0]; i++)
        cJSON_AddNumberToObject(s, pc[i].k, (double)sizedist_pct(d, pc[i].p));
    cJSON_AddNumberToObject(s, "mean", sizedist_mean(d));
    cJSON_AddNumberToObject(s, "bytes", d->sum);
    int64_t c[SIZEDIST_BUCKETS];
    sizedist_buckets(d, c);
    cJSON *b = cJSON_AddArrayToObject(s, "buckets");
    for (int i = 0; i < SIZEDIST_BUCKETS; i++) {
        if (!c[i])
            continue;
        cJSON *o = cJSON_CreateObject();
        cJSON_AddNumberToObject(o, "lo", i ? ldexp(1.0, i - 1) : 0.0);
        cJSON_AddNumberToObject(o, "hi", ldexp(1.0, i));
        cJSON_AddNumberToObject(o, "count", (double)c[i]);
        cJSON_AddItemToArray(b, o);
    }
    int exact = d->n <= SIZEDIST_JSON_MAX;
    int64_t m = exact ? d->n : SIZEDIST_JSON_MAX;
    cJSON *a = cJSON_AddArrayToObject(s, "sizes");
    for (int64_t i = 0; i < m; i++) {
        /* Midpoint quantiles: rank (2i+1)/2m of the sorted sizes. */
        int64_t j = exact ? i : (2 * i + 1) * d->n / (2 * m);
        cJSON_AddItemToArray(a, cJSON_CreateNumber((double)d->v[j]));
    }
    cJSON_AddBoolToObject(s, "sizes_exact", exact);
}

#ifndef KVTEST_CORE
/* The sizes array of one parsed line, or NULL. */
static const cJSON *line_sizes(const cJSON *j)
{
    const cJSON *r = cJSON_GetObjectItemCaseSensitive(j, "result");
    const cJSON *s = cJSON_GetObjectItemCaseSensitive(r, "size_distribution");
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(s, "sizes");
    return cJSON_IsArray(a) ? a : NULL;
}

static int take_sizes(const cJSON *a, const char *path, int64_t lineno, int64_t **v,
                      int64_t *n, char *err, size_t errcap)
{
    int64_t m = cJSON_GetArraySize(a), i = 0;
    *v = malloc((size_t)(m ? m : 1) * sizeof **v);
    if (!*v) {
        snprintf(err, errcap, "%s: out of memory", path);
        return -1;
    }
    const cJSON *e;
    cJSON_ArrayForEach(e, a) {
        double x = cJSON_IsNumber(e) ? e->valuedouble : -1;
        if (!(x >= 0 && x <= 1e15) || x != floor(x)) {
            snprintf(err, errcap, "%s:%" PRId64 ": size %" PRId64 " is not a whole number of bytes",
                     path, lineno, i + 1);
            free(*v);
            *v = NULL;
            return -1;
        }
        (*v)[i++] = (int64_t)x;
    }
    *n = i;
    return 0;
}

int sizedist_load_json(const char *path, int64_t **v, int64_t *n, char *err, size_t errcap)
{
    *v = NULL;
    *n = 0;
    FILE *f = fopen(path, "r");
    if (!f) {
        snprintf(err, errcap, "%s: %s", path, strerror(errno));
        return -1;
    }
    char *line = NULL;
    size_t cap = 0;
    int64_t lineno = 0;
    int rc = 1;   /* 1: not found yet */
    while (rc == 1 && getline(&line, &cap, f) >= 0) {
        lineno++;
        cJSON *j = cJSON_Parse(line);
        const cJSON *a = j ? line_sizes(j) : NULL;
        if (a)
            rc = take_sizes(a, path, lineno, v, n, err, errcap);
        cJSON_Delete(j);
    }
    int e = ferror(f) ? errno : 0;
    free(line);
    fclose(f);
    if (rc == 1 && e)
        snprintf(err, errcap, "%s: %s", path, strerror(e));
    else if (rc == 1)
        snprintf(err, errcap, "%s: no size distribution in it (expected the output of "
                 "\"kvtest stat DIR --json\")", path);
    return rc == 0 ? 0 : -1;
}
#else
/* The core build writes JSON but has no parser (no libcjson), so it takes
 * the sizes from a directory only. */
int sizedist_load_json(const char *path, int64_t **v, int64_t *n, char *err, size_t errcap)
{
    *v = NULL;
    *n = 0;
    snprintf(err, errcap, "%s: this core build cannot read JSON; use --sizes-from DIR, "
             "or the full build", path);
    return -1;
}
#endif
