/* history_series: commits and series as the inputs give them, and the
 * --json inputs read through compare's reader, which measures each object
 * as compare does (history_int.h). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/cli.h"
#include "base/json_alloc.h"
#include "commands/history/history_int.h"

/* src cut to fit cap (a commit name longer than HISTORY_ID_MAX is cut). */
static void copy(char *dst, size_t cap, const char *src)
{
    size_t n = src ? strnlen(src, cap - 1) : 0;
    if (n)
        memcpy(dst, src, n);
    dst[n] = '\0';
}

/* A series' values reach every commit so far; NaN where it has none. */
static int grow_values(struct history_series *s, size_t nc)
{
    if (nc <= s->vcap) {
        return 0;
    }
    size_t cap = s->vcap ? s->vcap : 64;
    while (cap < nc)
        cap *= 2;
    double *v = realloc(s->v, cap * sizeof *v);
    if (!v)
        return -1;
    for (size_t i = s->vcap; i < cap; i++)
        v[i] = NAN;
    s->v = v, s->vcap = cap;
    return 0;
}

int history_close(struct history *h)
{
    if (!h->open)
        return 0;
    for (size_t i = 0; i < h->ns; i++) {
        struct history_series *s = &h->s[i];
        if (!s->ncur)
            continue;
        double m = stats_median(s->cur, s->ncur);
        if (isnan(m) || grow_values(s, h->nc) < 0)
            return -1;   /* the samples are finite: NaN is its copy's malloc failing */
        s->v[h->nc - 1] = m;
        s->ncur = 0;
    }
    h->open = 0;
    return 0;
}

static size_t id_hash(const char *id)
{
    uint64_t d = 0xcbf29ce484222325u;
    for (; *id; id++)
        d = (d ^ (unsigned char)*id) * 0x100000001b3u;
    return (size_t)d;
}

/* The slot of id in the index: its commit's, or the empty one to fill.
 * A history of 10,000 commits would take 50 million comparisons to check
 * each new commit against all before it. */
static size_t *id_slot(const struct history *h, const char *id)
{
    size_t mask = h->idxcap - 1, i = id_hash(id) & mask;
    while (h->idx[i] && strcmp(h->c[h->idx[i] - 1].id, id) != 0)
        i = (i + 1) & mask;
    return &h->idx[i];
}

/* Room for one more commit in the index, kept at most half full. */
static int index_grow(struct history *h)
{
    if ((h->nc + 1) * 2 <= h->idxcap)
        return 0;
    size_t cap = h->idxcap ? h->idxcap * 2 : 256;
    size_t *old = h->idx, oldcap = h->idxcap;
    h->idx = calloc(cap, sizeof *h->idx);
    if (!h->idx) {
        h->idx = old;
        return -1;
    }
    h->idxcap = cap;
    for (size_t i = 0; i < oldcap; i++)
        if (old[i])
            *id_slot(h, h->c[old[i] - 1].id) = old[i];
    free(old);
    return 0;
}

int history_commit(struct history *h, const char *id, const char *time, const char *where)
{
    if (h->open && strcmp(h->c[h->nc - 1].id, id) == 0)
        return 0;
    if (index_grow(h) < 0)
        return -1;
    size_t *slot = id_slot(h, id);
    if (*slot)
        return cli_usage("history", "%s: commit %s again, not next to its points at %s "
                         "(a series is in commit order: one run of points per commit)",
                         where, id, h->c[*slot - 1].where);
    if (history_close(h) < 0)
        return -1;
    if (h->nc == h->ccap) {
        size_t cap = h->ccap ? h->ccap * 2 : 64;
        struct history_commit *c = realloc(h->c, cap * sizeof *c);
        if (!c)
            return -1;
        h->c = c, h->ccap = cap;
    }
    struct history_commit *c = &h->c[h->nc++];
    copy(c->id, sizeof c->id, id);
    *id_slot(h, c->id) = h->nc;   /* the id as kept: a long one is cut */
    copy(c->time, sizeof c->time, time);
    copy(c->where, sizeof c->where, where);
    h->open = 1;
    return 0;
}

static struct history_series *find_series(struct history *h, const char *label, const char *metric)
{
    for (size_t i = 0; i < h->ns; i++)
        if (strcmp(h->s[i].label, label) == 0 && strcmp(h->s[i].metric, metric) == 0)
            return &h->s[i];
    return NULL;
}

