/* compare_extract: the samples in one kvtest --json object, by command.
 *
 * What goes into a group's label and what into its defining options:
 * the label holds what a study varies on purpose (api, order, cold/warm,
 * configuration, connections, the bench script's experiment/variant), the
 * definitions what must be the same for two figures to be comparable at
 * all (--count, --max-id, the blob size, --lookups, --duration, ...).
 * Paths, URLs, seeds and --repeat/--warmup are neither: they differ from
 * run to run without changing what is measured. */
#include <stdio.h>
#include <string.h>

#include "commands/compare/compare_int.h"

#define BLOB_TOL 0.05   /* random subsets of a varied data set differ a little */

#define ADD(g, name, unit, hb, v)                              \
    do {                                                       \
        if (cmp_group_add((g), (name), (unit), (hb), (v)) < 0) \
            return -2;                                         \
    } while (0)

/* "[experiment/variant]" of a bench.sh record, so that its variants stay
 * apart even where their options coincide. */
static void bench_words(struct cmp_key *k, const cJSON *obj, const char *second)
{
    const cJSON *b = cmp_j(obj, "bench");
    const char *e = cmp_jstr(b, "experiment"), *v = second ? cmp_jstr(b, second) : NULL;
    if (e && v)
        cmp_key_word(k, "[%s/%s]", e, v);
    else if (e)
        cmp_key_word(k, "[%s]", e);
}

/* p50, p99, p99.9 of a report_hist_json() object (in µs); names[] holds
 * the three metric names. */
static int add_latency(struct cmp_group *g, const cJSON *lat, const char *const names[3])
{
    if (!lat || cmp_jnum(lat, "count", 1) <= 0)
        return 0;
    static const char *const keys[3] = {"p50", "p99", "p999"};
    for (int i = 0; i < 3; i++)
        ADD(g, names[i], "us", 0, cmp_jnum(lat, keys[i], 0));
    return 0;
}

static const char *const lat_names[3] = {"p50", "p99", "p99.9"};

static void run_key(struct cmp_key *k, const cJSON *obj, const cJSON *o, const cJSON *r)
{
    const char *order = cmp_jstr(o, "order");
    cmp_key_init(k, "run");
    cmp_key_word(k, "%s %s/%s %s %s", cmp_jstr(r, "op") ? cmp_jstr(r, "op") : "?",
                 cmp_jstr(r, "store") ? cmp_jstr(r, "store") : "?",
                 cmp_jstr(r, "api") ? cmp_jstr(r, "api") : "?", order ? order : "?",
                 cmp_jtrue(o, "cold") ? "cold" : "warm");
    static const char *const flags[] = {"update", "multitrans", "fsync", "nosync",
                                        "nocheckpoint"};
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
        if (cmp_jtrue(o, flags[i]))
            cmp_key_word(k, "%s", flags[i]);
    if (cmp_jnum(o, "mmap", 0) > 0)
        cmp_key_word(k, "mmap");
    if (cmp_jstr(o, "jmode"))
        cmp_key_word(k, "jmode=%s", cmp_jstr(o, "jmode"));
    if (cmp_jstr(o, "synchronous"))
        cmp_key_word(k, "sync=%s", cmp_jstr(o, "synchronous"));
    if (cmp_jstr(o, "fadvise"))
        cmp_key_word(k, "fadvise=%s", cmp_jstr(o, "fadvise"));
    if (cmp_jnum(o, "threads", 1) > 1)
        cmp_key_word(k, "threads=%g", cmp_jnum(o, "threads", 1));
    bench_words(k, obj, "variant");

    cmp_key_num(k, "count", cmp_jnum(o, "count", -1), 0);
    cmp_key_num(k, "max_id", cmp_jnum(o, "max_id", -1), 0);
    cmp_key_num(k, "start", cmp_jnum(o, "start", 0), 0);
    cmp_key_num(k, "cache_size", cmp_jnum(o, "cache_size", -1), 0);
    cmp_key_num(k, "mmap", cmp_jnum(o, "mmap", 0), 0);
    if (order && strcmp(order, "zipf") == 0)
        cmp_key_num(k, "zipf", cmp_jnum(o, "zipf", 0), 0);
    if (cmp_j(r, "page_size"))
        cmp_key_num(k, "page_size", cmp_jnum(r, "page_size", 0), 0);
    double count = cmp_jnum(r, "count", 0), bytes = cmp_jnum(r, "bytes", 0);
    cmp_key_num(k, "blob size", count > 0 ? bytes / count : 0, BLOB_TOL);
}

