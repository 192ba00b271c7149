/* kvtest compare, pinned down from its parts: what each kind of result
 * object becomes (groups: a label, defining options, metrics and their
 * samples), which groups pair and when two sides are refused, the Holm
 * family, the verdicts and the exit status, the text and JSON tables,
 * and every error with its one line on stderr.
 *
 * Expected values are worked out by hand from the input (say how where it
 * is not obvious), never copied from a run of the code under test.
 *
 * Out of memory is reached by failing one chosen allocation: this binary
 * defines malloc and realloc, which pass every call on to the allocator
 * that comes next (the sanitizer's), except the one call a test arms. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>
#include "tests/unit/unit.h"
#include "tests/unit/scratch.h"

#include "base/cli.h"
#include "commands/commands.h"
#include "commands/compare/compare_int.h"
#include "measure/report.h"

/* ---- failing one allocation ------------------------------------------- */

enum { INJ_OFF, INJ_MALLOC, INJ_REALLOC };

static struct {
    int kind;       /* which function is watched */
    size_t size;    /* only calls of this size (0: any) */
    size_t unit;    /* or of a multiple of this (an array of growing capacity) */
    long nth;       /* the call that fails, 1-based (0: none, count only) */
    long seen;      /* calls watched so far */
    int fired;
} inj;

static void inj_arm(int kind, size_t size, long nth)
{
    inj.kind = kind, inj.size = size, inj.unit = 0, inj.nth = nth, inj.seen = 0, inj.fired = 0;
}

/* the nth call for an array of elements of size unit, whatever its length */
static void inj_arm_array(int kind, size_t unit, long nth)
{
    inj_arm(kind, 0, nth);
    inj.unit = unit;
}

static void inj_off(void)
{
    inj.kind = INJ_OFF;
}

static int inj_hit(int kind, size_t size)
{
    if (inj.kind != kind || (inj.size && inj.size != size) ||
        (inj.unit && (size == 0 || size % inj.unit != 0)))
        return 0;
    if (++inj.seen != inj.nth)
        return 0;
    inj.fired = 1;
    return 1;
}

static void *(*next_malloc)(size_t);
static void *(*next_realloc)(void *, size_t);

void *malloc(size_t n)
{
    if (!next_malloc)
        *(void **)&next_malloc = dlsym(RTLD_NEXT, "malloc");
    if (inj_hit(INJ_MALLOC, n)) {
        errno = ENOMEM;
        return NULL;
    }
    return next_malloc(n);
}

void *realloc(void *p, size_t n)
{
    if (!next_realloc)
        *(void **)&next_realloc = dlsym(RTLD_NEXT, "realloc");
    if (inj_hit(INJ_REALLOC, n)) {
        errno = ENOMEM;
        return NULL;
    }
    return next_realloc(p, n);
}

/* ---- scratch files and captured output --------------------------------- */

static char dir[256];

static const char *path_of(const char *name)
{
    static char buf[8][4400];
    static int next;
    char *p = buf[next++ % 8];
    snprintf(p, sizeof buf[0], "%s/%s", dir, name);
    return p;
}

static const char *wfile(const char *name, const char *text)
{
    const char *p = path_of(name);
    FILE *f = fopen(p, "w");
    assert_non_null(f);
    fputs(text, f);
    assert_int_equal(fclose(f), 0);
    return p;
}

static char out[1 << 16], err[1 << 14];

static void slurp(FILE *f, char *buf, size_t cap)
{
    rewind(f);
    size_t n = fread(buf, 1, cap - 1, f);
    buf[n] = 0;
    fclose(f);
}

struct capture {
    FILE *o, *e;
    int so, se;
};

static void capture_begin(struct capture *c)
{
    fflush(stdout), fflush(stderr);
    c->o = tmpfile(), c->e = tmpfile();
    assert_non_null(c->o);
    assert_non_null(c->e);
    c->so = dup(1), c->se = dup(2);
    dup2(fileno(c->o), 1), dup2(fileno(c->e), 2);
}

static void capture_end(struct capture *c)
{
    fflush(stdout), fflush(stderr);
    dup2(c->so, 1), dup2(c->se, 2);
    close(c->so), close(c->se);
    slurp(c->o, out, sizeof out);
    slurp(c->e, err, sizeof err);
}

/* Leaves a known pattern where the next call's locals will be, so that a
 * local read before it is written shows. */
static void __attribute__((noinline)) stack_dirty(void)
{
    volatile char junk[16384];
    for (size_t i = 0; i < sizeof junk; i++)
        junk[i] = (char)0xff;   /* a width of (int)SIZE_MAX = -1: no padding */
}

/* kvtest compare ARGS (NULL-terminated) with stdout in out and stderr in
 * err; stdin from the file stdin_path when not NULL. The exit status. */
static int compare_v(const char *stdin_path, const char *const *args)
{
    char *argv[16];
    int argc = 0;
    argv[argc++] = "kvtest";
    argv[argc++] = "compare";
    for (; args[argc - 2]; argc++)
        argv[argc] = (char *)args[argc - 2];
    argv[argc] = NULL;
    cli_set_cmdline(argc, argv);
    int si = -1;
    if (stdin_path) {
        int fd = open(stdin_path, O_RDONLY);
        assert_true(fd >= 0);
        si = dup(0);
        dup2(fd, 0);
        close(fd);
        clearerr(stdin);
    }
    struct capture c;
    capture_begin(&c);
    stack_dirty();
    int rc = cmd_compare(argc - 2, argv + 2);
    if (report_csv_end() != 0 && rc == 0)   /* as main does after every command */
        rc = 1;
    capture_end(&c);
    if (stdin_path) {
        dup2(si, 0);
        close(si);
        clearerr(stdin);
    }
    return rc;
}

#define COMPARE(...) compare_v(NULL, (const char *const[]){__VA_ARGS__, NULL})
#define COMPARE_STDIN(file, ...) compare_v((file), (const char *const[]){__VA_ARGS__, NULL})

static int lines_in(const char *s)
{
    int n = 0;
    for (; *s; s++)
        n += *s == '\n';
    return n;
}

/* Exactly one line on stderr, equal to want; nothing on stdout. */
static void assert_one_error(const char *want)
{
    char line[8192];
    snprintf(line, sizeof line, "%s\n", want);
    assert_string_equal(err, line);
    assert_string_equal(out, "");
}

/* ---- a side as text ---------------------------------------------------- */

