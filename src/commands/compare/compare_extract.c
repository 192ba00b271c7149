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
        if (compare_group_add((g), (name), (unit), (hb), (v)) < 0) \
            return -2;                                         \
    } while (0)

/* "[experiment/variant]" of a bench.sh record, so that its variants stay
 * apart even where their options coincide. */
static void bench_words(struct compare_key *k, const cJSON *obj, const char *second)
{
    const cJSON *b = compare_j(obj, "bench");
    const char *e = compare_jstr(b, "experiment"), *v = second ? compare_jstr(b, second) : NULL;
    if (e && v)
        compare_key_word(k, "[%s/%s]", e, v);
    else if (e)
        compare_key_word(k, "[%s]", e);
}

/* p50, p99, p99.9 of a report_hist_json() object (in µs); names[] holds
 * the three metric names. */
static int add_latency(struct compare_group *g, const cJSON *lat, const char *const names[3])
{
    if (!lat || compare_jnum(lat, "count", 1) <= 0)
        return 0;
    static const char *const keys[3] = {"p50", "p99", "p999"};
    for (int i = 0; i < 3; i++)
        ADD(g, names[i], "us", 0, compare_jnum(lat, keys[i], 0));
    return 0;
}

static const char *const lat_names[3] = {"p50", "p99", "p99.9"};

static void run_key(struct compare_key *k, const cJSON *obj, const cJSON *o, const cJSON *r)
{
    const char *order = compare_jstr(o, "order");
    compare_key_init(k, "run");
    compare_key_word(k, "%s %s/%s %s %s", compare_jstr(r, "op") ? compare_jstr(r, "op") : "?",
                 compare_jstr(r, "store") ? compare_jstr(r, "store") : "?",
                 compare_jstr(r, "api") ? compare_jstr(r, "api") : "?", order ? order : "?",
                 compare_jtrue(o, "cold") ? "cold" : "warm");
    static const char *const flags[] = {"update", "multitrans", "fsync", "nosync",
                                        "nocheckpoint"};
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++)
        if (compare_jtrue(o, flags[i]))
            compare_key_word(k, "%s", flags[i]);
    if (compare_jnum(o, "mmap", 0) > 0)
        compare_key_word(k, "mmap");
    if (compare_jstr(o, "jmode"))
        compare_key_word(k, "jmode=%s", compare_jstr(o, "jmode"));
    if (compare_jstr(o, "synchronous"))
        compare_key_word(k, "sync=%s", compare_jstr(o, "synchronous"));
    if (compare_jstr(o, "fadvise"))
        compare_key_word(k, "fadvise=%s", compare_jstr(o, "fadvise"));
    if (compare_jnum(o, "threads", 1) > 1)
        compare_key_word(k, "threads=%g", compare_jnum(o, "threads", 1));
    bench_words(k, obj, "variant");

    compare_key_num(k, "count", compare_jnum(o, "count", -1), 0);
    compare_key_num(k, "max_id", compare_jnum(o, "max_id", -1), 0);
    compare_key_num(k, "start", compare_jnum(o, "start", 0), 0);
    compare_key_num(k, "cache_size", compare_jnum(o, "cache_size", -1), 0);
    compare_key_num(k, "mmap", compare_jnum(o, "mmap", 0), 0);
    if (order && strcmp(order, "zipf") == 0)
        compare_key_num(k, "zipf", compare_jnum(o, "zipf", 0), 0);
    if (compare_j(r, "page_size"))
        compare_key_num(k, "page_size", compare_jnum(r, "page_size", 0), 0);
    double count = compare_jnum(r, "count", 0), bytes = compare_jnum(r, "bytes", 0);
    compare_key_num(k, "blob size", count > 0 ? bytes / count : 0, BLOB_TOL);
}

/* One metric's samples: field of every element of holder's "runs" (the
 * measured rounds), or of holder itself where it has no rounds. */
static int add_rounds(struct compare_group *g, const cJSON *holder, const char *field,
                      const char *name, const char *unit, int higher_better)
{
    const cJSON *runs = compare_j(holder, "runs"), *run;
    if (!cJSON_IsArray(runs) || cJSON_GetArraySize(runs) == 0)
        return compare_group_add(g, name, unit, higher_better, compare_jnum(holder, field, 0));
    cJSON_ArrayForEach(run, runs)
        if (compare_group_add(g, name, unit, higher_better, compare_jnum(run, field, 0)) < 0)
            return -1;
    return 0;
}