/* One metric's samples: field of every element of holder's "runs" (the
 * measured rounds), or of holder itself where it has no rounds. */
static int add_rounds(struct cmp_group *g, const cJSON *holder, const char *field,
                      const char *name, const char *unit, int higher_better)
{
    const cJSON *runs = cmp_j(holder, "runs"), *run;
    if (!cJSON_IsArray(runs) || cJSON_GetArraySize(runs) == 0)
        return cmp_group_add(g, name, unit, higher_better, cmp_jnum(holder, field, 0));
    cJSON_ArrayForEach(run, runs)
        if (cmp_group_add(g, name, unit, higher_better, cmp_jnum(run, field, 0)) < 0)
            return -1;
    return 0;
}

/* kvtest run: every measured run a sample of µs/blob and MB/s; the merged
 * latency histogram one sample of each percentile. */
static int extract_run(struct cmp_side *s, const cJSON *obj, char *err, size_t cap)
{
    const cJSON *o = cmp_j(obj, "options"), *r = cmp_j(obj, "result");
    if (!cJSON_IsObject(o) || !cJSON_IsObject(r)) {
        snprintf(err, cap, "run without options or result");
        return -1;
    }
    struct cmp_key k;
    run_key(&k, obj, o, r);
    struct cmp_group *g = cmp_side_group(s, &k);
    if (!g)
        return -2;
    if (add_rounds(g, r, "us_per_blob", "us/blob", "us", 0) < 0 ||
        add_rounds(g, r, "mb_per_s", "MB/s", "MB/s", 1) < 0)
        return -2;
    return add_latency(g, cmp_j(r, "latency"), lat_names);
}

/* kvtest shortener bench: per configuration, each timed round a sample of
 * lookups/s; the latency histogram of all rounds one sample. */
static int extract_bench(struct cmp_side *s, const cJSON *obj, char *err, size_t cap)
{
    const cJSON *o = cmp_j(obj, "options"), *r = cmp_j(obj, "result");
    const cJSON *cfgs = cmp_j(r, "configs"), *c;
    if (!cJSON_IsObject(o) || !cJSON_IsArray(cfgs)) {
        snprintf(err, cap, "shortener bench without options or result.configs");
        return -1;
    }
    cJSON_ArrayForEach(c, cfgs) {
        const char *name = cmp_jstr(c, "config");
        struct cmp_key k;
        cmp_key_init(&k, "bench");
        cmp_key_word(&k, "%s %s", name ? name : "?", cmp_jtrue(o, "cold") ? "cold" : "warm");
        if (cmp_jnum(o, "threads", 1) > 1)
            cmp_key_word(&k, "threads=%g", cmp_jnum(o, "threads", 1));
        bench_words(&k, obj, NULL);
        cmp_key_num(&k, "lookups", cmp_jnum(o, "lookups", -1), 0);
        cmp_key_num(&k, "links", cmp_jnum(r, "links", -1), 0);
        cmp_key_num(&k, "zipf", cmp_jnum(o, "zipf", 0), 0);
        cmp_key_num(&k, "miss", cmp_jnum(o, "miss", 0), 0);
        if (name && strstr(name, "track"))
            cmp_key_num(&k, "track_size", cmp_jnum(o, "track_size", 0), 0);
        cmp_key_str(&k, "schema", cmp_jstr(c, "schema"));
        struct cmp_group *g = cmp_side_group(s, &k);
        if (!g)
            return -2;
        if (add_rounds(g, c, "lookups_per_s", "lookups/s", "1/s", 1) < 0)
            return -2;
        if (add_latency(g, cmp_j(c, "latency"), lat_names) < 0)
            return -2;
    }
    return 0;
}

/* kvtest shortener load: one sample of requests/s per object, and of the
 * latency percentiles of each request kind that ran. */