static void put(char *buf, size_t cap, size_t *n, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static void put(char *buf, size_t cap, size_t *n, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(buf + *n, cap - *n, fmt, ap);
    va_end(ap);
    assert_true(w >= 0 && (size_t)w < cap - *n);
    *n += (size_t)w;
}

/* One line a group, "LABEL {def=num~tol def='str' ...} @WHERE", then one a
 * metric, "  NAME|UNIT|HIGHER_BETTER: samples in order". */
static const char *dump(const struct compare_side *s)
{
    static char buf[1 << 14];
    size_t n = 0;
    buf[0] = 0;
    for (size_t i = 0; i < s->ng; i++) {
        const struct compare_group *g = &s->g[i];
        put(buf, sizeof buf, &n, "%s {", g->key.label);
        for (int d = 0; d < g->key.ndefs; d++) {
            const struct compare_def *f = &g->key.defs[d];
            if (f->is_str)
                put(buf, sizeof buf, &n, "%s%s='%s'", d ? " " : "", f->name, f->str);
            else
                put(buf, sizeof buf, &n, "%s%s=%g~%g", d ? " " : "", f->name, f->num, f->tol);
        }
        put(buf, sizeof buf, &n, "} @%s\n", g->where);
        for (size_t m = 0; m < g->nm; m++) {
            put(buf, sizeof buf, &n, "  %s|%s|%d:", g->m[m].name, g->m[m].unit,
                g->m[m].higher_better);
            for (size_t v = 0; v < g->m[m].n; v++)
                put(buf, sizeof buf, &n, " %g", g->m[m].v[v]);
            put(buf, sizeof buf, &n, "\n");
        }
    }
    return buf;
}

/* compare_extract of one JSON object into a fresh side ("t:1"); its
 * return value, the side as dump() text in got, the message in emsg. */
static char got[1 << 14], emsg[200];

static int extract(const char *json)
{
    cJSON *obj = cJSON_Parse(json);
    assert_non_null(obj);
    const char *command = compare_jstr(obj, "command");
    assert_non_null(command);
    struct compare_side s;
    memset(&s, 0, sizeof s);
    s.name = "t";
    snprintf(s.where, sizeof s.where, "t:1");
    memset(emsg, 'x', sizeof emsg - 1);
    emsg[sizeof emsg - 1] = 0;
    int rc = compare_extract(&s, obj, command, emsg, sizeof emsg);
    snprintf(got, sizeof got, "%s", dump(&s));
    compare_side_free(&s);
    cJSON_Delete(obj);
    return rc;
}

/* The object gives want (rc 0); and with each of its reallocs failing in
 * turn, out of memory (-2), until a run makes fewer reallocs than that. */
static void extract_ok(const char *json, const char *want)
{
    assert_int_equal(extract(json), 0);
    assert_string_equal(got, want);
    for (long i = 1;; i++) {
        inj_arm(INJ_REALLOC, 0, i);
        int rc = extract(json);
        int fired = inj.fired;
        inj_off();
        if (!fired) {
            assert_true(i > 1 || !want[0]);   /* a group was made: some realloc failed */
            assert_int_equal(rc, 0);
            assert_string_equal(got, want);
            break;
        }
        if (rc != -2)
            fail_msg("realloc %ld failing: compare_extract gave %d, not -2", i, rc);
    }
}

static void extract_bad(const char *json, const char *want_err)
{
    assert_int_equal(extract(json), -1);
    assert_string_equal(emsg, want_err);
    assert_string_equal(got, "");
}

/* ---- compare_extract: run ---------------------------------------------- */

static void test_extract_run_every_word(void **st)
{
    (void)st;
    /* Every flag of the label; mmap 1 and threads 2 are the smallest that
     * name themselves; blob size 250000/100; the second run has no MB/s
     * (not a sample), p999 is absent (not a sample). */
    extract_ok("{\"command\":\"run\",\"options\":{\"order\":\"zipf\",\"cold\":true,\"update\":true,"
               "\"multitrans\":true,\"fsync\":true,\"nosync\":true,\"nocheckpoint\":true,"
               "\"mmap\":1,\"jmode\":\"wal\",\"synchronous\":\"off\",\"fadvise\":\"random\","
               "\"threads\":2,\"count\":500,\"max_id\":900,\"start\":7,\"cache_size\":2000,"
               "\"zipf\":1.25},"
               "\"result\":{\"op\":\"read\",\"store\":\"db\",\"api\":\"blob\",\"page_size\":8192,"
               "\"count\":100,\"bytes\":250000,\"runs\":[{\"us_per_blob\":2,\"mb_per_s\":30},"
               "{\"us_per_blob\":3},{\"us_per_blob\":0.5,\"mb_per_s\":20}],"
               "\"latency\":{\"count\":1,\"p50\":10,\"p99\":20}},"
               "\"bench\":{\"experiment\":\"read\",\"variant\":\"db-blob\"}}",
               "run read db/blob zipf cold update multitrans fsync nosync nocheckpoint mmap "
               "jmode=wal sync=off fadvise=random threads=2 [read/db-blob] {count=500~0 "
               "max_id=900~0 start=7~0 cache_size=2000~0 mmap=1~0 zipf=1.25~0 page_size=8192~0 "
               "blob size=2500~0.05} @t:1\n"
               "  us/blob|us|0: 2 3 0.5\n"
               "  MB/s|MB/s|1: 30 20\n"
               "  p50|us|0: 10\n"
               "  p99|us|0: 20\n");
}

static void test_extract_run_defaults(void **st)
{
    (void)st;
    /* Nothing given: "?" words, warm; count, max_id, cache_size default
     * to -1, start and mmap to 0, blob size 0 (no count); no sample. */
    extract_ok("{\"command\":\"run\",\"options\":{},\"result\":{}}",
               "run ? ?/? ? warm {count=-1~0 max_id=-1~0 start=0~0 cache_size=-1~0 mmap=0~0 "
               "blob size=0~0.05} @t:1\n");
    /* bytes without count, and count without bytes: blob size 0 */
    extract_ok("{\"command\":\"run\",\"options\":{\"cold\":false},\"result\":{\"bytes\":300}}",
               "run ? ?/? ? warm {count=-1~0 max_id=-1~0 start=0~0 cache_size=-1~0 mmap=0~0 "
               "blob size=0~0.05} @t:1\n");
    extract_ok("{\"command\":\"run\",\"options\":{},\"result\":{\"count\":4}}",
               "run ? ?/? ? warm {count=-1~0 max_id=-1~0 start=0~0 cache_size=-1~0 mmap=0~0 "
               "blob size=0~0.05} @t:1\n");
}

static void test_extract_run_edges(void **st)
{
    (void)st;
    /* threads 1 and a variant without experiment name nothing; zipf order
     * without zipf: 0; page_size present but null: 0; count 1: blob size
     * = bytes; an empty runs array: the result's own figures; a latency of
     * count 0: no sample. */
    extract_ok("{\"command\":\"run\",\"options\":{\"order\":\"zipf\",\"threads\":1},"
               "\"result\":{\"op\":\"write\",\"store\":\"files\",\"api\":\"sql\","
               "\"page_size\":null,\"count\":1,\"bytes\":4096,\"runs\":[],\"us_per_blob\":7,"
               "\"mb_per_s\":9,\"latency\":{\"count\":0,\"p50\":5,\"p99\":6,\"p999\":7}},"
               "\"bench\":{\"variant\":\"v\"}}",
               "run write files/sql zipf warm {count=-1~0 max_id=-1~0 start=0~0 cache_size=-1~0 "
               "mmap=0~0 zipf=0~0 page_size=0~0 blob size=4096~0.05} @t:1\n"
               "  us/blob|us|0: 7\n"
               "  MB/s|MB/s|1: 9\n");
    /* An order other than zipf: no zipf definition even with --zipf; an
     * experiment without variant: "[e]"; count 0: blob size 0; one run:
     * its figures, not the result's; a latency without count is one. */
    extract_ok("{\"command\":\"run\",\"options\":{\"order\":\"random\",\"zipf\":2,\"mmap\":0},"
               "\"result\":{\"op\":\"read\",\"store\":\"db\",\"api\":\"blob\",\"count\":0,"
               "\"bytes\":100,\"runs\":[{\"us_per_blob\":4,\"mb_per_s\":8}],\"us_per_blob\":99,"
               "\"latency\":{\"p50\":1,\"p99\":2,\"p999\":3}},\"bench\":{\"experiment\":\"e\"}}",
               "run read db/blob random warm [e] {count=-1~0 max_id=-1~0 start=0~0 "
               "cache_size=-1~0 mmap=0~0 blob size=0~0.05} @t:1\n"
               "  us/blob|us|0: 4\n"
               "  MB/s|MB/s|1: 8\n"
               "  p50|us|0: 1\n"
               "  p99|us|0: 2\n"
               "  p99.9|us|0: 3\n");
}

static void test_extract_run_refused(void **st)
{
    (void)st;
    extract_bad("{\"command\":\"run\",\"result\":{}}", "run without options or result");
    extract_bad("{\"command\":\"run\",\"options\":{}}", "run without options or result");
    extract_bad("{\"command\":\"run\",\"options\":[],\"result\":{}}",
                "run without options or result");
}

/* ---- compare_extract: shortener bench ------------------------------------ */

static void test_extract_bench(void **st)
{
    (void)st;
    /* One group a configuration: the track configuration is defined by its
     * track_size too; a configuration without name is "?" and has none;
     * rounds or, without them, the configuration's own lookups/s; the
     * bench record's experiment only ("[cache]"). */
    extract_ok("{\"command\":\"shortener bench\",\"options\":{\"cold\":true,\"threads\":4,"
               "\"lookups\":1000,\"zipf\":0.9,\"miss\":0.1,\"track_size\":64},"
               "\"result\":{\"links\":5000,\"configs\":["
               "{\"config\":\"track-lru\",\"schema\":\"v2\",\"runs\":[{\"lookups_per_s\":100},"
               "{\"lookups_per_s\":200}],\"latency\":{\"count\":3,\"p50\":1,\"p99\":2,\"p999\":3}},"
               "{\"config\":\"nocache\",\"lookups_per_s\":50},"
               "{\"schema\":\"v1\",\"runs\":[{\"lookups_per_s\":7}]}]},"
               "\"bench\":{\"experiment\":\"cache\",\"variant\":\"ignored\"}}",
               "bench track-lru cold threads=4 [cache] {lookups=1000~0 links=5000~0 zipf=0.9~0 "
               "miss=0.1~0 track_size=64~0 schema='v2'} @t:1\n"
               "  lookups/s|1/s|1: 100 200\n"
               "  p50|us|0: 1\n"
               "  p99|us|0: 2\n"
               "  p99.9|us|0: 3\n"
               "bench nocache cold threads=4 [cache] {lookups=1000~0 links=5000~0 zipf=0.9~0 "
               "miss=0.1~0 schema='null'} @t:1\n"
               "  lookups/s|1/s|1: 50\n"
               "bench ? cold threads=4 [cache] {lookups=1000~0 links=5000~0 zipf=0.9~0 "
               "miss=0.1~0 schema='v1'} @t:1\n"
               "  lookups/s|1/s|1: 7\n");
    /* Defaults: lookups and links -1, zipf, miss and track_size 0; threads
     * 1 names nothing. */
    extract_ok("{\"command\":\"shortener bench\",\"options\":{\"threads\":1},"
               "\"result\":{\"configs\":[{\"config\":\"track\"}]}}",
               "bench track warm {lookups=-1~0 links=-1~0 zipf=0~0 miss=0~0 track_size=0~0 "
               "schema='null'} @t:1\n");
    extract_bad("{\"command\":\"shortener bench\",\"result\":{\"configs\":[]}}",
                "shortener bench without options or result.configs");
    extract_bad("{\"command\":\"shortener bench\",\"options\":{},\"result\":{}}",
                "shortener bench without options or result.configs");
}

/* ---- compare_extract: shortener load ------------------------------------- */

static void test_extract_load(void **st)
{
    (void)st;
    /* The bench record's experiment and config as plain words; c from
     * connections; rate, create ratio and zipf named when given (and > 0);
     * duration mode is defined by duration, not tasks. Request kinds that
     * ran (requests > 0; get ran none) give their percentiles. */
    extract_ok("{\"command\":\"shortener load\",\"options\":{\"connections\":8,\"threads\":5,"
               "\"rate\":500,\"create_ratio\":0.25,\"zipf\":0.8,\"mode\":\"duration\","
               "\"duration\":10,\"tasks\":99,\"gets\":3,\"workers\":2},"
               "\"result\":{\"requests_per_s\":1234,\"latency_from\":\"send\",\"by_type\":{"
               "\"all\":{\"requests\":10,\"latency\":{\"count\":10,\"p50\":100,\"p99\":200,"
               "\"p999\":300}},"
               "\"get\":{\"requests\":0,\"latency\":{\"count\":5,\"p50\":1,\"p99\":2,\"p999\":3}},"
               "\"post\":{\"requests\":1,\"latency\":{\"count\":1,\"p50\":4,\"p99\":5,"
               "\"p999\":6}}}},"
               "\"bench\":{\"experiment\":\"mix\",\"config\":\"cfgA\"}}",
               "load mix cfgA c=8 rate=500 create=0.25 zipf=0.8 {mode='duration' duration=10~0 "
               "gets=3~0 workers=2~0 latency_from='send'} @t:1\n"
               "  requests/s|1/s|1: 1234\n"
               "  p50 all|us|0: 100\n"
               "  p99 all|us|0: 200\n"
               "  p99.9 all|us|0: 300\n"
               "  p50 post|us|0: 4\n"
               "  p99 post|us|0: 5\n"
               "  p99.9 post|us|0: 6\n");
    /* c from threads without connections; a rate that is not a number, a
     * create ratio and zipf of 0 name nothing; without mode it is defined
     * by tasks; a kind without a request count did not run. */
    extract_ok("{\"command\":\"shortener load\",\"options\":{\"threads\":3,\"rate\":null,"
               "\"create_ratio\":0,\"zipf\":0},\"result\":{\"by_type\":{\"get\":{\"latency\":"
               "{\"count\":2,\"p50\":9,\"p99\":9,\"p999\":9}}}}}",
               "load c=3 {mode='null' tasks=-1~0 gets=-1~0 workers=-1~0 latency_from='null'} "
               "@t:1\n");
    /* duration mode without a duration: -1 */
    extract_ok("{\"command\":\"shortener load\",\"options\":{\"mode\":\"duration\"},\"result\":{}}",
               "load c=0 {mode='duration' duration=-1~0 gets=-1~0 workers=-1~0 "
               "latency_from='null'} @t:1\n");
    /* neither connections nor threads: c=0 */
    extract_ok("{\"command\":\"shortener load\",\"options\":{\"mode\":\"tasks\"},\"result\":{}}",
               "load c=0 {mode='tasks' tasks=-1~0 gets=-1~0 workers=-1~0 latency_from='null'} "
               "@t:1\n");
    extract_bad("{\"command\":\"shortener load\",\"result\":{}}",
                "shortener load without options or result");
    extract_bad("{\"command\":\"shortener load\",\"options\":{}}",
                "shortener load without options or result");
}

static void test_extract_capacity(void **st)
{
    (void)st;
    /* The objective (each percentile and bound) and connections are in the
     * label, workers define it; found: the capacity and both ends. */
    extract_ok("{\"command\":\"shortener load\",\"options\":{\"mode\":\"capacity\","
               "\"connections\":30,\"workers\":4,\"slo\":[{\"percentile\":\"p99\","
               "\"bound_us\":5000},{\"bound_us\":250}]},\"result\":{\"capacity\":"
               "{\"outcome\":\"found\",\"rate_per_s\":150,\"lo_per_s\":140,\"hi_per_s\":160}},"
               "\"bench\":{\"experiment\":\"cap\",\"config\":\"c1\"}}",
               "load capacity cap c1 p99<=5000us ?<=250us c=30 {workers=4~0} @t:1\n"
               "  capacity|1/s|1: 150\n"
               "  capacity low end|1/s|1: 140\n"
               "  capacity high end|1/s|1: 160\n");
    /* at the generator's limit: counted, though here without figures (a
     * high end that is not a number is none); bound and connections 0. */
    extract_ok("{\"command\":\"shortener load\",\"options\":{\"mode\":\"capacity\","
               "\"slo\":[{\"percentile\":\"p50\"}]},\"result\":{\"capacity\":"
               "{\"outcome\":\"at_rate_max\",\"hi_per_s\":null}}}",
               "load capacity p50<=0us c=0 {workers=-1~0} @t:1\n");
    extract_ok("{\"command\":\"shortener load\",\"options\":{\"mode\":\"capacity\"},"
               "\"result\":{\"capacity\":{\"outcome\":\"at_rate_max\",\"rate_per_s\":9,"
               "\"lo_per_s\":8}}}",
               "load capacity c=0 {workers=-1~0} @t:1\n"
               "  capacity|1/s|1: 9\n"
               "  capacity low end|1/s|1: 8\n");
    /* no capacity found, or no outcome: no group, and no error */
    extract_ok("{\"command\":\"shortener load\",\"options\":{\"mode\":\"capacity\"},"
               "\"result\":{\"capacity\":{\"outcome\":\"first_step_failed\",\"rate_per_s\":9}}}",
               "");
    extract_ok("{\"command\":\"shortener load\",\"options\":{\"mode\":\"capacity\"},"
               "\"result\":{\"capacity\":{\"rate_per_s\":9}}}", "");
}

/* ---- compare_extract: sweep, space ----------------------------------------- */

static void test_extract_sweep_pages(void **st)
{
    (void)st;
    /* Per page size, per row and layout a group; the files layout does not
     * depend on the page size (no page word) and is read from the first
     * page only; runs_us, or the one median when runs_us is not a non-empty
     * array; a non-number round is no sample; the crossover its own group. */
    extract_ok("{\"command\":\"sweep\",\"options\":{\"total\":1000000,\"mmap\":0,\"cold\":true,"
               "\"update\":false,\"order\":\"random\"},\"pages\":["
               "{\"pagesize\":4096,\"rows\":["
               "{\"size\":1000,\"count\":50,\"sql\":{\"runs_us\":[1,2]},\"blob\":{\"us_per_blob\":3},"
               "\"files\":{\"runs_us\":[4],\"us_per_blob\":44}},"
               "{\"size\":2000,\"sql\":{\"runs_us\":[],\"us_per_blob\":5},"
               "\"blob\":{\"runs_us\":{\"a\":8},\"us_per_blob\":2},\"files\":7}],"
               "\"crossover\":{\"size\":1500}},"
               "{\"pagesize\":8192,\"rows\":[{\"size\":1000,\"count\":50,"
               "\"blob\":{\"runs_us\":[\"x\",6]},\"files\":{\"us_per_blob\":9}}]}]}",
               "sweep size=1000 page=4096 sql {total=1e+06~0 mmap=0~0 cold=1~0 update=0~0 "
               "order='random' count=50~0} @t:1\n"
               "  us/blob|us|0: 1 2\n"
               "sweep size=1000 page=4096 blob {total=1e+06~0 mmap=0~0 cold=1~0 update=0~0 "
               "order='random' count=50~0} @t:1\n"
               "  us/blob|us|0: 3\n"
               "sweep size=1000 files {total=1e+06~0 mmap=0~0 cold=1~0 update=0~0 "
               "order='random' count=50~0} @t:1\n"
               "  us/blob|us|0: 4\n"
               "sweep size=2000 page=4096 sql {total=1e+06~0 mmap=0~0 cold=1~0 update=0~0 "
               "order='random' count=-1~0} @t:1\n"
               "  us/blob|us|0: 5\n"
               "sweep size=2000 page=4096 blob {total=1e+06~0 mmap=0~0 cold=1~0 update=0~0 "
               "order='random' count=-1~0} @t:1\n"
               "  us/blob|us|0: 2\n"
               "sweep page=4096 {total=1e+06~0 mmap=0~0 cold=1~0 update=0~0 order='random'} @t:1\n"
               "  crossover|bytes|0: 1500\n"
               "sweep size=1000 page=8192 blob {total=1e+06~0 mmap=0~0 cold=1~0 update=0~0 "
               "order='random' count=50~0} @t:1\n"
               "  us/blob|us|0: 6\n");
    /* a page without pagesize is page 0, a row without size size 0 */
    extract_ok("{\"command\":\"sweep\",\"options\":{\"update\":true},\"pages\":[{\"rows\":"
               "[{\"blob\":{\"us_per_blob\":1}}]}]}",
               "sweep size=0 page=0 blob {total=-1~0 mmap=0~0 cold=0~0 update=1~0 order='null' "
               "count=-1~0} @t:1\n"
               "  us/blob|us|0: 1\n");
    extract_ok("{\"command\":\"sweep\",\"options\":{},\"pages\":[]}", "");
    /* a layout without figures: a group without samples; a page with
     * only a crossover */
    extract_ok("{\"command\":\"sweep\",\"options\":{},\"pages\":[{\"pagesize\":4096,"
               "\"rows\":[],\"crossover\":{\"size\":1500}},{\"pagesize\":512,"
               "\"rows\":[{\"size\":3,\"sql\":{}}]}]}",
               "sweep page=4096 {total=-1~0 mmap=0~0 cold=0~0 update=0~0 order='null'} @t:1\n"
               "  crossover|bytes|0: 1500\n"
               "sweep size=3 page=512 sql {total=-1~0 mmap=0~0 cold=0~0 update=0~0 order='null' "
               "count=-1~0} @t:1\n");
}

static void test_extract_sweep_old(void **st)
{
    (void)st;
    /* Before --page-sizes: the rows and crossover at the top, the page size
     * in the options; files included. */
    extract_ok("{\"command\":\"sweep\",\"options\":{\"pagesize\":1024,\"mmap\":65536},"
               "\"rows\":[{\"size\":10,\"files\":{\"us_per_blob\":1},\"sql\":{\"us_per_blob\":2}}],"
               "\"crossover\":{\"size\":\"n/a\"}}",
               "sweep size=10 page=1024 sql {total=-1~0 mmap=65536~0 cold=0~0 update=0~0 "
               "order='null' count=-1~0} @t:1\n"
               "  us/blob|us|0: 2\n"
               "sweep size=10 files {total=-1~0 mmap=65536~0 cold=0~0 update=0~0 order='null' "
               "count=-1~0} @t:1\n"
               "  us/blob|us|0: 1\n");
    extract_ok("{\"command\":\"sweep\",\"options\":{},\"rows\":[{\"sql\":{\"us_per_blob\":1}}]}",
               "sweep size=0 page=0 sql {total=-1~0 mmap=0~0 cold=0~0 update=0~0 order='null' "
               "count=-1~0} @t:1\n"
               "  us/blob|us|0: 1\n");
    /* only a crossover (the first group made: out of memory there too) */
    extract_ok("{\"command\":\"sweep\",\"options\":{\"pagesize\":2048},\"rows\":[],"
               "\"crossover\":{\"size\":1500}}",
               "sweep page=2048 {total=-1~0 mmap=0~0 cold=0~0 update=0~0 order='null'} @t:1\n"
               "  crossover|bytes|0: 1500\n");
    extract_bad("{\"command\":\"sweep\",\"options\":{}}", "sweep without options or rows");
    extract_bad("{\"command\":\"sweep\",\"pages\":[]}", "sweep without options or rows");
}

static void test_extract_space(void **st)
{
    (void)st;
    /* One group a layout; its content within 5% defines it. */
    extract_ok("{\"command\":\"space\",\"layouts\":[{\"layout\":\"db\",\"files\":1,"
               "\"content_bytes\":1000,\"total_bytes\":4096},{\"total_bytes\":10},"
               "{\"layout\":\"files\"}]}",
               "space db {files=1~0 content_bytes=1000~0.05} @t:1\n"
               "  total|bytes|0: 4096\n"
               "space ? {files=-1~0 content_bytes=-1~0.05} @t:1\n"
               "  total|bytes|0: 10\n"
               "space files {files=-1~0 content_bytes=-1~0.05} @t:1\n");
    extract_bad("{\"command\":\"space\"}", "space without layouts");
}

static void test_extract_commands(void **st)
{
    (void)st;
    /* the commands whose output measures nothing: 1, no group */
    const char *quiet[] = {"init", "stat", "export", "compare", "shortener init",
                           "shortener keys"};
    for (size_t i = 0; i < sizeof quiet / sizeof quiet[0]; i++) {
        char json[100];
        snprintf(json, sizeof json, "{\"command\":\"%s\",\"options\":{},\"result\":{}}", quiet[i]);
        assert_int_equal(extract(json), 1);
        assert_string_equal(got, "");
    }
    extract_bad("{\"command\":\"shortener serve\"}", "unknown command \"shortener serve\"");
    /* a long name is cut at 60 characters */
    extract_bad("{\"command\":\"0123456789012345678901234567890123456789012345678901234567890123456789\"}",
                "unknown command \"012345678901234567890123456789012345678901234567890123456789\"");
}

/* ---- compare_read: JSON lookups, keys, groups ------------------------------- */

static void test_json_lookups(void **st)
{
    (void)st;
    cJSON *o = cJSON_Parse("{\"n\":2.5,\"s\":\"str\",\"t\":true,\"f\":false,\"z\":null,\"one\":1}");
    assert_non_null(o);
    assert_ptr_equal(compare_j(o, "n"), cJSON_GetObjectItemCaseSensitive(o, "n"));
    assert_null(compare_j(o, "N"));
    assert_null(compare_j(o, "missing"));
    assert_null(compare_j(NULL, "n"));
    assert_true(compare_jnum(o, "n", 7) == 2.5);
    assert_true(compare_jnum(o, "s", 7) == 7);
    assert_true(compare_jnum(o, "z", 7) == 7);
    assert_true(compare_jnum(o, "missing", -1) == -1);
    assert_true(compare_jnum(NULL, "n", 3) == 3);
    assert_string_equal(compare_jstr(o, "s"), "str");
    assert_null(compare_jstr(o, "n"));
    assert_null(compare_jstr(NULL, "s"));
    assert_int_equal(compare_jtrue(o, "t"), 1);
    assert_int_equal(compare_jtrue(o, "f"), 0);
    assert_int_equal(compare_jtrue(o, "one"), 0);
    assert_int_equal(compare_jtrue(o, "s"), 0);
    assert_int_equal(compare_jtrue(o, "missing"), 0);
    cJSON_Delete(o);
    /* Only an object has members: an array given a named item (cJSON
     * allows it) still has none. */
    cJSON *a = cJSON_CreateArray();
    cJSON_AddItemToObject(a, "x", cJSON_CreateNumber(5));
    assert_null(compare_j(a, "x"));
    assert_true(compare_jnum(a, "x", 7) == 7);
    cJSON_Delete(a);
}

static void test_key_label(void **st)
{
    (void)st;
    struct compare_key k;
    memset(&k, 0x5a, sizeof k);   /* init owes nothing to what was there */
    compare_key_init(&k, "run");
    assert_string_equal(k.label, "run");
    assert_int_equal(k.ndefs, 0);
    compare_key_word(&k, "%s=%d", "a", 5);
    assert_string_equal(k.label, "run a=5");
    /* At 157 characters a word still gets its space and one character
     * (159 and the NUL fill the 160); at 158 nothing is appended. */
    char l[160];
    memset(l, 'a', 157);
    l[157] = 0;
    compare_key_init(&k, l);
    compare_key_word(&k, "%s", "xyz");
    assert_int_equal(strlen(k.label), 159);
    assert_string_equal(k.label + 155, "aa x");
    memset(l, 'a', 158);
    l[158] = 0;
    compare_key_init(&k, l);
    compare_key_word(&k, "%s", "xyz");
    assert_string_equal(k.label, l);
}

static void test_key_defs(void **st)
{
    (void)st;
    static const char *const names[13] = {"d0", "d1", "d2", "d3", "d4", "d5", "d6",
                                          "d7", "d8", "d9", "d10", "d11", "d12"};
    struct compare_key k;
    compare_key_init(&k, "x");
    for (int i = 0; i < 13; i++)
        compare_key_num(&k, names[i], i, 0);
    compare_key_str(&k, "s", "over");
    assert_int_equal(k.ndefs, COMPARE_MAX_DEFS);   /* 12: the 13th and "s" are dropped */
    char buf[80];
    compare_def_text(&k, "d11", buf, sizeof buf);
    assert_string_equal(buf, "11");
    compare_def_text(&k, "d12", buf, sizeof buf);
    assert_string_equal(buf, "absent");
    compare_def_text(&k, "s", buf, sizeof buf);
    assert_string_equal(buf, "absent");
    compare_key_init(&k, "y");
    for (int i = 0; i < 13; i++)
        compare_key_str(&k, names[i], names[i]);
    assert_int_equal(k.ndefs, COMPARE_MAX_DEFS);
    compare_def_text(&k, "d12", buf, sizeof buf);
    assert_string_equal(buf, "absent");

    /* the text of each kind: %.10g for numbers, the string, NULL as "null" */
    compare_key_init(&k, "z");
    compare_key_num(&k, "big", 1234567.891, 0);
    compare_key_num(&k, "sum", 0.1 + 0.2, 0);
    compare_key_str(&k, "mode", "wal");
    compare_key_str(&k, "none", NULL);
    compare_key_num(&k, "neg", -1, 0);
    const char *want[][2] = {{"big", "1234567.891"}, {"sum", "0.3"}, {"mode", "wal"},
                             {"none", "null"}, {"neg", "-1"}, {"other", "absent"}};
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        memset(buf, 'q', sizeof buf - 1);
        buf[sizeof buf - 1] = 0;
        compare_def_text(&k, want[i][0], buf, sizeof buf);
        assert_string_equal(buf, want[i][1]);
    }
    assert_int_equal(k.defs[0].is_str, 0);
    assert_int_equal(k.defs[2].is_str, 1);
}