/* kvtest run: every measured run a sample of µs/blob and MB/s; the merged
 * latency histogram one sample of each percentile. */
static int extract_run(struct compare_side *s, const cJSON *obj, char *err, size_t errcap)
{
    const cJSON *o = compare_j(obj, "options"), *r = compare_j(obj, "result");
    if (!cJSON_IsObject(o) || !cJSON_IsObject(r)) {
        snprintf(err, errcap, "run without options or result");
        return -1;
    }
    struct compare_key k;
    run_key(&k, obj, o, r);
    struct compare_group *g = compare_side_group(s, &k);
    if (!g)
        return -2;
    if (add_rounds(g, r, "us_per_blob", "us/blob", "us", 0) < 0 ||
        add_rounds(g, r, "mb_per_s", "MB/s", "MB/s", 1) < 0)
        return -2;
    return add_latency(g, compare_j(r, "latency"), lat_names);
}

/* kvtest shortener bench: per configuration, each timed round a sample of
 * lookups/s; the latency histogram of all rounds one sample. */
static int extract_bench(struct compare_side *s, const cJSON *obj, char *err, size_t errcap)
{
    const cJSON *o = compare_j(obj, "options"), *r = compare_j(obj, "result");
    const cJSON *cfgs = compare_j(r, "configs"), *c;
    if (!cJSON_IsObject(o) || !cJSON_IsArray(cfgs)) {
        snprintf(err, errcap, "shortener bench without options or result.configs");
        return -1;
    }
    cJSON_ArrayForEach(c, cfgs) {
        const char *name = compare_jstr(c, "config");
        struct compare_key k;
        compare_key_init(&k, "bench");
        compare_key_word(&k, "%s %s", name ? name : "?",
                         compare_jtrue(o, "cold") ? "cold" : "warm");
        if (compare_jnum(o, "threads", 1) > 1)
            compare_key_word(&k, "threads=%g", compare_jnum(o, "threads", 1));
        bench_words(&k, obj, NULL);
        compare_key_num(&k, "lookups", compare_jnum(o, "lookups", -1), 0);
        compare_key_num(&k, "links", compare_jnum(r, "links", -1), 0);
        compare_key_num(&k, "zipf", compare_jnum(o, "zipf", 0), 0);
        compare_key_num(&k, "miss", compare_jnum(o, "miss", 0), 0);
        if (name && strstr(name, "track"))
            compare_key_num(&k, "track_size", compare_jnum(o, "track_size", 0), 0);
        compare_key_str(&k, "schema", compare_jstr(c, "schema"));
        struct compare_group *g = compare_side_group(s, &k);
        if (!g)
            return -2;
        if (add_rounds(g, c, "lookups_per_s", "lookups/s", "1/s", 1) < 0)
            return -2;
        if (add_latency(g, compare_j(c, "latency"), lat_names) < 0)
            return -2;
    }
    return 0;
}

/* kvtest shortener load --slo: one sample of the capacity found, and of
 * its interval's ends, per search. The objective defines the measurement
 * (a capacity at p99 <= 5 ms says nothing of one at 10 ms). A search that
 * found no capacity (the generator's limit, the first step failing)
 * gives no sample. */
static int extract_capacity(struct compare_side *s, const cJSON *obj, const cJSON *o,
                            const cJSON *r)
{
    struct compare_key k;
    compare_key_init(&k, "load capacity");
    const cJSON *b = compare_j(obj, "bench");
    if (compare_jstr(b, "experiment"))
        compare_key_word(&k, "%s", compare_jstr(b, "experiment"));
    if (compare_jstr(b, "config"))
        compare_key_word(&k, "%s", compare_jstr(b, "config"));
    const cJSON *slo;
    cJSON_ArrayForEach(slo, compare_j(o, "slo"))
        compare_key_word(&k, "%s<=%gus", compare_jstr(slo, "percentile") ?
                         compare_jstr(slo, "percentile") : "?", compare_jnum(slo, "bound_us", 0));
    compare_key_word(&k, "c=%g", compare_jnum(o, "connections", 0));
    compare_key_num(&k, "workers", compare_jnum(o, "workers", -1), 0);
    const cJSON *c = compare_j(r, "capacity");
    const char *outcome = compare_jstr(c, "outcome");
    if (!outcome || (strcmp(outcome, "found") != 0 && strcmp(outcome, "at_rate_max") != 0))
        return 0;
    struct compare_group *g = compare_side_group(s, &k);
    if (!g)
        return -2;
    ADD(g, "capacity", "1/s", 1, compare_jnum(c, "rate_per_s", 0));
    ADD(g, "capacity low end", "1/s", 1, compare_jnum(c, "lo_per_s", 0));
    if (cJSON_IsNumber(compare_j(c, "hi_per_s")))
        ADD(g, "capacity high end", "1/s", 1, compare_jnum(c, "hi_per_s", 0));
    return 0;
}