int history_sample(struct history *h, const struct compare_key *key, const char *metric,
                   const char *unit, int higher_better, double v, const char *where)
{
    struct history_series *s = find_series(h, key->label, metric);
    int same = strcmp(key->label, metric) == 0;   /* a CSV series names itself once */
    if (s) {
        if (strcmp(s->unit, unit) != 0)
            return cli_usage("history", "%s: %s%s%s in %s, but in %s at %s (one series has "
                             "one unit)", where, key->label, same ? "" : " ", same ? "" : metric,
                             unit[0] ? unit : "no unit", s->unit[0] ? s->unit : "no unit",
                             s->where);
        const char *opt = compare_key_differs(&s->key, key);
        if (opt) {
            char was[80], now[80];
            compare_def_text(&s->key, opt, was, sizeof was);
            compare_def_text(key, opt, now, sizeof now);
            return cli_usage("history", "%s: %s measured with %s %s, but with %s at %s (not the "
                             "same measurement: give them as two series)",
                             where, key->label, opt, now, was, s->where);
        }
    } else {
        if (h->ns == h->scap) {
            size_t cap = h->scap ? h->scap * 2 : 16;
            struct history_series *n = realloc(h->s, cap * sizeof *n);
            if (!n)
                return -1;
            h->s = n, h->scap = cap;
        }
        s = &h->s[h->ns++];
        memset(s, 0, sizeof *s);
        s->key = *key;
        copy(s->label, sizeof s->label, key->label);
        copy(s->metric, sizeof s->metric, metric);
        copy(s->unit, sizeof s->unit, unit);
        copy(s->where, sizeof s->where, where);
        s->higher_better = higher_better;
    }
    if (s->ncur == s->curcap) {
        size_t cap = s->curcap ? s->curcap * 2 : 8;
        double *c = realloc(s->cur, cap * sizeof *c);
        if (!c)
            return -1;
        s->cur = c, s->curcap = cap;
    }
    s->cur[s->ncur++] = v;
    return 0;
}

/* ---- --json inputs ------------------------------------------------------ */

/* The samples compare's reader has grouped so far belong to the open
 * commit: they become history samples and the reader starts afresh. */
static int flush_side(struct history *h, struct compare_side *cs)
{
    int rc = 0;
    for (size_t i = 0; i < cs->ng && rc == 0; i++) {
        const struct compare_group *g = &cs->g[i];
        for (size_t j = 0; j < g->nm && rc == 0; j++)
            for (size_t k = 0; k < g->m[j].n && rc == 0; k++)
                rc = history_sample(h, &g->key, g->m[j].name, g->m[j].unit,
                                    g->m[j].higher_better, g->m[j].v[k], g->where);
    }
    compare_side_free(cs);
    return rc;
}

/* The commit an object belongs to: its "commit", its env's "commit" when
 * the binary was built from a clean tree of it (env "dirty": false), or
 * else its file's name without directory and extension. A build with
 * changes, or from outside a checkout, names a commit its code is not:
 * a developer's edits measured one after another on one commit would
 * otherwise pool into one point. */
static void object_commit(const struct compare_side *cs, const cJSON *obj, char *id, size_t cap)
{
    const char *c = compare_jstr(obj, "commit");
    const cJSON *env = compare_j(obj, "env");
    if (!c && cJSON_IsFalse(cJSON_GetObjectItemCaseSensitive(env, "dirty")))
        c = compare_jstr(env, "commit");
    if (c && *c) {
        copy(id, cap, c);
        return;
    }
    char file[COMPARE_WHERE_MAX];
    copy(file, sizeof file, cs->where);
    char *colon = strrchr(file, ':');
    if (colon)
        *colon = '\0';
    const char *base = strrchr(file, '/');
    base = base ? base + 1 : file;
    copy(id, cap, base);
    char *dot = strrchr(id, '.');
    if (dot && dot != id)
        *dot = '\0';
}

static int on_object(struct compare_side *cs, const cJSON *obj)
{
    struct history *h = cs->ctx;
    char id[HISTORY_ID_MAX];
    object_commit(cs, obj, id, sizeof id);
    if (h->open && strcmp(h->c[h->nc - 1].id, id) == 0)
        return 0;
    int rc = flush_side(h, cs);
    if (rc == 0)
        rc = history_commit(h, id, compare_jstr(compare_j(obj, "env"), "time_utc"), cs->where);
    return rc < 0 ? cli_fail("history", "out of memory") : rc;
}

static int is_csv(const char *path)
{
    size_t n = strlen(path);
    return n > 4 && strcmp(path + n - 4, ".csv") == 0;
}

int history_read(struct history *h, const char *path)
{
    struct stat sb;
    if (strcmp(path, "-") != 0 && stat(path, &sb) == 0 && S_ISREG(sb.st_mode) && is_csv(path))
        return history_read_csv(h, path);
    struct compare_side cs;
    memset(&cs, 0, sizeof cs);
    cs.cmd = "history", cs.on_object = on_object, cs.ctx = h;
    int rc = compare_side_read(&cs, path);
    if (rc == 0)
        rc = flush_side(h, &cs);
    compare_side_free(&cs);
    if (rc < 0)
        return cli_fail("history", "out of memory");
    return rc;
}

void history_free(struct history *h)
{
    for (size_t i = 0; i < h->ns; i++) {
        struct history_series *s = &h->s[i];
        free(s->v), free(s->cur), free(s->pt), free(s->pc), free(s->ch), free(s->fixed);
    }
    free(h->s);
    free(h->c);
    free(h->idx);
    memset(h, 0, sizeof *h);
}