/* a key "L" with defs given as (name, value, tol) or (name, NULL string) */
static void num2(struct compare_key *k, const char *n1, double v1, double t1, const char *n2,
                 double v2, double t2)
{
    compare_key_init(k, "L");
    if (n1)
        compare_key_num(k, n1, v1, t1);
    if (n2)
        compare_key_num(k, n2, v2, t2);
}

static void test_key_differs(void **st)
{
    (void)st;
    struct compare_key a, b;
    num2(&a, "x", 3, 0, "y", 1, 0);
    num2(&b, "x", 3, 0, "y", 1, 0);
    assert_null(compare_key_differs(&a, &b));
    num2(&b, "x", 3, 0, "y", 2, 0);
    assert_string_equal(compare_key_differs(&a, &b), "y");
    num2(&b, "x", 4, 0, "y", 2, 0);
    assert_string_equal(compare_key_differs(&a, &b), "x");   /* the first in a's order */
    /* |4 - 2| = 2 = 0.5 * max(|4|, |2|): equal at the edge; 1.99 is beyond */
    num2(&a, "blob", 4, 0.5, NULL, 0, 0);
    num2(&b, "blob", 2, 0.5, NULL, 0, 0);
    assert_null(compare_key_differs(&a, &b));
    num2(&b, "blob", 1.99, 0.5, NULL, 0, 0);
    assert_string_equal(compare_key_differs(&a, &b), "blob");
    /* the larger tolerance of the two: 104 is within 5% of 100 */
    num2(&a, "x", 100, 0.05, NULL, 0, 0);
    num2(&b, "x", 104, 0, NULL, 0, 0);
    assert_null(compare_key_differs(&a, &b));
    assert_null(compare_key_differs(&b, &a));
    /* relative to the larger value: 105.2 - 100 = 5.2 <= 0.05 * 105.2 = 5.26
     * (it would not be relative to 100); 106 - 100 = 6 > 5.3 */
    num2(&b, "x", 105.2, 0.05, NULL, 0, 0);
    assert_null(compare_key_differs(&a, &b));
    assert_null(compare_key_differs(&b, &a));
    num2(&b, "x", 106, 0.05, NULL, 0, 0);
    assert_string_equal(compare_key_differs(&a, &b), "x");
    num2(&a, "x", -100, 0.05, NULL, 0, 0);
    num2(&b, "x", -104, 0.05, NULL, 0, 0);
    assert_null(compare_key_differs(&a, &b));
    /* a number never equals a string, whatever they read */
    num2(&a, "x", 0, 0, NULL, 0, 0);
    compare_key_init(&b, "L");
    compare_key_str(&b, "x", "0");
    assert_string_equal(compare_key_differs(&a, &b), "x");
    assert_string_equal(compare_key_differs(&b, &a), "x");
    compare_key_init(&a, "L");
    compare_key_str(&a, "x", "0");
    assert_null(compare_key_differs(&a, &b));
    compare_key_init(&a, "L");
    compare_key_str(&a, "x", "1");
    assert_string_equal(compare_key_differs(&a, &b), "x");
    /* one side lacks a definition: that one is named */
    num2(&a, "x", 1, 0, "y", 1, 0);
    num2(&b, "x", 1, 0, NULL, 0, 0);
    assert_string_equal(compare_key_differs(&a, &b), "y");
    num2(&a, "x", 1, 0, NULL, 0, 0);
    num2(&b, "z", 1, 0, "x", 1, 0);
    assert_string_equal(compare_key_differs(&a, &b), "z");
    /* no definitions at all: equal */
    compare_key_init(&a, "L");
    compare_key_init(&b, "M");
    assert_null(compare_key_differs(&a, &b));
}

