/* compare_group: what was measured, kept apart from how it is read. A key
 * (label and defining options) names a measurement; a side holds one group
 * of samples per key, so the reader, the extraction and the table all
 * speak of the same groups (compare_int.h). */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands/compare/compare_int.h"

void compare_key_init(struct compare_key *k, const char *command)
{
    memset(k, 0, sizeof *k);
    snprintf(k->label, sizeof k->label, "%s", command);
}

void compare_key_word(struct compare_key *k, const char *fmt, ...)
{
    size_t len = strlen(k->label);
    if (len + 2 >= sizeof k->label)
        return;
    k->label[len++] = ' ';
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(k->label + len, sizeof k->label - len, fmt, ap);
    va_end(ap);
}

void compare_key_num(struct compare_key *k, const char *name, double v, double tol)
{
    if (k->ndefs >= COMPARE_MAX_DEFS)
        return;
    struct compare_def *d = &k->defs[k->ndefs++];
    d->name = name, d->is_str = 0, d->num = v, d->tol = tol;
}

void compare_key_str(struct compare_key *k, const char *name, const char *s)
{
    if (k->ndefs >= COMPARE_MAX_DEFS)
        return;
    struct compare_def *d = &k->defs[k->ndefs++];
    d->name = name, d->is_str = 1;
    snprintf(d->str, sizeof d->str, "%s", s ? s : "null");
}

static const struct compare_def *def_find(const struct compare_key *k, const char *name)
{
    for (int i = 0; i < k->ndefs; i++)
        if (strcmp(k->defs[i].name, name) == 0)
            return &k->defs[i];
    return NULL;
}

static int def_equal(const struct compare_def *a, const struct compare_def *b)
{
    if (a->is_str != b->is_str)
        return 0;
    if (a->is_str)
        return strcmp(a->str, b->str) == 0;
    if (a->num == b->num)
        return 1;
    double tol = a->tol > b->tol ? a->tol : b->tol;
    double scale = fabs(a->num) > fabs(b->num) ? fabs(a->num) : fabs(b->num);
    return fabs(a->num - b->num) <= tol * scale;
}

const char *compare_key_differs(const struct compare_key *a, const struct compare_key *b)
{
    for (int i = 0; i < a->ndefs; i++) {
        const struct compare_def *o = def_find(b, a->defs[i].name);
        if (!o || !def_equal(&a->defs[i], o))
            return a->defs[i].name;
    }
    for (int i = 0; i < b->ndefs; i++)
        if (!def_find(a, b->defs[i].name))
            return b->defs[i].name;
    return NULL;
}

void compare_def_text(const struct compare_key *k, const char *name, char *buf, size_t cap)
{
    const struct compare_def *d = def_find(k, name);
    if (!d)
        snprintf(buf, cap, "absent");
    else if (d->is_str)
        snprintf(buf, cap, "%s", d->str);
    else
        snprintf(buf, cap, "%.10g", d->num);
}

struct compare_group *compare_side_group(struct compare_side *s, const struct compare_key *k)
{
    for (size_t i = 0; i < s->ng; i++)
        if (strcmp(s->g[i].key.label, k->label) == 0 && !compare_key_differs(&s->g[i].key, k))
            return &s->g[i];
    if (s->ng == s->gcap) {
        size_t cap = s->gcap ? s->gcap * 2 : 32;
        struct compare_group *g = realloc(s->g, cap * sizeof *g);
        if (!g)
            return NULL;
        s->g = g, s->gcap = cap;
    }
    struct compare_group *g = &s->g[s->ng++];
    memset(g, 0, sizeof *g);
    g->key = *k;
    snprintf(g->where, sizeof g->where, "%s", s->where);
    return g;
}

int compare_group_add(struct compare_group *g, const char *metric, const char *unit,
                  int higher_better, double v)
{
    if (!isfinite(v) || v <= 0)
        return 0;
    struct compare_metric *m = NULL;
    for (size_t i = 0; i < g->nm && !m; i++)
        if (strcmp(g->m[i].name, metric) == 0)
            m = &g->m[i];
    if (!m) {
        if (g->nm == g->mcap) {
            size_t cap = g->mcap ? g->mcap * 2 : 4;
            struct compare_metric *n = realloc(g->m, cap * sizeof *n);
            if (!n)
                return -1;
            g->m = n, g->mcap = cap;
        }
        m = &g->m[g->nm++];
        memset(m, 0, sizeof *m);
        m->name = metric, m->unit = unit, m->higher_better = higher_better;
    }
    if (m->n == m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 8;
        double *n = realloc(m->v, cap * sizeof *n);
        if (!n)
            return -1;
        m->v = n, m->cap = cap;
    }
    m->v[m->n++] = v;
    return 0;
}

void compare_side_free(struct compare_side *s)
{
    for (size_t i = 0; i < s->ng; i++) {
        for (size_t j = 0; j < s->g[i].nm; j++)
            free(s->g[i].m[j].v);
        free(s->g[i].m);
    }
    free(s->g);
    s->g = NULL, s->ng = s->gcap = 0;
}
