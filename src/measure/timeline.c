/* timeline: per-interval counts and histograms (see timeline.h). */
#include "measure/timeline.h"

#include <stdlib.h>
#include <string.h>

#include "base/units.h"

int timeline_parse_interval(const char *s, uint64_t *ns)
{
    double v;
    if (units_parse_duration(s, &v) != 0 || v < 0.001 || v > 3600)
        return -1;
    *ns = (uint64_t)(v * 1e9 + 0.5);
    return 0;
}

void timeline_init(struct timeline *t, uint64_t t0, uint64_t step_ns)
{
    memset(t, 0, sizeof(*t));
    t->t0 = t0;
    t->step = step_ns ? step_ns : 1;
}

void timeline_free(struct timeline *t)
{
    for (int64_t i = 0; i < t->cap; i++)
        hist_free(t->s[i].h);
    free(t->s);
    memset(t, 0, sizeof(*t));
}

/* The slot of interval i, growing the array (doubling, so a run's growth
 * costs a few reallocs); NULL past TIMELINE_MAX or out of memory. */
static struct timeline_slot *slot(struct timeline *t, int64_t i)
{
    if (i >= TIMELINE_MAX)
        return NULL;
    if (i >= t->cap) {
        int64_t cap = t->cap ? t->cap : 16;
        while (cap <= i)
            cap *= 2;
        if (cap > TIMELINE_MAX)
            cap = TIMELINE_MAX;
        struct timeline_slot *s = realloc(t->s, (size_t)cap * sizeof(*s));
        if (!s)
            return NULL;
        memset(s + t->cap, 0, (size_t)(cap - t->cap) * sizeof(*s));
        t->s = s;
        t->cap = cap;
    }
    if (i >= t->n)
        t->n = i + 1;
    return &t->s[i];
}

void timeline_record(struct timeline *t, uint64_t t_done, uint64_t lat_ns, int failed)
{
    int64_t i = t_done > t->t0 ? (int64_t)((t_done - t->t0) / t->step) : 0;
    struct timeline_slot *s = slot(t, i);
    if (s && lat_ns != TIMELINE_NO_LATENCY && !s->h)
        s->h = hist_new();
    if (!s || (lat_ns != TIMELINE_NO_LATENCY && !s->h)) {
        t->dropped++;
        return;
    }
    s->n++;
    s->fail += failed ? 1 : 0;
    if (lat_ns != TIMELINE_NO_LATENCY)
        hist_record(s->h, lat_ns);
}

void timeline_merge(struct timeline *dst, const struct timeline *src)
{
    dst->dropped += src->dropped;
    for (int64_t i = 0; i < src->n; i++) {
        const struct timeline_slot *from = &src->s[i];
        if (from->n == 0)
            continue;
        struct timeline_slot *to = slot(dst, i);
        if (to && from->h && !to->h)
            to->h = hist_new();
        if (!to || (from->h && !to->h)) {
            dst->dropped += from->n;
            continue;
        }
        to->n += from->n;
        to->fail += from->fail;
        if (from->h)
            hist_merge(to->h, from->h);
    }
}

int timeline_write_csv(const struct timeline *t, FILE *f, double secs)
{
    int64_t rows = (int64_t)(secs * 1e9 / (double)t->step);
    if ((double)rows * (double)t->step < secs * 1e9)
        rows++;   /* the interval the run ended in, partial */
    if (rows > TIMELINE_MAX)
        rows = TIMELINE_MAX;
    if (rows < t->n)
        rows = t->n;
    fprintf(f, "t_s,requests,failures,p50_us,p99_us,max_us\n");
    for (int64_t i = 0; i < rows; i++) {
        const struct timeline_slot *s = i < t->n ? &t->s[i] : NULL;
        fprintf(f, "%.3f,%llu,%llu", (double)i * (double)t->step / 1e9,
                (unsigned long long)(s ? s->n : 0), (unsigned long long)(s ? s->fail : 0));
        if (s && s->h && s->h->count)
            fprintf(f, ",%.1f,%.1f,%.1f\n", (double)hist_percentile(s->h, 50) / 1e3,
                    (double)hist_percentile(s->h, 99) / 1e3, (double)s->h->max / 1e3);
        else
            fprintf(f, ",,,\n");
    }
    return fflush(f) != 0 || ferror(f) ? -1 : 0;
}