/* the index in s of the group compare_side_group gives for k */
static long group_at(struct compare_side *s, const struct compare_key *k)
{
    struct compare_group *g = compare_side_group(s, k);
    assert_non_null(g);
    return (long)(g - s->g);
}

static void test_side_groups(void **st)
{
    (void)st;
    struct compare_side s;
    memset(&s, 0, sizeof s);
    struct compare_key k1, k2, k3;
    num2(&k1, "count", 1, 0, NULL, 0, 0);
    num2(&k2, "count", 2, 0, NULL, 0, 0);
    num2(&k3, "count", 1, 0, NULL, 0, 0);
    snprintf(k3.label, sizeof k3.label, "M");
    snprintf(s.where, sizeof s.where, "f:1");
    struct compare_group *g1 = compare_side_group(&s, &k1);
    assert_non_null(g1);
    assert_int_equal(s.ng, 1);
    snprintf(s.where, sizeof s.where, "f:2");
    assert_int_equal(group_at(&s, &k1), 0);   /* same label and defs */
    assert_int_equal(group_at(&s, &k2), 1);   /* same label, other count */
    assert_int_equal(group_at(&s, &k3), 2);   /* other label */
    assert_int_equal(group_at(&s, &k1), 0);
    assert_int_equal(group_at(&s, &k2), 1);
    assert_int_equal(s.ng, 3);
    assert_string_equal(dump(&s), "L {count=1~0} @f:1\nL {count=2~0} @f:2\nM {count=1~0} @f:2\n");
    compare_side_free(&s);
    /* A freed side is empty, and can be filled and freed again. */
    assert_null(s.g);
    assert_int_equal(s.ng, 0);
    assert_int_equal(s.gcap, 0);
    assert_int_equal(group_at(&s, &k1), 0);
    assert_int_equal(compare_group_add(&s.g[0], "m", "us", 0, 1), 0);
    compare_side_free(&s);
    compare_side_free(&s);
    assert_int_equal(s.ng, 0);

    /* 33 groups: past the first allocation of 32, each found again */
    struct compare_key k;
    for (int i = 0; i < 33; i++) {
        compare_key_init(&k, "g");
        compare_key_word(&k, "%d", i);
        assert_int_equal(group_at(&s, &k), i);
    }
    for (int i = 32; i >= 0; i--) {
        compare_key_init(&k, "g");
        compare_key_word(&k, "%d", i);
        assert_int_equal(group_at(&s, &k), i);
    }
    assert_int_equal(s.ng, 33);
    compare_side_free(&s);
    /* out of memory: NULL, the side as it was */
    inj_arm(INJ_REALLOC, 0, 1);
    assert_null(compare_side_group(&s, &k1));
    inj_off();
    assert_int_equal(s.ng, 0);
}

static void test_group_add(void **st)
{
    (void)st;
    struct compare_side s;
    memset(&s, 0, sizeof s);
    struct compare_key k;
    compare_key_init(&k, "g");
    struct compare_group *g = compare_side_group(&s, &k);
    assert_int_equal(compare_group_add(g, "us/blob", "us", 0, 2), 0);
    /* not samples: zero, negative, not finite; dropped, and no error */
    const double bad[] = {0, -1, NAN, INFINITY, -INFINITY};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(compare_group_add(g, "us/blob", "us", 0, bad[i]), 0);
    assert_int_equal(compare_group_add(g, "zero", "us", 0, 0), 0);   /* no metric made */
    assert_int_equal(compare_group_add(g, "us/blob", "us", 0, 0.5), 0);
    assert_int_equal(compare_group_add(g, "us/blob", "us", 0, 1), 0);
    assert_int_equal(compare_group_add(g, "MB/s", "MB/s", 1, 3), 0);
    /* the first add names the unit and direction */
    assert_int_equal(compare_group_add(g, "us/blob", "ms", 1, 4), 0);
    assert_int_equal(compare_group_add(g, "a", "x", 0, 1), 0);
    assert_int_equal(compare_group_add(g, "b", "x", 0, 1), 0);
    assert_int_equal(compare_group_add(g, "c", "x", 1, 1), 0);   /* a 5th metric */
    for (int i = 2; i <= 9; i++)
        assert_int_equal(compare_group_add(g, "a", "x", 0, i), 0);   /* a 9th sample */
    assert_string_equal(dump(&s), "g {} @\n"
                                  "  us/blob|us|0: 2 0.5 1 4\n"
                                  "  MB/s|MB/s|1: 3\n"
                                  "  a|x|0: 1 2 3 4 5 6 7 8 9\n"
                                  "  b|x|0: 1\n"
                                  "  c|x|1: 1\n");
    compare_side_free(&s);
    /* out of memory for the metrics, then for the samples: -1 */
    g = compare_side_group(&s, &k);
    inj_arm(INJ_REALLOC, 0, 1);
    assert_int_equal(compare_group_add(g, "m", "us", 0, 1), -1);
    inj_off();
    assert_int_equal(g->nm, 0);
    inj_arm(INJ_REALLOC, 0, 2);
    assert_int_equal(compare_group_add(g, "m", "us", 0, 1), -1);
    inj_off();
    assert_int_equal(compare_group_add(g, "m", "us", 0, 7), 0);
    assert_string_equal(dump(&s), "g {} @\n  m|us|0: 7\n");
    compare_side_free(&s);
}

/* ---- compare_read: files, directories, stdin ------------------------------ */

static struct compare_side side;

/* compare_side_read of path into side (freed first), stderr in err */
static int read_side(const char *path)
{
    compare_side_free(&side);
    memset(&side, 0, sizeof side);
    struct capture c;
    capture_begin(&c);
    int rc = compare_side_read(&side, path);
    capture_end(&c);
    return rc;
}

static const char run_line[] =
    "{\"command\":\"run\",\"options\":{\"order\":\"random\",\"count\":2000},"
    "\"result\":{\"op\":\"read\",\"store\":\"db\",\"api\":\"sql\",\"runs\":[{\"us_per_blob\":3}]}}";
static const char run_group[] =
    "run read db/sql random warm {count=2000~0 max_id=-1~0 start=0~0 cache_size=-1~0 "
    "mmap=0~0 blob size=0~0.05}";

