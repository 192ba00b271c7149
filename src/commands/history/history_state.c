/* history_state: what one analysis leaves for the next (--state FILE), so
 * that a series that grew by a point is searched again only from its last
 * change point but one (history_int.h). The file is JSON:
 *   {"kvtest_history_state": 1, "options": {p, min_change, min_segment,
 *    test}, "series": [{"measurement", "metric", "points", "digest",
 *    "change_points": [INDEX...]}]}
 * digest: FNV-1a over each point's commit and value (%.17g), so a series
 * whose past was edited is analysed whole again. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/aside.h"
#include "base/cli.h"
#include "base/json_alloc.h"
#include "commands/history/history_int.h"

#define STATE_VERSION 1

static uint64_t digest(const struct history *h, const struct history_series *s, size_t n)
{
    uint64_t d = 0xcbf29ce484222325u;
    for (size_t i = 0; i < n; i++) {
        char buf[HISTORY_ID_MAX + 32];
        int len = snprintf(buf, sizeof buf, "%s%c%.17g", h->c[s->pc[i]].id, 0, s->pt[i]);
        for (int k = 0; k < len + 1; k++)
            d = (d ^ (unsigned char)buf[k]) * 0x100000001b3u;
    }
    return d;
}

static const char *test_name(enum change_test t)
{
    return t == CHANGE_TEST_MW ? "mw" : "welch";
}

static cJSON *options_json(const struct history *h)
{
    cJSON *o = cJSON_CreateObject();
    if (o && (!cJSON_AddNumberToObject(o, "p", h->opts.alpha) ||
              !cJSON_AddNumberToObject(o, "min_change", h->opts.min_change) ||
              !cJSON_AddNumberToObject(o, "min_segment", (double)h->opts.min_seg) ||
              !cJSON_AddNumberToObject(o, "window", (double)h->window) ||
              !cJSON_AddStringToObject(o, "test", test_name(h->opts.test)))) {
        cJSON_Delete(o);
        return NULL;
    }
    return o;
}

/* Whole file into memory (a state is small). NULL with errno. */
static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        n += fread(buf + n, 1, cap - n - 1, f);
        if (ferror(f) || n < cap - 1)
            break;
        char *b = realloc(buf, cap * 2);
        if (!b) {
            free(buf);
            buf = NULL;
            errno = ENOMEM;
            break;
        }
        buf = b, cap *= 2;
    }
    if (buf && ferror(f)) {
        free(buf);
        buf = NULL;
        errno = EIO;
    }
    fclose(f);
    if (buf)
        buf[n] = '\0';
    return buf;
}

static struct history_series *series_of(struct history *h, const char *label, const char *metric)
{
    for (size_t i = 0; i < h->ns; i++)
        if (label && metric && strcmp(h->s[i].label, label) == 0 &&
            strcmp(h->s[i].metric, metric) == 0)
            return &h->s[i];
    return NULL;
}

/* One saved series: its change points, if its first points are unchanged. */
static int reuse(struct history *h, const cJSON *js)
{
    struct history_series *s = series_of(h, compare_jstr(js, "measurement"),
                                         compare_jstr(js, "metric"));
    double saved = compare_jnum(js, "points", -1);
    const char *dg = compare_jstr(js, "digest");
    const cJSON *cps = compare_j(js, "change_points");
    if (!s || saved < 0 || saved > (double)s->npt || !dg || !cJSON_IsArray(cps))
        return 0;
    char want[17];
    snprintf(want, sizeof want, "%016" PRIx64, digest(h, s, (size_t)saved));
    int k = cJSON_GetArraySize(cps);
    if (strcmp(want, dg) != 0)
        return 0;   /* its past was edited: analysed whole */
    size_t *at = malloc(((size_t)k + 1) * sizeof *at);
    if (!at)
        return -1;
    size_t prev = 0;
    for (int i = 0; i < k; i++) {
        const cJSON *it = cJSON_GetArrayItem(cps, i);
        double a = cJSON_IsNumber(it) ? it->valuedouble : -1;
        if (a < (double)(prev + h->opts.min_seg) || a >= saved) {
            free(at);   /* not what this program writes: analysed whole */
            return 0;
        }
        at[i] = prev = (size_t)a;
    }
    /* Searched again from the last change point but one, so that the last
     * can move with the new points; or from the window's start, when that
     * is later, so that a long series without changes costs the window's
     * square and not its own. The change points before stay as they were. */
    size_t from = k >= 2 ? at[k - 2] : 0;
    if (h->window && s->npt > h->window && s->npt - h->window > from)
        from = s->npt - h->window;
    s->fixed = at, s->nfixed = 0;
    while (s->nfixed < (size_t)k && at[s->nfixed] <= from)
        s->nfixed++;
    s->from = from;
    h->reused++;
    return 0;
}