static int extract_load(struct cmp_side *s, const cJSON *obj, char *err, size_t cap)
{
    const cJSON *o = cmp_j(obj, "options"), *r = cmp_j(obj, "result");
    if (!cJSON_IsObject(o) || !cJSON_IsObject(r)) {
        snprintf(err, cap, "shortener load without options or result");
        return -1;
    }
    struct cmp_key k;
    cmp_key_init(&k, "load");
    /* A load's configuration lives only in the bench record: plain words. */
    const cJSON *b = cmp_j(obj, "bench");
    if (cmp_jstr(b, "experiment"))
        cmp_key_word(&k, "%s", cmp_jstr(b, "experiment"));
    if (cmp_jstr(b, "config"))
        cmp_key_word(&k, "%s", cmp_jstr(b, "config"));
    cmp_key_word(&k, "c=%g", cmp_jnum(o, "connections", cmp_jnum(o, "threads", 0)));
    if (cmp_j(o, "rate") && cJSON_IsNumber(cmp_j(o, "rate")))
        cmp_key_word(&k, "rate=%g", cmp_jnum(o, "rate", 0));
    if (cmp_jnum(o, "create_ratio", 0) > 0)
        cmp_key_word(&k, "create=%.3g", cmp_jnum(o, "create_ratio", 0));
    if (cmp_jnum(o, "zipf", 0) > 0)
        cmp_key_word(&k, "zipf=%g", cmp_jnum(o, "zipf", 0));
    const char *mode = cmp_jstr(o, "mode");
    cmp_key_str(&k, "mode", mode);
    if (mode && strcmp(mode, "duration") == 0)
        cmp_key_num(&k, "duration", cmp_jnum(o, "duration", -1), 0);
    else
        cmp_key_num(&k, "tasks", cmp_jnum(o, "tasks", -1), 0);
    cmp_key_num(&k, "gets", cmp_jnum(o, "gets", -1), 0);
    cmp_key_num(&k, "workers", cmp_jnum(o, "workers", -1), 0);
    cmp_key_str(&k, "latency_from", cmp_jstr(r, "latency_from"));
    struct cmp_group *g = cmp_side_group(s, &k);
    if (!g)
        return -2;
    ADD(g, "requests/s", "1/s", 1, cmp_jnum(r, "requests_per_s", 0));
    static const char *const kinds[3] = {"all", "get", "post"};
    static const char *const names[3][3] = {{"p50 all", "p99 all", "p99.9 all"},
                                            {"p50 get", "p99 get", "p99.9 get"},
                                            {"p50 post", "p99 post", "p99.9 post"}};
    const cJSON *bt = cmp_j(r, "by_type");
    for (int i = 0; i < 3; i++) {
        const cJSON *t = cmp_j(bt, kinds[i]);
        if (cmp_jnum(t, "requests", 0) > 0 && add_latency(g, cmp_j(t, "latency"), names[i]) < 0)
            return -2;
    }
    return 0;
}

/* The definitions every group of one sweep shares. */
static void sweep_defs(struct cmp_key *k, const cJSON *o)
{
    cmp_key_num(k, "total", cmp_jnum(o, "total", -1), 0);
    cmp_key_num(k, "mmap", cmp_jnum(o, "mmap", 0), 0);
    cmp_key_num(k, "cold", cmp_jtrue(o, "cold"), 0);
    cmp_key_num(k, "update", cmp_jtrue(o, "update"), 0);
    cmp_key_str(k, "order", cmp_jstr(o, "order"));
}

/* One page size of a sweep: per blob size and layout a group whose
 * samples are the rounds' µs/blob ("runs_us") or else the one median; the
 * crossover size one sample of its own group. */