/* kvtest shortener load: one sample of requests/s per object, and of the
 * latency percentiles of each request kind that ran. */
static int extract_load(struct compare_side *s, const cJSON *obj, char *err, size_t errcap)
{
    const cJSON *o = compare_j(obj, "options"), *r = compare_j(obj, "result");
    if (!cJSON_IsObject(o) || !cJSON_IsObject(r)) {
        snprintf(err, errcap, "shortener load without options or result");
        return -1;
    }
    if (compare_jstr(o, "mode") && strcmp(compare_jstr(o, "mode"), "capacity") == 0)
        return extract_capacity(s, obj, o, r);
    struct compare_key k;
    compare_key_init(&k, "load");
    /* A load's configuration lives only in the bench record: plain words. */
    const cJSON *b = compare_j(obj, "bench");
    if (compare_jstr(b, "experiment"))
        compare_key_word(&k, "%s", compare_jstr(b, "experiment"));
    if (compare_jstr(b, "config"))
        compare_key_word(&k, "%s", compare_jstr(b, "config"));
    compare_key_word(&k, "c=%g", compare_jnum(o, "connections", compare_jnum(o, "threads", 0)));
    if (compare_j(o, "rate") && cJSON_IsNumber(compare_j(o, "rate")))
        compare_key_word(&k, "rate=%g", compare_jnum(o, "rate", 0));
    if (compare_jnum(o, "create_ratio", 0) > 0)
        compare_key_word(&k, "create=%.3g", compare_jnum(o, "create_ratio", 0));
    if (compare_jnum(o, "zipf", 0) > 0)
        compare_key_word(&k, "zipf=%g", compare_jnum(o, "zipf", 0));
    const char *mode = compare_jstr(o, "mode");
    compare_key_str(&k, "mode", mode);
    if (mode && strcmp(mode, "duration") == 0)
        compare_key_num(&k, "duration", compare_jnum(o, "duration", -1), 0);
    else
        compare_key_num(&k, "tasks", compare_jnum(o, "tasks", -1), 0);
    compare_key_num(&k, "gets", compare_jnum(o, "gets", -1), 0);
    compare_key_num(&k, "workers", compare_jnum(o, "workers", -1), 0);
    compare_key_str(&k, "latency_from", compare_jstr(r, "latency_from"));
    struct compare_group *g = compare_side_group(s, &k);
    if (!g)
        return -2;
    ADD(g, "requests/s", "1/s", 1, compare_jnum(r, "requests_per_s", 0));
    static const char *const kinds[3] = {"all", "get", "post"};
    static const char *const names[3][3] = {{"p50 all", "p99 all", "p99.9 all"},
                                            {"p50 get", "p99 get", "p99.9 get"},
                                            {"p50 post", "p99 post", "p99.9 post"}};
    const cJSON *bt = compare_j(r, "by_type");
    for (int i = 0; i < 3; i++) {
        const cJSON *t = compare_j(bt, kinds[i]);
        if (compare_jnum(t, "requests", 0) > 0 &&
            add_latency(g, compare_j(t, "latency"), names[i]) < 0)
            return -2;
    }
    return 0;
}

/* The definitions every group of one sweep shares. */
static void sweep_defs(struct compare_key *k, const cJSON *o)
{
    compare_key_num(k, "total", compare_jnum(o, "total", -1), 0);
    compare_key_num(k, "mmap", compare_jnum(o, "mmap", 0), 0);
    compare_key_num(k, "cold", compare_jtrue(o, "cold"), 0);
    compare_key_num(k, "update", compare_jtrue(o, "update"), 0);
    compare_key_str(k, "order", compare_jstr(o, "order"));
}

