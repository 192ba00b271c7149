/* compare_read: one side of kvtest compare, from a file of --json lines, a
 * results directory or stdin, into groups of samples (compare_int.h). */
#include <errno.h>
#include <glob.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/cli.h"
#include "commands/compare/compare_int.h"

const cJSON *compare_j(const cJSON *o, const char *name)
{
    return o && cJSON_IsObject(o) ? cJSON_GetObjectItemCaseSensitive(o, name) : NULL;
}

double compare_jnum(const cJSON *o, const char *name, double dflt)
{
    const cJSON *v = compare_j(o, name);
    return cJSON_IsNumber(v) ? v->valuedouble : dflt;
}

const char *compare_jstr(const cJSON *o, const char *name)
{
    const cJSON *v = compare_j(o, name);
    return cJSON_IsString(v) ? v->valuestring : NULL;
}

int compare_jtrue(const cJSON *o, const char *name)
{
    return cJSON_IsTrue(compare_j(o, name));
}

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

/* One line of FILE (s->where names it). 0, or 2 after the message. */
static int read_line(struct compare_side *s, const char *line, size_t len)
{
    size_t i = 0;
    while (i < len && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r' || line[i] == '\n'))
        i++;
    if (i == len)
        return 0;   /* blank lines are allowed between objects */
    cJSON *obj = cJSON_ParseWithLength(line, len);
    if (!obj || !cJSON_IsObject(obj)) {
        cJSON_Delete(obj);
        return cli_usage("compare", "%s: not a JSON object (a line of kvtest --json output "
                         "was expected)", s->where);
    }
    const char *command = compare_jstr(obj, "command");
    int rc = 0;
    char err[200] = "";
    if (!command) {
        /* bench.sh stores records of other tools (wrk, valkey-benchmark)
         * beside ours, marked "tool": not kvtest's, not compared. */
        if (compare_jstr(obj, "tool"))
            s->others++;
        else
            rc = cli_usage("compare", "%s: not kvtest JSON (no \"command\")", s->where);
    } else if (compare_jtrue(compare_j(obj, "bench"), "warmup")) {
        s->warmups++;
    } else {
        int e = compare_extract(s, obj, command, err, sizeof err);
        if (e == 0)
            s->objects++;
        else if (e == 1)
            s->others++;
        else if (e == -1)
            rc = cli_usage("compare", "%s: not kvtest JSON (%s)", s->where, err);
        else
            rc = cli_fail("compare", "out of memory");
    }
    cJSON_Delete(obj);
    return rc;
}

static int read_stream(struct compare_side *s, FILE *f, const char *shown)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t len;
    long no = 0;
    int rc = 0;
    errno = 0;
    while (rc == 0 && (len = getline(&line, &cap, f)) >= 0) {
        snprintf(s->where, sizeof s->where, "%s:%ld", shown, ++no);
        rc = read_line(s, line, (size_t)len);
    }
    if (rc == 0 && ferror(f))
        rc = cli_usage("compare", "%s: %s", shown, strerror(errno ? errno : EIO));
    free(line);
    return rc;
}

static int read_file(struct compare_side *s, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f)
        return cli_usage("compare", "%s: %s", path, strerror(errno));
    int rc = read_stream(s, f, path);
    fclose(f);
    return rc;
}

/* Why glob could not read a directory (compare reads its sides from one
 * thread, so one variable serves). */
static int glob_errno;

static int note_glob_errno(const char *path, int err)
{
    (void)path;
    glob_errno = err;
    return 1;
}

/* A results directory: the .jsonl files of DIR/raw, or of DIR without raw. */
static int read_dir(struct compare_side *s, const char *dir)
{
    char pat[4096];
    struct stat sb;
    snprintf(pat, sizeof pat, "%s/raw", dir);
    int raw = stat(pat, &sb) == 0 && S_ISDIR(sb.st_mode);
    if (snprintf(pat, sizeof pat, "%s%s/*.jsonl", dir, raw ? "/raw" : "") >= (int)sizeof pat)
        return cli_usage("compare", "%s: path too long", dir);
    /* GLOB_ERR: without it a directory glob cannot open is taken as one
     * with no match, and "no .jsonl files" would hide the real cause. */
    glob_t gl;
    glob_errno = ENOMEM;   /* GLOB_NOSPACE calls no errfunc */
    int g = glob(pat, GLOB_ERR, note_glob_errno, &gl);
    if (g == GLOB_NOMATCH)
        return cli_usage("compare", "%s: no .jsonl files in %s", dir, raw ? "raw/" : "it");
    if (g != 0) {
        globfree(&gl);
        return cli_usage("compare", "%s: cannot list its .jsonl files: %s", dir,
                         strerror(glob_errno));
    }
    int rc = 0;
    for (size_t i = 0; i < gl.gl_pathc && rc == 0; i++)
        rc = read_file(s, gl.gl_pathv[i]);
    globfree(&gl);
    return rc;
}

int compare_side_read(struct compare_side *s, const char *path)
{
    s->name = path;
    if (strcmp(path, "-") == 0)
        return read_stream(s, stdin, "-");
    struct stat sb;
    if (stat(path, &sb) != 0)
        return cli_usage("compare", "%s: %s", path, strerror(errno));
    return S_ISDIR(sb.st_mode) ? read_dir(s, path) : read_file(s, path);
}