static int sweep_page(struct cmp_side *s, const cJSON *o, const cJSON *page, double ps,
                      int files)
{
    static const char *const layouts[3] = {"sql", "blob", "files"};
    const cJSON *rows = cmp_j(page, "rows"), *row;
    cJSON_ArrayForEach(row, rows) {
        for (int l = 0; l < (files ? 3 : 2); l++) {
            const cJSON *x = cmp_j(row, layouts[l]);
            if (!cJSON_IsObject(x))
                continue;
            struct cmp_key k;
            cmp_key_init(&k, "sweep");
            cmp_key_word(&k, "size=%.0f", cmp_jnum(row, "size", 0));
            if (l < 2)
                cmp_key_word(&k, "page=%g", ps);
            cmp_key_word(&k, "%s", layouts[l]);
            sweep_defs(&k, o);
            cmp_key_num(&k, "count", cmp_jnum(row, "count", -1), 0);
            struct cmp_group *g = cmp_side_group(s, &k);
            if (!g)
                return -2;
            const cJSON *ru = cmp_j(x, "runs_us"), *v;
            if (cJSON_IsArray(ru) && cJSON_GetArraySize(ru) > 0) {
                cJSON_ArrayForEach(v, ru)
                    ADD(g, "us/blob", "us", 0, cJSON_IsNumber(v) ? v->valuedouble : 0);
            } else {
                ADD(g, "us/blob", "us", 0, cmp_jnum(x, "us_per_blob", 0));
            }
        }
    }
    const cJSON *cross = cmp_j(page, "crossover");
    if (cJSON_IsNumber(cmp_j(cross, "size"))) {
        struct cmp_key k;
        cmp_key_init(&k, "sweep");
        cmp_key_word(&k, "page=%g", ps);
        sweep_defs(&k, o);
        struct cmp_group *g = cmp_side_group(s, &k);
        if (!g)
            return -2;
        ADD(g, "crossover", "bytes", 0, cmp_jnum(cross, "size", 0));
    }
    return 0;
}

/* kvtest sweep: "pages" (one per --page-sizes value) or, from before
 * --page-sizes, the top-level rows and crossover. The files do not depend
 * on the page size: their rows go under the first page only. */
static int extract_sweep(struct cmp_side *s, const cJSON *obj, char *err, size_t cap)
{
    const cJSON *o = cmp_j(obj, "options"), *pages = cmp_j(obj, "pages"), *p;
    if (!cJSON_IsObject(o) || (!cJSON_IsArray(pages) && !cJSON_IsArray(cmp_j(obj, "rows")))) {
        snprintf(err, cap, "sweep without options or rows");
        return -1;
    }
    if (!cJSON_IsArray(pages))
        return sweep_page(s, o, obj, cmp_jnum(o, "pagesize", 0), 1);
    int first = 1;
    cJSON_ArrayForEach(p, pages) {
        if (sweep_page(s, o, p, cmp_jnum(p, "pagesize", 0), first) < 0)
            return -2;
        first = 0;
    }
    return 0;
}

/* kvtest space: the total bytes of each layout, one sample per object. */
static int extract_space(struct cmp_side *s, const cJSON *obj, char *err, size_t cap)
{
    const cJSON *ls = cmp_j(obj, "layouts"), *l;
    if (!cJSON_IsArray(ls)) {
        snprintf(err, cap, "space without layouts");
        return -1;
    }
    cJSON_ArrayForEach(l, ls) {
        struct cmp_key k;
        cmp_key_init(&k, "space");
        cmp_key_word(&k, "%s", cmp_jstr(l, "layout") ? cmp_jstr(l, "layout") : "?");
        cmp_key_num(&k, "files", cmp_jnum(l, "files", -1), 0);
        cmp_key_num(&k, "content_bytes", cmp_jnum(l, "content_bytes", -1), BLOB_TOL);
        struct cmp_group *g = cmp_side_group(s, &k);
        if (!g)
            return -2;
        ADD(g, "total", "bytes", 0, cmp_jnum(l, "total_bytes", 0));
    }
    return 0;
}

int cmp_extract(struct cmp_side *s, const cJSON *obj, const char *command,
                char *err, size_t errcap)
{
    static const struct {
        const char *command;
        int (*fn)(struct cmp_side *, const cJSON *, char *, size_t);
    } table[] = {
        {"run", extract_run},     {"shortener bench", extract_bench},
        {"shortener load", extract_load}, {"sweep", extract_sweep},
        {"space", extract_space},
    };
    for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
        if (strcmp(command, table[i].command) == 0)
            return table[i].fn(s, obj, err, errcap);
    /* kvtest commands whose --json output measures nothing to compare. */
    static const char *const quiet[] = {"init", "stat", "export", "compare",
                                        "shortener init", "shortener keys"};
    for (size_t i = 0; i < sizeof quiet / sizeof quiet[0]; i++)
        if (strcmp(command, quiet[i]) == 0)
            return 1;
    snprintf(err, errcap, "unknown command \"%.60s\"", command);
    return -1;
}