static void test_read_lines(void **st)
{
    (void)st;
    char text[2000];
    /* blank lines of every kind of white space; a kvtest object (line 3);
     * another tool's record; a warm-up round; a command that measures
     * nothing; the last line without its newline */
    snprintf(text, sizeof text,
             "\n \t\r\n%s\n{\"tool\":\"wrk\",\"requests_per_s\":1}\n"
             "{\"command\":\"run\",\"bench\":{\"warmup\":true}}\n"
             "{\"command\":\"stat\"}",
             run_line);
    const char *f = wfile("lines.jsonl", text);
    assert_int_equal(read_side(f), 0);
    assert_string_equal(err, "");
    assert_string_equal(side.name, f);
    assert_int_equal(side.objects, 1);
    assert_int_equal(side.warmups, 1);
    assert_int_equal(side.others, 2);
    char want[600];
    snprintf(want, sizeof want, "%s @%s:3\n  us/blob|us|0: 3\n", run_group, f);
    assert_string_equal(dump(&side), want);

    struct { const char *text, *msg; int rc; } bad[] = {
        {"x", "1: not a JSON object (a line of kvtest --json output was expected)", 2},
        {"\n\n[1]\n", "3: not a JSON object (a line of kvtest --json output was expected)", 2},
        {"{\"count\":3}\n", "1: not kvtest JSON (no \"command\")", 2},
        {"{\"command\":\"run\"}\n", "1: not kvtest JSON (run without options or result)", 2},
        {"{\"command\":\"bogus\"}\n", "1: not kvtest JSON (unknown command \"bogus\")", 2},
        /* the first bad line ends the reading */
        {"{\"count\":3}\n{\"command\":\"space\",\"layouts\":[]}\n",
         "1: not kvtest JSON (no \"command\")", 2},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        f = wfile("bad.jsonl", bad[i].text);
        assert_int_equal(read_side(f), bad[i].rc);
        snprintf(want, sizeof want, "kvtest compare: %s:%s\n", f, bad[i].msg);
        assert_string_equal(err, want);
        assert_int_equal(side.objects + side.others, 0);
    }
    /* out of memory while extracting: exit status 1 */
    f = wfile("oom.jsonl", run_line);
    inj_arm_array(INJ_REALLOC, sizeof(struct compare_group), 1);
    assert_int_equal(read_side(f), 1);
    inj_off();
    assert_string_equal(err, "kvtest compare: out of memory\n");
}

static void mkdirs(const char *name)
{
    char cmd[600];
    snprintf(cmd, sizeof cmd, "mkdir -p '%s'", path_of(name));
    assert_int_equal(system(cmd), 0);
}

static int open_fds(void)
{
    int n = 0;
    char p[64];
    for (int fd = 0; fd < 1024; fd++) {
        snprintf(p, sizeof p, "/proc/self/fd/%d", fd);
        n += access(p, F_OK) == 0;
    }
    return n;
}

static void test_read_dirs(void **st)
{
    (void)st;
    char want[9000];
    int fds = open_fds();
    /* raw/ *.jsonl, all of them (in name order), not the directory's own */
    mkdirs("d1/raw");
    wfile("d1/raw/a.jsonl", run_line);
    wfile("d1/raw/b.jsonl", "{\"command\":\"space\",\"layouts\":[{\"layout\":\"db\","
                            "\"total_bytes\":5}]}\n");
    wfile("d1/c.jsonl", "not read\n");
    assert_int_equal(read_side(path_of("d1")), 0);
    assert_int_equal(side.objects, 2);
    assert_int_equal(open_fds(), fds);   /* every file closed */
    snprintf(want, sizeof want, "%s @%s:1\n  us/blob|us|0: 3\n"
             "space db {files=-1~0 content_bytes=-1~0.05} @%s:1\n  total|bytes|0: 5\n",
             run_group, path_of("d1/raw/a.jsonl"), path_of("d1/raw/b.jsonl"));
    assert_string_equal(dump(&side), want);
    /* a file named raw is not raw/ */
    mkdirs("d2");
    wfile("d2/raw", "not read\n");
    wfile("d2/x.jsonl", run_line);
    assert_int_equal(read_side(path_of("d2")), 0);
    assert_int_equal(side.objects, 1);
    /* no .jsonl file */
    mkdirs("d3");
    assert_int_equal(read_side(path_of("d3")), 2);
    snprintf(want, sizeof want, "kvtest compare: %s: no .jsonl files in it\n", path_of("d3"));
    assert_string_equal(err, want);
    mkdirs("d4/raw");
    wfile("d4/x.jsonl", run_line);
    assert_int_equal(read_side(path_of("d4")), 2);
    snprintf(want, sizeof want, "kvtest compare: %s: no .jsonl files in raw/\n", path_of("d4"));
    assert_string_equal(err, want);
    /* the first bad file ends the reading */
    mkdirs("d5/raw");
    wfile("d5/raw/a.jsonl", "[]\n");
    wfile("d5/raw/b.jsonl", run_line);
    assert_int_equal(read_side(path_of("d5")), 2);
    snprintf(want, sizeof want, "kvtest compare: %s:1: not a JSON object (a line of kvtest "
             "--json output was expected)\n", path_of("d5/raw/a.jsonl"));
    assert_string_equal(err, want);
    assert_int_equal(side.objects, 0);
    /* a .jsonl that cannot be read */
    mkdirs("d6/raw/a.jsonl");
    assert_int_equal(read_side(path_of("d6")), 2);
    snprintf(want, sizeof want, "kvtest compare: %s: Is a directory\n",
             path_of("d6/raw/a.jsonl"));
    assert_string_equal(err, want);
    /* no such path */
    assert_int_equal(read_side(path_of("nope")), 2);
    snprintf(want, sizeof want, "kvtest compare: %s: No such file or directory\n",
             path_of("nope"));
    assert_string_equal(err, want);

    /* The pattern DIR/ *.jsonl must fit in 4096 bytes with its NUL: a directory named
     * by 4087 characters does, one of 4088 does not (a.json would match the
     * pattern cut at 4095). */
    mkdirs("d7");
    wfile("d7/x.jsonl", run_line);
    wfile("d7/a.json", run_line);
    char longp[4100];
    for (size_t want_len = 4087; want_len <= 4088; want_len++) {
        size_t n = (size_t)snprintf(longp, sizeof longp, "%s", path_of("d7"));
        while (n + 2 <= want_len)
            n += (size_t)snprintf(longp + n, sizeof longp - n, "/.");
        if (n < want_len)
            n += (size_t)snprintf(longp + n, sizeof longp - n, "/");
        assert_int_equal(strlen(longp), want_len);
        int rc = read_side(longp);
        if (want_len == 4087) {
            assert_int_equal(rc, 0);
            assert_int_equal(side.objects, 1);
        } else {
            /* "kvtest compare: DIR: path too long", cut by cli_usage at 1023 */
            assert_int_equal(rc, 2);
            assert_int_equal(side.objects, 0);
            snprintf(want, sizeof want, "kvtest compare: %s: path too long", longp);
            want[1023] = '\n', want[1024] = 0;
            assert_string_equal(err, want);
        }
    }
}

/* A directory glob cannot open (here: no descriptor left for it, which
 * even root cannot get past) is said to be unreadable, with the reason,
 * not taken for one without .jsonl files. */
static void test_read_dir_unlistable(void **st)
{
    (void)st;
    char want[4300];
    mkdirs("u1");
    wfile("u1/x.jsonl", "{\"command\":\"stat\"}\n");
    compare_side_free(&side);
    memset(&side, 0, sizeof side);
    struct capture c;
    capture_begin(&c);
    /* the lowest free descriptor becomes the limit: the next open fails */
    int lowest = dup(0);
    assert_true(lowest >= 0);
    close(lowest);
    struct rlimit old, low;
    assert_int_equal(getrlimit(RLIMIT_NOFILE, &old), 0);
    low = old;
    low.rlim_cur = (rlim_t)lowest;
    assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
    int rc = compare_side_read(&side, path_of("u1"));
    assert_int_equal(setrlimit(RLIMIT_NOFILE, &old), 0);
    capture_end(&c);
    assert_int_equal(rc, 2);
    snprintf(want, sizeof want, "kvtest compare: %s: cannot list its .jsonl files: %s\n",
             path_of("u1"), strerror(EMFILE));
    assert_string_equal(err, want);
    assert_int_equal(side.objects, 0);
}

static void test_read_stdin(void **st)
{
    (void)st;
    const char *f = wfile("in.jsonl", run_line);
    int fd = open(f, O_RDONLY);
    assert_true(fd >= 0);
    int si = dup(0);
    dup2(fd, 0);
    close(fd);
    clearerr(stdin);
    int rc = read_side("-");
    dup2(si, 0);
    close(si);
    clearerr(stdin);
    assert_int_equal(rc, 0);
    assert_int_equal(side.objects, 1);
    char want[600];
    snprintf(want, sizeof want, "%s @-:1\n  us/blob|us|0: 3\n", run_group);
    assert_string_equal(dump(&side), want);
    compare_side_free(&side);
}

/* ---- compare_out: the table ---------------------------------------------- */

struct out_row {
    const char *label, *metric, *unit;
    int hb;
    size_t nold, nnew;
    double o[3], n[3], r[3];   /* est, lo, hi */
    double p, padj;
    enum stats_verdict v;
    int paired;
};

/* rows of a hand-made table: groups and metrics in g and m */
static void out_rows(const struct out_row *in, size_t n, struct compare_group *g,
                     struct compare_metric *m, struct compare_row *rows)
{
    memset(g, 0, n * sizeof *g);
    memset(m, 0, n * sizeof *m);
    memset(rows, 0, n * sizeof *rows);
    for (size_t i = 0; i < n; i++) {
        compare_key_init(&g[i].key, in[i].label);
        m[i].name = in[i].metric, m[i].unit = in[i].unit, m[i].higher_better = in[i].hb;
        struct compare_row *r = &rows[i];
        r->go = r->gn = &g[i], r->mo = r->mn = &m[i];
        r->c.nold = in[i].nold, r->c.nnew = in[i].nnew;
        r->c.old = (struct stats_ci){in[i].o[0], in[i].o[1], in[i].o[2], 0};
        r->c.nw = (struct stats_ci){in[i].n[0], in[i].n[1], in[i].n[2], 0};
        r->c.ratio = (struct stats_ci){in[i].r[0], in[i].r[1], in[i].r[2], 0};
        r->c.p = in[i].p, r->c.p_adj = in[i].padj;
        r->verdict = in[i].v, r->tested = in[i].v != STATS_TOO_FEW, r->paired = in[i].paired;
    }
}

static void print_text(const struct compare_side *o, const struct compare_side *n,
                       const struct compare_row *rows, size_t nrows)
{
    struct capture c;
    capture_begin(&c);
    stack_dirty();
    compare_print_text(o, n, rows, nrows);
    capture_end(&c);
}

static void print_json(const struct compare_side *o, const struct compare_side *n,
                       const struct compare_row *rows, size_t nrows)
{
    char *argv[] = {"kvtest", "compare", "a", "b", "--json", NULL};
    cli_set_cmdline(5, argv);
    struct capture c;
    capture_begin(&c);
    assert_int_equal(compare_print_json(o, n, rows, nrows), 0);
    capture_end(&c);
}

static const struct out_row table7[] = {
    /* p 0.015873 reads 0.016 (%.2g) */
    {"run read db/sql random warm", "us/blob", "us", 0, 15, 15, {3, 1, 5}, {30, 10, 50},
     {10, 3.3333333333333335, 30}, 0.0079365, 0.015873, STATS_SLOWER, 0},
    /* from 10^4 up divided by 1000 with a suffix, up to T: 12500 12.5k,
     * 10000 10k, 1e16 (1e4 T) 1e+04T, 10009000 10.01M; a ratio in
     * [0.01, 100) has 3 decimals, else 3 digits: 0.01 0.010, 100 100 */
    {"load c=8", "requests/s", "1/s", 1, 12, 3, {12500, 10000, 1e16}, {9999, 10009000, 123.456},
     {0.01, 100, 0.009}, 1, 1, STATS_TOO_FEW, 0},
    {"x", "p50", "us", 0, 1, 1, {7, 7, 7}, {0.001234, 0.001234, 0.001234},
     {100.7, 99.9999, 1234.5}, 0.0001, 0.00012345, STATS_FASTER, 0},
    {"space db", "total", "bytes", 0, 4, 4, {1, 1, 1}, {1, 1, 1}, {1, 1, 1}, 1, 1, STATS_SAME, 0},
    {"bench track-lru cold", "lookups/s", "1/s", 1, 6, 7, {2, 1, 3}, {4, 3, 5}, {2, 1.5, 2.5},
     0.25, 0.5, STATS_SLOWER, 0},
    {"load capacity p99<=5000us c=30", "capacity", "1/s", 1, 4, 5, {150, 140, 160},
     {150, 140, 160}, {1, 0.5, 2}, 0.9, 0.9, STATS_TOO_FEW, 0},
    {"sweep page=4096", "crossover", "bytes", 0, 1, 1, {1500, 1500, 1500}, {2000, 2000, 2000},
     {4.0 / 3, 4.0 / 3, 4.0 / 3}, 1, 1, STATS_TOO_FEW, 0},
};