int history_state_load(struct history *h)
{
    char *text = slurp(h->state);
    if (!text) {
        if (errno == ENOENT)
            return 0;
        return errno == ENOMEM ? cli_fail("history", "out of memory")
                               : cli_usage("history", "--state %s: %s", h->state, strerror(errno));
    }
    json_alloc_reset();
    cJSON *root = cJSON_Parse(text);
    free(text);
    if (!root && json_alloc_failed())
        return cli_fail("history", "out of memory");
    if (!root || compare_jnum(root, "kvtest_history_state", 0) != STATE_VERSION) {
        cJSON_Delete(root);
        return cli_usage("history", "--state %s: not a state file of kvtest history (left as "
                         "it is; name a new file)", h->state);
    }
    cJSON *want = options_json(h);
    char *a = want ? cJSON_PrintUnformatted(want) : NULL;
    char *b = cJSON_PrintUnformatted(compare_j(root, "options"));
    int same = a && b && strcmp(a, b) == 0, rc = 0;
    if (!want || !a)
        rc = -1;
    free(a), free(b);
    cJSON_Delete(want);
    const cJSON *series = compare_j(root, "series");
    for (const cJSON *js = series ? series->child : NULL; same && rc == 0 && js; js = js->next)
        rc = reuse(h, js);
    cJSON_Delete(root);
    return rc < 0 ? cli_fail("history", "out of memory") : 0;
}

static cJSON *state_json(const struct history *h)
{
    cJSON *root = cJSON_CreateObject(), *arr;
    if (!root || !cJSON_AddNumberToObject(root, "kvtest_history_state", STATE_VERSION) ||
        !cJSON_AddItemToObject(root, "options", options_json(h)) ||
        !(arr = cJSON_AddArrayToObject(root, "series")))
        goto oom;
    for (size_t i = 0; i < h->ns; i++) {
        const struct history_series *s = &h->s[i];
        if (s->skipped)
            continue;
        char dg[17];
        snprintf(dg, sizeof dg, "%016" PRIx64, digest(h, s, s->npt));
        cJSON *js = cJSON_CreateObject(), *cps;
        if (!js || !cJSON_AddItemToArray(arr, js) ||
            !cJSON_AddStringToObject(js, "measurement", s->label) ||
            !cJSON_AddStringToObject(js, "metric", s->metric) ||
            !cJSON_AddNumberToObject(js, "points", (double)s->npt) ||
            !cJSON_AddStringToObject(js, "digest", dg) ||
            !(cps = cJSON_AddArrayToObject(js, "change_points")))
            goto oom;
        for (size_t k = 0; k < s->nch; k++)
            if (!cJSON_AddItemToArray(cps, cJSON_CreateNumber((double)s->ch[k].at)))
                goto oom;
    }
    return root;
oom:
    cJSON_Delete(root);
    return NULL;
}

int history_state_save(const struct history *h)
{
    cJSON *root = state_json(h);
    char *text = root ? cJSON_PrintUnformatted(root) : NULL;
    cJSON_Delete(root);
    if (!text)
        return cli_fail("history", "out of memory");
    struct aside a;
    int rc = 0;
    if (aside_create(&a, h->state, ASIDE_SIBLING, ASIDE_FILE, 0644) < 0) {
        rc = cli_fail("history", "--state %s: %s", h->state, strerror(errno));
    } else {
        FILE *f = fopen(a.path, "w");
        int ok = f && fputs(text, f) >= 0 && fputc('\n', f) != EOF;
        if (f && fclose(f) != 0)
            ok = 0;
        if (!ok) {
            int e = errno;
            aside_discard(&a);
            rc = cli_fail("history", "--state %s: %s", h->state, strerror(e ? e : EIO));
        } else if (aside_commit(&a) < 0) {
            rc = cli_fail("history", "--state %s: %s", h->state, strerror(errno));
        }
    }
    free(text);
    return rc;
}