/* One page size of a sweep: per blob size and layout a group whose
 * samples are the rounds' µs/blob ("runs_us") or else the one median; the
 * crossover size one sample of its own group. */
static int sweep_page(struct compare_side *s, const cJSON *o, const cJSON *page, double ps,
                      int files)
{
    static const char *const layouts[3] = {"sql", "blob", "files"};
    const cJSON *rows = compare_j(page, "rows"), *row;
    cJSON_ArrayForEach(row, rows) {
        for (int l = 0; l < (files ? 3 : 2); l++) {
            const cJSON *x = compare_j(row, layouts[l]);
            if (!cJSON_IsObject(x))
                continue;
            struct compare_key k;
            compare_key_init(&k, "sweep");
            compare_key_word(&k, "size=%.0f", compare_jnum(row, "size", 0));
            if (l < 2)
                compare_key_word(&k, "page=%g", ps);
            compare_key_word(&k, "%s", layouts[l]);
            sweep_defs(&k, o);
            compare_key_num(&k, "count", compare_jnum(row, "count", -1), 0);
            struct compare_group *g = compare_side_group(s, &k);
            if (!g)
                return -2;
            const cJSON *ru = compare_j(x, "runs_us"), *v;
            if (cJSON_IsArray(ru) && cJSON_GetArraySize(ru) > 0) {
                cJSON_ArrayForEach(v, ru)
                    ADD(g, "us/blob", "us", 0, cJSON_IsNumber(v) ? v->valuedouble : 0);
            } else {
                ADD(g, "us/blob", "us", 0, compare_jnum(x, "us_per_blob", 0));
            }
        }
    }
    const cJSON *cross = compare_j(page, "crossover");
    if (cJSON_IsNumber(compare_j(cross, "size"))) {
        struct compare_key k;
        compare_key_init(&k, "sweep");
        compare_key_word(&k, "page=%g", ps);
        sweep_defs(&k, o);
        struct compare_group *g = compare_side_group(s, &k);
        if (!g)
            return -2;
        ADD(g, "crossover", "bytes", 0, compare_jnum(cross, "size", 0));
    }
    return 0;
}

/* kvtest sweep: "pages" (one per --page-sizes value) or, from before
 * --page-sizes, the top-level rows and crossover. The files do not depend
 * on the page size: their rows go under the first page only. */
static int extract_sweep(struct compare_side *s, const cJSON *obj, char *err, size_t errcap)
{
    const cJSON *o = compare_j(obj, "options"), *pages = compare_j(obj, "pages"), *p;
    if (!cJSON_IsObject(o) || (!cJSON_IsArray(pages) && !cJSON_IsArray(compare_j(obj, "rows")))) {
        snprintf(err, errcap, "sweep without options or rows");
        return -1;
    }
    if (!cJSON_IsArray(pages))
        return sweep_page(s, o, obj, compare_jnum(o, "pagesize", 0), 1);
    int first = 1;
    cJSON_ArrayForEach(p, pages) {
        if (sweep_page(s, o, p, compare_jnum(p, "pagesize", 0), first) < 0)
            return -2;
        first = 0;
    }
    return 0;
}

/* kvtest space: the total bytes of each layout, one sample per object. */
static int extract_space(struct compare_side *s, const cJSON *obj, char *err, size_t errcap)
{
    const cJSON *ls = compare_j(obj, "layouts"), *l;
    if (!cJSON_IsArray(ls)) {
        snprintf(err, errcap, "space without layouts");
        return -1;
    }
    cJSON_ArrayForEach(l, ls) {
        struct compare_key k;
        compare_key_init(&k, "space");
        compare_key_word(&k, "%s", compare_jstr(l, "layout") ? compare_jstr(l, "layout") : "?");
        compare_key_num(&k, "files", compare_jnum(l, "files", -1), 0);
        compare_key_num(&k, "content_bytes", compare_jnum(l, "content_bytes", -1), BLOB_TOL);
        struct compare_group *g = compare_side_group(s, &k);
        if (!g)
            return -2;
        ADD(g, "total", "bytes", 0, compare_jnum(l, "total_bytes", 0));
    }
    return 0;
}

int compare_extract(struct compare_side *s, const cJSON *obj, const char *command,
                char *err, size_t errcap)
{
    static const struct {
        const char *command;
        int (*fn)(struct compare_side *, const cJSON *, char *, size_t);
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