static void test_out_text(void **st)
{
    (void)st;
    struct compare_side o, n;
    memset(&o, 0, sizeof o), memset(&n, 0, sizeof n);
    o.name = "old.jsonl", o.objects = 2;
    n.name = "new.jsonl", n.objects = 3, n.warmups = 1;
    enum { N = sizeof table7 / sizeof table7[0] };
    struct compare_group g[N];
    struct compare_metric m[N];
    struct compare_row rows[N];
    out_rows(table7, N, g, m, rows);
    print_text(&o, &n, rows, N);
    /* Column widths: the widest cell or heading (30 15 5 19 29 23 7); words
     * left-aligned, numbers right-aligned, two spaces apart. A metric named
     * by its unit, or a rate (1/s), has no unit appended. */
    assert_string_equal(out,
        "OLD old.jsonl (2 results) vs NEW new.jsonl (3 results, 1 warm-up skipped)\n"
        "measurement                     metric               n  OLD median [95% CI]            NEW median [95% CI]         NEW/OLD [95% CI]        p  verdict\n"
        "run read db/sql random warm     us/blob          15/15             3 [1, 5]                    30 [10, 50]   10.000 [3.333, 30.000]    0.016  slower\n"
        "load c=8                        requests/s        12/3  12.5k [10k, 1e+04T]           9999 [10.01M, 123.5]       0.010 [100, 0.009]        1  too few samples\n"
        "x                               p50 us             1/1             7 [7, 7]  0.001234 [0.001234, 0.001234]  101 [100.000, 1.23e+03]  0.00012  faster\n"
        "space db                        total bytes        4/4             1 [1, 1]                       1 [1, 1]     1.000 [1.000, 1.000]        1  ~\n"
        "bench track-lru cold            lookups/s          6/7             2 [1, 3]                       4 [3, 5]     2.000 [1.500, 2.500]      0.5  slower\n"
        "load capacity p99<=5000us c=30  capacity           4/5       150 [140, 160]                 150 [140, 160]     1.000 [0.500, 2.000]      0.9  too few samples\n"
        "sweep page=4096                 crossover bytes    1/1    1500 [1500, 1500]              2000 [2000, 2000]     1.333 [1.333, 1.333]        1  too few samples\n"
        "7 rows: 1 faster, 2 slower, 1 ~, 3 too few samples (p: two-sided Mann-Whitney U, "
        "Holm-adjusted over the 4 rows with >= 4 a side)\n");
    assert_string_equal(err, "");

    /* paired: as the first row says */
    rows[0].paired = 1;
    print_text(&o, &n, rows, 2);
    assert_non_null(strstr(out, "(p: two-sided Wilcoxon signed-rank of the pairs, "
                                "Holm-adjusted over the 1 rows with >= 4 a side)\n"));
    rows[0].paired = 0, rows[1].paired = 1;
    print_text(&o, &n, rows, 2);
    assert_non_null(strstr(out, "(p: two-sided Mann-Whitney U, "));

    /* no rows: the headings at their own width */
    o.warmups = 2;
    print_text(&o, &n, NULL, 0);
    assert_string_equal(out,
        "OLD old.jsonl (2 results, 2 warm-up skipped) vs NEW new.jsonl (3 results, 1 warm-up skipped)\n"
        "measurement  metric  n  OLD median [95% CI]  NEW median [95% CI]  NEW/OLD [95% CI]  p  verdict\n"
        "0 rows: 0 faster, 0 slower, 0 ~, 0 too few samples (p: two-sided Mann-Whitney U, "
        "Holm-adjusted over the 0 rows with >= 4 a side)\n");
}

static void test_out_long_names(void **st)
{
    (void)st;
    /* A side's text is cut to COMPARE_WHERE_MAX + 64 - 1 = 363 characters:
     * a 400-character name shows its first 363, nothing after. */
    char on[401], nn[401], want[1000];
    memset(on, 'o', 400), memset(nn, 'n', 400);
    on[400] = nn[400] = 0;
    struct compare_side o, n;
    memset(&o, 0, sizeof o), memset(&n, 0, sizeof n);
    o.name = on, o.objects = 1, o.warmups = 2;
    n.name = nn, n.objects = 1, n.warmups = 0;
    /* Both names cut to len characters: the text starts with want (a
     * format of the two names). */
    static const struct { size_t len; const char *want; } cut[] = {
        {400, "OLD %.363s vs NEW %.363s\n"},
        /* 360 characters: " (" and one digit fit, then nothing */
        {360, "OLD %s (1 vs NEW %s (1\n"},
        /* 352: "NAME (1 results" is 363 characters: neither the warm-ups
         * nor ")" have room */
        {352, "OLD %s (1 results vs NEW %s (1 results\n"},
        /* 351: one character left, for ")" (NEW) or the "," of the
         * warm-ups (OLD) */
        {351, "OLD %s (1 results, vs NEW %s (1 results)\n"},
    };
    for (size_t i = 0; i < sizeof cut / sizeof cut[0]; i++) {
        on[cut[i].len] = nn[cut[i].len] = 0;
        print_text(&o, &n, NULL, 0);
        snprintf(want, sizeof want, cut[i].want, on, nn);
        if (strncmp(out, want, strlen(want)) != 0)
            fail_msg("names of %zu characters: got [%.80s...]", cut[i].len, out);
    }
}

/* s with its "env":{...}, member taken out (in place): where the figures
 * were measured and by which build differs from run to run; the rest of
 * the object must not. */
static char *drop_env(char *s)
{
    char *e = strstr(s, "\"env\":{");
    if (!e)
        return s;
    char *p = e + 7;   /* just after the '{' */
    int depth = 1, in_str = 0;
    for (; *p && depth > 0; p++) {
        if (in_str) {
            if (*p == '\\' && p[1])
                p++;
            else if (*p == '"')
                in_str = 0;
        } else if (*p == '"') {
            in_str = 1;
        } else if (*p == '{') {
            depth++;
        } else if (*p == '}') {
            depth--;
        }
    }
    if (*p == ',')
        p++;
    memmove(e, p, strlen(p) + 1);
    return s;
}

static void test_out_json(void **st)
{
    (void)st;
    struct compare_side o, n;
    memset(&o, 0, sizeof o), memset(&n, 0, sizeof n);
    o.name = "old.jsonl", n.name = "new.jsonl";
    struct out_row two[2] = {table7[0], table7[2]};
    two[0].paired = 1;
    two[0].r[1] = 3.5;
    struct compare_group g[2];
    struct compare_metric m[2];
    struct compare_row rows[2];
    out_rows(two, 2, g, m, rows);
    print_json(&o, &n, rows, 2);
    assert_string_equal(drop_env(out),
        "{\"command\":\"compare\",\"schema_version\":1,\"cmdline\":\"kvtest compare a b --json\",\"old\":\"old.jsonl\","
        "\"new\":\"new.jsonl\",\"paired\":true,\"rows\":["
        "{\"measurement\":\"run read db/sql random warm\",\"metric\":\"us/blob\",\"unit\":\"us\","
        "\"higher_better\":false,\"old\":{\"n\":15,\"median\":3,\"lo\":1,\"hi\":5},"
        "\"new\":{\"n\":15,\"median\":30,\"lo\":10,\"hi\":50},\"ratio\":{\"est\":10,\"lo\":3.5,"
        "\"hi\":30},\"p\":0.0079365,\"p_adj\":0.015873,\"verdict\":\"slower\"},"
        "{\"measurement\":\"x\",\"metric\":\"p50\",\"unit\":\"us\",\"higher_better\":false,"
        "\"old\":{\"n\":1,\"median\":7,\"lo\":7,\"hi\":7},\"new\":{\"n\":1,\"median\":0.001234,"
        "\"lo\":0.001234,\"hi\":0.001234},\"ratio\":{\"est\":100.7,\"lo\":99.9999,\"hi\":1234.5},"
        "\"p\":0.0001,\"p_adj\":0.00012345,\"verdict\":\"faster\"}],"
        "\"summary\":{\"rows\":2,\"faster\":1,\"slower\":1,\"same\":0,\"too_few\":0}}\n");
    /* a rate is higher_better; the first row decides "paired" */
    struct out_row one[2] = {table7[1], table7[3]};
    one[1].paired = 1;
    out_rows(one, 2, g, m, rows);
    print_json(&o, &n, rows, 2);
    cJSON *j = cJSON_Parse(out);
    assert_non_null(j);
    assert_true(cJSON_IsFalse(compare_j(j, "paired")));
    const cJSON *r0 = cJSON_GetArrayItem(compare_j(j, "rows"), 0);
    assert_true(cJSON_IsTrue(compare_j(r0, "higher_better")));
    assert_true(compare_jnum(compare_j(r0, "old"), "n", 0) == 12);
    assert_true(compare_jnum(compare_j(r0, "new"), "n", 0) == 3);
    assert_string_equal(compare_jstr(r0, "verdict"), "too few samples");
    const cJSON *sum = compare_j(j, "summary");
    assert_true(compare_jnum(sum, "same", -1) == 1);
    assert_true(compare_jnum(sum, "too_few", -1) == 1);
    cJSON_Delete(j);
    /* no rows */
    print_json(&o, &n, NULL, 0);
    assert_string_equal(drop_env(out),
        "{\"command\":\"compare\",\"schema_version\":1,\"cmdline\":\"kvtest compare a b --json\",\"old\":\"old.jsonl\","
        "\"new\":\"new.jsonl\",\"paired\":false,\"rows\":[],"
        "\"summary\":{\"rows\":0,\"faster\":0,\"slower\":0,\"same\":0,\"too_few\":0}}\n");
}

/* ---- compare.c: the command ------------------------------------------------ */

/* A run object: op, --count, us/blob of each round (0: none), MB/s of each
 * round (0: none), and extra members of "result" (may be ""). */
static const char *run_obj(const char *op, int count, const double *us, const double *mb,
                           int rounds, const char *extra)
{
    static char buf[8][2000];
    static int next;
    char *b = buf[next++ % 8];
    size_t n = 0;
    put(b, sizeof buf[0], &n, "{\"command\":\"run\",\"options\":{\"order\":\"random\","
        "\"count\":%d},\"result\":{\"op\":\"%s\",\"store\":\"db\",\"api\":\"sql\"%s%s,"
        "\"runs\":[", count, op, *extra ? "," : "", extra);
    for (int i = 0; i < rounds; i++) {
        put(b, sizeof buf[0], &n, "%s{", i ? "," : "");
        if (us[i] > 0)
            put(b, sizeof buf[0], &n, "\"us_per_blob\":%g%s", us[i], mb[i] > 0 ? "," : "");
        if (mb[i] > 0)
            put(b, sizeof buf[0], &n, "\"mb_per_s\":%g", mb[i]);
        put(b, sizeof buf[0], &n, "}");
    }
    put(b, sizeof buf[0], &n, "]}}\n");
    return b;
}

static const char *jsonl(const char *name, const char *l1, const char *l2)
{
    char text[4000];
    snprintf(text, sizeof text, "%s%s", l1, l2 ? l2 : "");
    return wfile(name, text);
}

/* OLD and NEW of two measurements: "read" with 5 rounds of us/blob (4 of
 * MB/s) a side, NEW's every one slower than OLD's; "write" with 4 and 3
 * (OLD), 3 and 4 (NEW): too few on one side. */
static const double us_o[] = {1, 2, 3, 4, 5}, mb_o[] = {100, 200, 300, 400, 0};
static const double us_n[] = {6, 7, 8, 9, 10}, mb_n[] = {10, 20, 30, 40, 0};
static const double wus_o[] = {1, 2, 3, 4}, wmb_o[] = {1, 2, 3, 0};
static const double wus_n[] = {5, 6, 7, 0}, wmb_n[] = {4, 5, 6, 7};

static const char *old_f, *new_f;

static void two_sides(void)
{
    old_f = jsonl("old.jsonl", run_obj("read", 2000, us_o, mb_o, 5, ""),
                  run_obj("write", 2000, wus_o, wmb_o, 4, ""));
    new_f = jsonl("new.jsonl", run_obj("read", 2000, us_n, mb_n, 5, ""),
                  run_obj("write", 2000, wus_n, wmb_n, 4, ""));
}

static const cJSON *row_of(const cJSON *j, int i)
{
    const cJSON *r = cJSON_GetArrayItem(compare_j(j, "rows"), i);
    assert_non_null(r);
    return r;
}

static void assert_near(double got_v, double want)
{
    if (!(fabs(got_v - want) <= 1e-12 * fabs(want)))
        fail_msg("%.17g, wanted %.17g", got_v, want);
}

static void test_cmd_rows_and_holm(void **st)
{
    (void)st;
    two_sides();
    assert_int_equal(COMPARE(old_f, new_f, "--json"), 0);
    assert_string_equal(err, "");
    cJSON *j = cJSON_Parse(out);
    assert_non_null(j);
    assert_int_equal(cJSON_GetArraySize(compare_j(j, "rows")), 4);
    /* In OLD's order; exact U test, no ties: U = 0, p = 2 / C(n+m, n):
     * 5 and 5: 2/252; 4 and 4: 2/70; 4 and 3: 2/35. Holm over the two rows
     * with 4 or more a side: 2/252 * 2 = 4/252, max(4/252, 2/70 * 1) = 2/70;
     * the others keep p. */
    struct { const char *meas, *metric; int no, nn; double p, padj; const char *verdict; }
    want[] = {
        {"run read db/sql random warm", "us/blob", 5, 5, 2.0 / 252, 4.0 / 252, "slower"},
        {"run read db/sql random warm", "MB/s", 4, 4, 2.0 / 70, 2.0 / 70, "slower"},
        {"run write db/sql random warm", "us/blob", 4, 3, 2.0 / 35, 2.0 / 35, "too few samples"},
        {"run write db/sql random warm", "MB/s", 3, 4, 2.0 / 35, 2.0 / 35, "too few samples"},
    };
    for (int i = 0; i < 4; i++) {
        const cJSON *r = row_of(j, i);
        assert_string_equal(compare_jstr(r, "measurement"), want[i].meas);
        assert_string_equal(compare_jstr(r, "metric"), want[i].metric);
        assert_true(compare_jnum(compare_j(r, "old"), "n", 0) == want[i].no);
        assert_true(compare_jnum(compare_j(r, "new"), "n", 0) == want[i].nn);
        assert_near(compare_jnum(r, "p", 0), want[i].p);
        assert_near(compare_jnum(r, "p_adj", 0), want[i].padj);
        assert_string_equal(compare_jstr(r, "verdict"), want[i].verdict);
    }
    /* The ratio: the median of the 25 ratios NEW_j/OLD_i is 8/3, Moses'
     * interval (U critical value 2) their 3rd smallest (6/4) and largest
     * (8/1); of the 16 MB/s ratios 0.1 * j/i the middle two are 0.1, the
     * interval (critical value 0) [0.1/4, 0.1*4]. */
    const cJSON *ra = compare_j(row_of(j, 0), "ratio");
    assert_near(compare_jnum(ra, "est", 0), 8.0 / 3);
    assert_near(compare_jnum(ra, "lo", 0), 1.5);
    assert_near(compare_jnum(ra, "hi", 0), 8);
    ra = compare_j(row_of(j, 1), "ratio");
    assert_near(compare_jnum(ra, "est", 0), 0.1);
    assert_near(1 + compare_jnum(ra, "lo", 0), 1.025);
    assert_near(compare_jnum(ra, "hi", 0), 0.4);
    assert_true(cJSON_IsFalse(compare_j(j, "paired")));
    assert_string_equal(compare_jstr(j, "old"), old_f);
    assert_string_equal(compare_jstr(j, "new"), new_f);
    cJSON_Delete(j);

    /* the text table: the same rows; exit 0 without --fail-above */
    assert_int_equal(COMPARE(old_f, new_f), 0);
    assert_string_equal(err, "");
    assert_int_equal(lines_in(out), 7);
    char head[700];
    snprintf(head, sizeof head, "OLD %s (2 results) vs NEW %s (2 results)\n", old_f, new_f);
    assert_true(strncmp(out, head, strlen(head)) == 0);
    assert_non_null(strstr(out, "\nrun read db/sql random warm   us/blob  5/5             "
                                "3 [1, 5]            8 [6, 10]  2.667 [1.500, 8.000]  0.016  slower\n"));
    assert_non_null(strstr(out, "\n4 rows: 0 faster, 2 slower, 0 ~, 2 too few samples (p: "
                                "two-sided Mann-Whitney U, Holm-adjusted over the 2 rows with "
                                ">= 4 a side)\n"));
}

static void test_cmd_fail_above(void **st)
{
    (void)st;
    two_sides();
    /* Slowdown's lower end: us/blob 1.5 (the ratio's), MB/s 1/0.4 = 2.5 (a
     * rate: 1/the ratio's upper end); estimates 8/3 and 1/0.1. */
    assert_int_equal(COMPARE(old_f, new_f, "--fail-above", "2"), 1);
    assert_string_equal(err, "kvtest compare: slower than x2: run read db/sql random warm MB/s: "
                             "x10.000 (at least x2.500)\n");
    assert_int_equal(lines_in(out), 7);
    assert_int_equal(COMPARE(old_f, new_f, "--fail-above", "1"), 1);
    assert_string_equal(err, "kvtest compare: slower than x1: run read db/sql random warm "
                             "us/blob: x2.667 (at least x1.500)\n"
                             "kvtest compare: slower than x1: run read db/sql random warm MB/s: "
                             "x10.000 (at least x2.500)\n");
    assert_int_equal(COMPARE(old_f, new_f, "--fail-above", "3"), 0);
    assert_string_equal(err, "");
    /* NEW faster: nothing fails */
    assert_int_equal(COMPARE(new_f, old_f, "--fail-above", "1"), 0);
    assert_string_equal(err, "");
    /* "wholly above": a lower end equal to the limit is not; one ulp less is */
    assert_int_equal(COMPARE(old_f, new_f, "--json"), 0);
    cJSON *j = cJSON_Parse(out);
    double lim = 1 / compare_jnum(compare_j(row_of(j, 1), "ratio"), "hi", 0);
    cJSON_Delete(j);
    char a[40];
    snprintf(a, sizeof a, "%.17g", lim);
    assert_int_equal(COMPARE(old_f, new_f, "--fail-above", a), 0);
    assert_string_equal(err, "");
    snprintf(a, sizeof a, "%.17g", nextafter(lim, 0));
    assert_int_equal(COMPARE(old_f, new_f, "--fail-above", a), 1);
    assert_int_equal(lines_in(err), 1);
}

/* Two sides of n space layouts, OLD's totals 1000 + i bytes, NEW's twice
 * that: one sample a side, so n rows of "too few samples". */
static void space_sides(int n, const char **o, const char **nw)
{
    static char text[20000];
    for (int side_i = 0; side_i < 2; side_i++) {
        size_t len = 0;
        put(text, sizeof text, &len, "{\"command\":\"space\",\"layouts\":[");
        for (int i = 0; i < n; i++)
            put(text, sizeof text, &len, "%s{\"layout\":\"l%d\",\"total_bytes\":%d}", i ? "," : "",
                i, (1000 + i) * (side_i + 1));
        put(text, sizeof text, &len, "]}\n");
        if (side_i == 0)
            *o = wfile("space_o.jsonl", text);
        else
            *nw = wfile("space_n.jsonl", text);
    }
}

static void test_cmd_many_rows(void **st)
{
    (void)st;
    /* 64 rows (a full first allocation of rows), none with a verdict:
     * --fail-above fails none, though every ratio is 2 */
    const char *o, *n;
    space_sides(64, &o, &n);
    assert_int_equal(COMPARE(o, n, "--fail-above", "1.5"), 0);
    assert_string_equal(err, "");
    assert_non_null(strstr(out, "\n64 rows: 0 faster, 0 slower, 0 ~, 64 too few samples"));
    assert_non_null(strstr(out, "\nspace l63    total bytes  1/1    1063 [1063, 1063]    "
                                "2126 [2126, 2126]  2.000 [2.000, 2.000]  1  too few samples\n"));
    space_sides(65, &o, &n);
    assert_int_equal(COMPARE(o, n, "--json"), 0);
    cJSON *j = cJSON_Parse(out);
    assert_int_equal(cJSON_GetArraySize(compare_j(j, "rows")), 65);
    assert_string_equal(compare_jstr(row_of(j, 64), "measurement"), "space l64");
    cJSON_Delete(j);
}

static void test_cmd_paired(void **st)
{
    (void)st;
    /* 5 pairs, every log ratio up and no two alike: exact signed-rank p =
     * 2/2^5; 4 MB/s pairs all down, distinct (0.5 0.45 0.47 0.425): 2/2^4.
     * Holm: 2/32 * 2 = 0.125, max(0.125, 0.125 * 1). */
    static const double po[] = {1, 2, 3, 4, 5}, pmo[] = {100, 200, 300, 400, 0};
    static const double pn[] = {2, 3, 5, 7, 11}, pmn[] = {50, 90, 141, 170, 0};
    const char *o = jsonl("po.jsonl", run_obj("read", 2000, po, pmo, 5, ""), NULL);
    const char *n = jsonl("pn.jsonl", run_obj("read", 2000, pn, pmn, 5, ""), NULL);
    assert_int_equal(COMPARE(o, n, "--paired", "--json"), 0);
    cJSON *j = cJSON_Parse(out);
    assert_true(cJSON_IsTrue(compare_j(j, "paired")));
    assert_int_equal(cJSON_GetArraySize(compare_j(j, "rows")), 2);
    assert_near(compare_jnum(row_of(j, 0), "p", 0), 0.0625);
    assert_near(compare_jnum(row_of(j, 1), "p", 0), 0.125);
    assert_near(compare_jnum(row_of(j, 0), "p_adj", 0), 0.125);
    assert_near(compare_jnum(row_of(j, 1), "p_adj", 0), 0.125);
    assert_string_equal(compare_jstr(row_of(j, 0), "verdict"), "~");
    cJSON_Delete(j);
    /* unpaired, the same samples: Mann-Whitney, 5 and 5 interleaved */
    assert_int_equal(COMPARE(o, n, "--json"), 0);
    j = cJSON_Parse(out);
    assert_true(cJSON_IsFalse(compare_j(j, "paired")));
    cJSON_Delete(j);
    /* sides that differ in count: refused, naming the first such row */
    two_sides();
    assert_int_equal(COMPARE(old_f, new_f, "--paired"), 2);
    char want[800];
    snprintf(want, sizeof want, "kvtest compare: --paired: run write db/sql random warm us/blob "
             "has 4 samples in %s and 3 in %s", old_f, new_f);
    assert_one_error(want);
}

static void test_cmd_defs_differ(void **st)
{
    (void)st;
    const char *o = jsonl("d_o.jsonl", run_obj("read", 2000, us_o, mb_o, 5, ""), NULL);
    const char *n = jsonl("d_n.jsonl", run_obj("read", 1000, us_n, mb_n, 5, ""), NULL);
    char want[900];
    snprintf(want, sizeof want, "kvtest compare: OLD and NEW differ in count for \"run read "
             "db/sql random warm\": 2000 (%s:1) vs 1000 (%s:1)", o, n);
    assert_int_equal(COMPARE(o, n), 2);
    assert_one_error(want);
    snprintf(want, sizeof want, "kvtest compare: OLD and NEW differ in count for \"run read "
             "db/sql random warm\": 1000 (%s:1) vs 2000 (%s:1)", n, o);
    assert_int_equal(COMPARE(n, o), 2);
    assert_one_error(want);
    /* NEW holds the measurement as OLD defines it and also otherwise
     * (line 2): refused, found from NEW's side, values still OLD first */
    const char *n2 = jsonl("d_n2.jsonl", run_obj("read", 2000, us_n, mb_n, 5, ""),
                           run_obj("read", 1000, us_n, mb_n, 5, ""));
    snprintf(want, sizeof want, "kvtest compare: OLD and NEW differ in count for \"run read "
             "db/sql random warm\": 2000 (%s:1) vs 1000 (%s:2)", o, n2);
    assert_int_equal(COMPARE(o, n2), 2);
    assert_one_error(want);
    /* a definition one side lacks: "absent" */
    const char *n3 = jsonl("d_n3.jsonl", run_obj("read", 2000, us_n, mb_n, 5, "\"page_size\":4096"),
                           NULL);
    snprintf(want, sizeof want, "kvtest compare: OLD and NEW differ in page_size for \"run read "
             "db/sql random warm\": absent (%s:1) vs 4096 (%s:1)", o, n3);
    assert_int_equal(COMPARE(o, n3), 2);
    assert_one_error(want);
    /* nothing in common */
    const char *w = jsonl("d_w.jsonl", run_obj("write", 2000, us_n, mb_n, 5, ""), NULL);
    snprintf(want, sizeof want, "kvtest compare: no measurement in common between %s (1) and "
             "%s (1)", o, w);
    assert_int_equal(COMPARE(o, w), 2);
    assert_one_error(want);
}

static void test_cmd_partial(void **st)
{
    (void)st;
    /* OLD measured more than NEW: only what both have. OLD's read has 5
     * metrics, NEW's 4 (no p99.9); OLD's write is not in NEW. */
    two_sides();
    const char *n = jsonl("part.jsonl", run_obj("read", 2000, us_n, mb_n, 5,
                                                "\"latency\":{\"count\":9,\"p50\":3,\"p99\":4}"),
                          NULL);
    const char *o = jsonl("part_o.jsonl", run_obj("read", 2000, us_o, mb_o, 5,
                                                  "\"latency\":{\"count\":9,\"p50\":2,\"p99\":3,"
                                                  "\"p999\":4}"),
                          run_obj("write", 2000, wus_o, wmb_o, 4, ""));
    assert_int_equal(COMPARE(o, n, "--json"), 0);
    cJSON *j = cJSON_Parse(out);
    assert_int_equal(cJSON_GetArraySize(compare_j(j, "rows")), 4);
    const char *metrics[] = {"us/blob", "MB/s", "p50", "p99"};
    for (int i = 0; i < 4; i++)
        assert_string_equal(compare_jstr(row_of(j, i), "metric"), metrics[i]);
    /* the one-sample rows are not in Holm's family: p_adj = p = 1 */
    assert_near(compare_jnum(row_of(j, 2), "p_adj", 0), 1);
    assert_string_equal(compare_jstr(row_of(j, 2), "verdict"), "too few samples");
    assert_near(compare_jnum(row_of(j, 0), "p_adj", 0), 4.0 / 252);
    cJSON_Delete(j);

    /* 32 measurements a side (a full first allocation), the last one
     * differently named: 31 rows */
    char text[4000];
    size_t len = 0;
    for (int side_i = 0; side_i < 2; side_i++) {
        len = 0;
        put(text, sizeof text, &len, "{\"command\":\"space\",\"layouts\":[");
        for (int i = 0; i < 32; i++)
            put(text, sizeof text, &len, "%s{\"layout\":\"%s%d\",\"total_bytes\":%d}", i ? "," : "",
                i == 31 && side_i ? "m" : "l", i, 100 + i);
        put(text, sizeof text, &len, "]}\n");
        if (side_i == 0)
            o = wfile("s32o.jsonl", text);
        else
            n = wfile("s32n.jsonl", text);
    }
    assert_int_equal(COMPARE(o, n), 0);
    assert_non_null(strstr(out, "\n31 rows: 0 faster, 0 slower, 0 ~, 31 too few samples"));
    /* widths: "measurement" 11, "total bytes" 11, "n" 3, the medians 19 */
    assert_non_null(strstr(out, "\nspace l0     total bytes  1/1       100 [100, 100]       "
                                "100 [100, 100]  "));
    assert_null(strstr(out, "l31"));
}

static void test_cmd_arguments(void **st)
{
    (void)st;
    two_sides();
    assert_int_equal(COMPARE(old_f), 2);
    assert_one_error("kvtest compare: two inputs wanted: OLD NEW (see kvtest help compare)");
    assert_int_equal(COMPARE(old_f, new_f, "third"), 2);
    assert_one_error("kvtest compare: unexpected argument 'third'");
    assert_int_equal(COMPARE(old_f, new_f, "--bogus"), 2);
    assert_one_error("kvtest compare: unknown option '--bogus'");
    assert_int_equal(COMPARE(old_f, new_f, "--json", "--csv"), 2);
    assert_one_error("kvtest compare: --csv and --json cannot be combined: choose one");
    assert_int_equal(COMPARE("-", "-"), 2);
    assert_one_error("kvtest compare: stdin (-) can be one side only");
    /* stdin on either side */
    char head[700];
    assert_int_equal(COMPARE_STDIN(old_f, "-", new_f), 0);
    snprintf(head, sizeof head, "OLD - (2 results) vs NEW %s (2 results)\n", new_f);
    assert_true(strncmp(out, head, strlen(head)) == 0);
    assert_int_equal(COMPARE_STDIN(new_f, old_f, "-"), 0);
    snprintf(head, sizeof head, "OLD %s (2 results) vs NEW - (2 results)\n", old_f);
    assert_true(strncmp(out, head, strlen(head)) == 0);
    assert_non_null(strstr(out, "\n4 rows: 0 faster, 2 slower, 0 ~, 2 too few samples"));
    /* unreadable, not JSON */
    char want[700];
    const char *nope = path_of("nope.jsonl");
    assert_int_equal(COMPARE(nope, new_f), 2);
    snprintf(want, sizeof want, "kvtest compare: %s: No such file or directory", nope);
    assert_one_error(want);
    assert_int_equal(COMPARE(old_f, nope), 2);
    assert_one_error(want);
    const char *bad = wfile("notjson.jsonl", "Total elapsed time: 1.0\n");
    assert_int_equal(COMPARE(old_f, bad), 2);
    snprintf(want, sizeof want, "kvtest compare: %s:1: not a JSON object (a line of kvtest "
             "--json output was expected)", bad);
    assert_one_error(want);
    /* --csv: the --json rows, one a line under one header */
    assert_int_equal(COMPARE(old_f, new_f, "--csv"), 0);
    assert_int_equal(lines_in(out), 5);
    const char *csv_head = "command,schema_version,cmdline,env.kvtest_version,env.commit,";
    assert_true(strncmp(out, csv_head, strlen(csv_head)) == 0);
    assert_non_null(strstr(out, ",old,new,paired,rows.measurement,rows.metric,"));
    assert_non_null(strstr(out, ",run read db/sql random warm,us/blob,us,false,5,3,1,5,5,8,6,10,"));
}

static void test_cmd_out_of_memory(void **st)
{
    (void)st;
    two_sides();
    /* the rows */
    inj_arm_array(INJ_REALLOC, sizeof(struct compare_row), 1);
    assert_int_equal(COMPARE(old_f, new_f), 1);
    assert_true(inj.fired);
    inj_off();
    assert_one_error("kvtest compare: out of memory");
    /* a row's statistics: the 25 pairwise ratios of the first row */
    inj_arm(INJ_MALLOC, 25 * sizeof(double), 1);
    assert_int_equal(COMPARE(old_f, new_f), 1);
    assert_true(inj.fired);
    inj_off();
    assert_one_error("kvtest compare: out of memory");
    /* Holm's p-values: 4 rows, the last allocation of 4 doubles before the
     * table (counted on a run that does not fail) */
    inj_arm(INJ_MALLOC, 4 * sizeof(double), 0);
    assert_int_equal(COMPARE(old_f, new_f), 0);
    long last = inj.seen;
    assert_true(last > 0);
    inj_arm(INJ_MALLOC, 4 * sizeof(double), last);
    assert_int_equal(COMPARE(old_f, new_f), 1);
    assert_true(inj.fired);
    inj_off();
    assert_one_error("kvtest compare: out of memory");
}

/* ---- main ---------------------------------------------------------------- */

static int setup(void **st)
{
    (void)st;
    return scratch_make(dir, sizeof dir, "cmpref");
}

static int teardown(void **st)
{
    (void)st;
    return scratch_remove(dir);
}

static void prepare(void)
{
    /* A table gone wrong (a width never set) could write gigabytes of
     * padding: no output file may pass 64 MiB, and one that tries fails
     * its write instead of ending the process. */
    struct rlimit rl;
    if (getrlimit(RLIMIT_FSIZE, &rl) == 0 && (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur > (64u << 20))) {
        rl.rlim_cur = 64u << 20;
        setrlimit(RLIMIT_FSIZE, &rl);
    }
    signal(SIGXFSZ, SIG_IGN);
}

UNIT_MAIN_PREPARED(prepare, setup, teardown,
    cmocka_unit_test(test_extract_run_every_word),
    cmocka_unit_test(test_extract_run_defaults),
    cmocka_unit_test(test_extract_run_edges),
    cmocka_unit_test(test_extract_run_refused),
    cmocka_unit_test(test_extract_bench),
    cmocka_unit_test(test_extract_load),
    cmocka_unit_test(test_extract_capacity),
    cmocka_unit_test(test_extract_sweep_pages),
    cmocka_unit_test(test_extract_sweep_old),
    cmocka_unit_test(test_extract_space),
    cmocka_unit_test(test_extract_commands),
    cmocka_unit_test(test_json_lookups),
    cmocka_unit_test(test_key_label),
    cmocka_unit_test(test_key_defs),
    cmocka_unit_test(test_key_differs),
    cmocka_unit_test(test_side_groups),
    cmocka_unit_test(test_group_add),
    cmocka_unit_test(test_read_lines),
    cmocka_unit_test(test_read_dirs),
    cmocka_unit_test(test_read_dir_unlistable),
    cmocka_unit_test(test_read_stdin),
    cmocka_unit_test(test_out_text),
    cmocka_unit_test(test_out_long_names),
    cmocka_unit_test(test_out_json),
    cmocka_unit_test(test_cmd_rows_and_holm),
    cmocka_unit_test(test_cmd_fail_above),
    cmocka_unit_test(test_cmd_many_rows),
    cmocka_unit_test(test_cmd_paired),
    cmocka_unit_test(test_cmd_defs_differ),
    cmocka_unit_test(test_cmd_partial),
    cmocka_unit_test(test_cmd_arguments),
    cmocka_unit_test(test_cmd_out_of_memory))
