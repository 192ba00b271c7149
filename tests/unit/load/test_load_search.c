/* Unit tests of the capacity search's logic (load/load_search.c): the
 * --slo grammar, the samples a step needs, and the search itself against
 * a service modelled here as a fixed-service-time queue of known
 * capacity -- the same check tests/cli/load/capacity.bats makes over real HTTP,
 * but exact and instant, so the ramp, the bisection, the repeats, the
 * interval and every way a search ends are pinned down. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "tests/unit/unit.h"

#include "load/load_search.h"

static void test_slo_parse(void **state)
{
    (void)state;
    struct load_slo s;
    char err[256];
    assert_int_equal(load_slo_parse("p99=5ms,p999=20ms", &s, err, sizeof err), 0);
    assert_int_equal(s.n, 2);
    assert_true(s.q[0] == 0.99 && s.bound_us[0] == 5000);
    assert_true(s.q[1] == 0.999 && s.bound_us[1] == 20000);
    assert_string_equal(s.name[1], "p999");
    assert_int_equal(load_slo_parse("p50=250us,p9999=1.5s", &s, err, sizeof err), 0);
    assert_true(s.bound_us[0] == 250 && s.bound_us[1] == 1.5e6);
    char text[128];
    load_slo_text(&s, text, sizeof text);
    assert_string_equal(text, "p50 <= 250 us, p99.99 <= 1.5 s");

    static const struct {
        const char *in, *says;
    } bad[] = {
        {"p98=5ms", "unknown percentile 'p98'"}, {"p99=5", "carry a unit"},
        {"p99=0ms", "above zero"}, {"p99=-1ms", "above zero"}, {"p99=5min", "carry a unit"},
        {"", "empty item"}, {"p99=5ms,", "empty item"}, {"p99", "no bound"},
        {"p99=5ms,p99=6ms", "given twice"}, {"P99=5ms", "unknown percentile"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        assert_int_equal(load_slo_parse(bad[i].in, &s, err, sizeof err), -1);
        assert_non_null(strstr(err, bad[i].says));
    }
}

static void test_samples(void **state)
{
    (void)state;
    struct load_slo s;
    char err[64];
    assert_int_equal(load_slo_parse("p99=1ms", &s, err, sizeof err), 0);
    assert_true(fabs(load_slo_samples(&s) - 2000) < 1e-6);
    assert_int_equal(load_slo_parse("p99=1ms,p999=2ms", &s, err, sizeof err), 0);
    assert_true(fabs(load_slo_samples(&s) - 20000) < 1e-6);
}

/* The service: capacity cap requests/s, service time d_us. Below capacity
 * every request takes d_us (plus `jitter` at a close step, alternating);
 * above it the backlog grows through the step, and the judged percentile
 * sees the delay reached near the end. The generator sends at most gen/s. */
struct model {
    double cap, d_us, gen, jitter;
    unsigned stalls;               /* bit k: call k+1 stalls (a tail, at ease) */
    double low_rate, low_p50;      /* at or below low_rate the median from send is low_p50 */
    double sat_p50;                /* saturated: the median from send (0: the backlog's) */
    int calls;
    double secs_seen[LOAD_SEARCH_MAX_STEPS];
};

static int model_step(void *arg, double rate, double secs, struct load_step *st, char *err,
                      size_t errcap)
{
    (void)err;
    (void)errcap;
    struct model *m = arg;
    m->secs_seen[m->calls++] = secs;
    double sent = rate < m->gen ? rate : m->gen;
    double served = sent < m->cap ? sent : m->cap;
    double backlog_s = sent > m->cap ? (sent - m->cap) * secs / m->cap : 0;
    double late_s = rate > m->gen ? (rate - m->gen) * secs / rate : 0;
    double lat = m->d_us + 0.99 * backlog_s * 1e6;
    if (m->jitter > 0 && (m->calls & 1))
        lat += m->jitter;
    st->achieved = served;
    st->secs = secs;
    st->requests = (int64_t)(served * secs);
    /* a stall holds up the tail for a moment; the median, from send,
     * stays at the service time */
    double stall_us = m->stalls >> (m->calls - 1) & 1u ? 1e6 : 0;
    for (int i = 0; i < LOAD_SLO_MAX; i++) {
        st->pct_us[i] = lat + 0.99 * late_s * 1e6 + stall_us;
        st->sent_pct_us[i] = lat + stall_us;
    }
    st->sent_p50_us = lat;
    if (rate <= m->low_rate)
        st->sent_p50_us = m->low_p50;
    if (sent > m->cap && m->sat_p50 > 0)
        st->sent_p50_us = m->sat_p50;
    st->p50_us = st->p99_us = st->p999_us = st->pct_us[0];
    return 0;
}

static struct load_search_opts opts(const char *slo, double start, double max)
{
    struct load_search_opts o;
    memset(&o, 0, sizeof o);
    char err[128];
    assert_int_equal(load_slo_parse(slo, &o.slo, err, sizeof err), 0);
    o.rate_start = start;
    o.rate_max = max;
    o.min_secs = 2;
    return o;
}

static struct load_search search;

static void test_finds_known_capacity(void **state)
{
    (void)state;
    const double caps[] = {400, 777, 12345};
    for (size_t i = 0; i < 3; i++) {
        struct model m = {.cap = caps[i], .d_us = 5000, .gen = 1e9};
        struct load_search_opts o = opts("p99=25ms", 100, 0);
        char err[128];
        assert_int_equal(load_search_run(&o, model_step, NULL, &m, &search, err, sizeof err), 0);
        assert_int_equal(search.end, LOAD_SEARCH_FOUND);
        assert_true(fabs(search.capacity / caps[i] - 1) < 0.05);
        assert_true(search.lo <= caps[i] && caps[i] <= search.hi);
        assert_true(search.fail_rate / search.pass_rate <= 1 + LOAD_SEARCH_RES);
        /* the ramp doubles from the first step */
        assert_true(search.steps[0].target == 100 && search.steps[1].target == 200);
        /* a step lasts long enough for 2000 samples, 2 s at least */
        for (int k = 0; k < m.calls; k++)
            assert_true(m.secs_seen[k] >= 2 && m.secs_seen[k] * search.steps[k].target >= 1999);
    }
}

static void test_rate_max_and_first_step(void **state)
{
    (void)state;
    char err[128];
    struct model fast = {.cap = 1e6, .d_us = 100, .gen = 1e9};
    struct load_search_opts o = opts("p99=1ms", 100, 1000);
    assert_int_equal(load_search_run(&o, model_step, NULL, &fast, &search, err, sizeof err), 0);
    assert_int_equal(search.end, LOAD_SEARCH_AT_MAX);
    assert_true(search.steps[search.nsteps - 1].target == 1000);   /* capped, not 1600 */
    assert_true(search.capacity == 1000);
    struct model slow = {.cap = 50, .d_us = 5000, .gen = 1e9};
    o = opts("p99=25ms", 100, 0);
    assert_int_equal(load_search_run(&o, model_step, NULL, &slow, &search, err, sizeof err), 0);
    assert_int_equal(search.end, LOAD_SEARCH_BELOW_START);
    assert_int_equal(search.nsteps, 1);
}

/* A step within 10% of its bound runs again; the majority decides. */
static void test_close_steps_repeat(void **state)
{
    (void)state;
    char err[128];
    /* 22 ms + 4 ms on odd calls against 25 ms: every step below capacity
     * is close, and its repeats disagree */
    struct model m = {.cap = 600, .d_us = 22000, .gen = 1e9, .jitter = 4000};
    struct load_search_opts o = opts("p99=25ms", 100, 0);
    assert_int_equal(load_search_run(&o, model_step, NULL, &m, &search, err, sizeof err), 0);
    int repeats = 0;
    for (int i = 0; i < search.nsteps; i++)
        repeats += search.steps[i].repeat > 1;
    assert_true(repeats > 0);
    assert_true(search.steps[0].close && search.steps[1].target == 100);
    /* the first rate failed once, so nothing is proven passing */
    assert_true(search.lo == 0);
}

static void test_generator_limit(void **state)
{
    (void)state;
    char err[128];
    struct model m = {.cap = 1e6, .d_us = 1000, .gen = 3000};
    struct load_search_opts o = opts("p90=50ms", 1000, 0);
    assert_int_equal(load_search_run(&o, model_step, NULL, &m, &search, err, sizeof err), 0);
    assert_int_equal(search.end, LOAD_SEARCH_GENERATOR);
    assert_true(search.steps[search.nsteps - 1].target == 4000);
    assert_true(search.steps[search.nsteps - 1].generator);
}

/* A step that met its rate but broke the bound while the service's median
 * stayed at ease was a stall: it runs again and the majority decides, so
 * the search is not steered below the capacity by it. A step that fell
 * short because the service saturated is no stall and not the generator's. */
static void test_stall_repeats(void **state)
{
    (void)state;
    char err[128];
    /* call 2 (the ramp's 200/s) stalls */
    struct model m = {.cap = 1000, .d_us = 5000, .gen = 1e9, .stalls = 1u << 1};
    struct load_search_opts o = opts("p99=25ms", 100, 0);
    assert_int_equal(load_search_run(&o, model_step, NULL, &m, &search, err, sizeof err), 0);
    assert_int_equal(search.end, LOAD_SEARCH_FOUND);
    assert_true(search.steps[1].stall && !search.steps[1].pass);
    assert_true(search.steps[2].target == 200 && search.steps[2].repeat == 2);
    assert_true(search.steps[3].target == 200 && search.steps[3].repeat == 3);
    assert_true(fabs(search.capacity / 1000 - 1) < 0.05);
    /* the outvoted stall does not drag the interval's low end to 100/s */
    assert_true(search.steps[1].outvoted);
    assert_true(search.lo <= 1000 && search.lo > 900 && search.hi >= 1000);
    for (int i = 0; i < search.nsteps; i++)
        if (search.steps[i].short_rate)
            assert_false(search.steps[i].stall || search.steps[i].generator);
    /* two stalls in three at one rate: it fails */
    struct model twice = {.cap = 1000, .d_us = 5000, .gen = 1e9, .stalls = 3u << 1};
    assert_int_equal(load_search_run(&o, model_step, NULL, &twice, &search, err, sizeof err), 0);
    assert_true(search.steps[1].stall && search.steps[2].stall);
    assert_true(search.fail_rate == 200);
}

/* A stall its rate's repeats outvote says nothing about the service: for
 * a stall at every step of a search in turn (but the first, where nothing
 * is at ease yet), the search ends as it does without one, with the same
 * estimate and the same interval ends, exactly; the stall is in its steps,
 * marked outvoted, with its two repeats after it. Two stalls in three at a
 * rate make it a failure: the interval's high end comes down to it. */
static void test_interval_stalls_outvoted(void **state)
{
    (void)state;
    char err[128];
    struct load_search_opts o = opts("p99=25ms", 100, 0);
    const struct model clean = {.cap = 1000, .d_us = 5000, .gen = 1e9};
    struct model c0 = clean;
    assert_int_equal(load_search_run(&o, model_step, NULL, &c0, &search, err, sizeof err), 0);
    struct load_search ref = search;
    assert_int_equal(ref.end, LOAD_SEARCH_FOUND);
    assert_true(ref.lo > 0 && ref.hi > ref.lo);
    int outvoted = 0;
    for (int k = 1; k < ref.nsteps && k < 32; k++) {
        struct model m = clean;
        m.stalls = 1u << k;
        assert_int_equal(load_search_run(&o, model_step, NULL, &m, &search, err, sizeof err), 0);
        assert_false(search.steps[k].pass);
        if (!search.steps[k].stall) {
            /* not at ease (the median already grew near the capacity): a
             * slow tail there is the service's, a failure like any other */
            assert_false(search.steps[k].outvoted);
            continue;
        }
        outvoted += search.steps[k].outvoted;
        if (!search.steps[k].outvoted)
            continue;   /* its rate failed by majority anyway */
        assert_true(search.steps[k + 1].target == search.steps[k].target);
        assert_true(search.steps[k + 2].target == search.steps[k].target);
        assert_int_equal(search.end, ref.end);
        assert_true(search.capacity == ref.capacity);
        assert_true(search.lo == ref.lo);
        assert_true(search.hi == ref.hi);
    }
    assert_true(outvoted >= 3);   /* the ramp's passing steps, at least */
    /* the ramp's 400/s stalls twice in three: it fails, and bounds the interval */
    struct model twice = clean;
    twice.stalls = 3u << 2;
    assert_int_equal(load_search_run(&o, model_step, NULL, &twice, &search, err, sizeof err), 0);
    assert_true(search.steps[2].target == 400 && search.steps[2].stall && search.steps[3].stall);
    assert_false(search.steps[2].outvoted);
    assert_true(search.hi == 400 && search.fail_rate == 400);
    assert_true(search.lo > 200 && search.lo < 400 && search.capacity < 400);
}

/* "At ease" is the lowest median from send of the passing steps, not the
 * first's: at a low rate a service answers more slowly (idle CPUs wake
 * late), and against that first median a saturated service, whose median
 * grows only to what its queue of one request per connection costs, would
 * look at ease and its shortfall be blamed on the generator. */
static void test_ease_is_lowest_median(void **state)
{
    (void)state;
    char err[128];
    struct model m = {.cap = 1000, .d_us = 1000, .gen = 1e9, .low_rate = 100,
                      .low_p50 = 3000, .sat_p50 = 2500};
    struct load_search_opts o = opts("p99=25ms", 100, 0);
    assert_int_equal(load_search_run(&o, model_step, NULL, &m, &search, err, sizeof err), 0);
    assert_int_equal(search.end, LOAD_SEARCH_FOUND);
    assert_true(fabs(search.capacity / 1000 - 1) < 0.05);
    for (int i = 0; i < search.nsteps; i++)
        assert_false(search.steps[i].generator);
}

/* Scripted p99s, one per call; the service keeps its rate. A failing
 * step's median from send is 10x a passing one's: a queue, not a stall. */
struct script {
    const double *p99_us;
    int n, calls;
};

static int script_step(void *arg, double rate, double secs, struct load_step *st, char *err,
                       size_t cap)
{
    (void)err;
    (void)cap;
    struct script *sc = arg;
    double p99 = sc->p99_us[sc->calls < sc->n ? sc->calls : sc->n - 1];
    sc->calls++;
    st->achieved = rate;
    st->secs = secs;
    st->requests = (int64_t)(rate * secs);
    st->pct_us[0] = st->sent_pct_us[0] = st->p99_us = p99;
    st->sent_p50_us = p99 > 10000 ? 1000 : 100;
    return 0;
}

/* The highest rate tried passed once (close) and failed twice: the
 * interval ends at it, not "open above", and the bisection below it
 * settles the answer. */
static void test_interval_top_rate_disputed(void **state)
{
    (void)state;
    char err[128];
    /* 1000 pass; 2000: 9.5 ms (close, pass), 50 ms, 50 ms; then all pass */
    const double p99[] = {1000, 9500, 50000, 50000, 1000};
    struct script sc = {p99, 5, 0};
    struct load_search_opts o = opts("p99=10ms", 1000, 0);
    assert_int_equal(load_search_run(&o, script_step, NULL, &sc, &search, err, sizeof err), 0);
    assert_int_equal(search.end, LOAD_SEARCH_FOUND);
    assert_true(search.steps[1].pass && !search.steps[2].pass && !search.steps[3].pass);
    assert_true(search.fail_rate == 2000);
    assert_true(search.hi == 2000);
    assert_true(search.pass_rate >= 1960 && search.lo < search.pass_rate);
}

static int failing_step(void *arg, double rate, double secs, struct load_step *st, char *err,
                        size_t cap)
{
    (void)arg;
    (void)rate;
    (void)secs;
    (void)st;
    snprintf(err, cap, "connection refused");
    return -1;
}

static void test_step_error_stops(void **state)
{
    (void)state;
    char err[128] = "";
    struct load_search_opts o = opts("p99=1ms", 100, 0);
    assert_int_equal(load_search_run(&o, failing_step, NULL, NULL, &search, err, sizeof err), -1);
    assert_string_equal(err, "connection refused");
}

UNIT_MAIN(NULL, NULL,
    cmocka_unit_test(test_slo_parse),
    cmocka_unit_test(test_samples),
    cmocka_unit_test(test_finds_known_capacity),
    cmocka_unit_test(test_rate_max_and_first_step),
    cmocka_unit_test(test_close_steps_repeat),
    cmocka_unit_test(test_generator_limit),
    cmocka_unit_test(test_stall_repeats),
    cmocka_unit_test(test_interval_stalls_outvoted),
    cmocka_unit_test(test_ease_is_lowest_median),
    cmocka_unit_test(test_interval_top_rate_disputed),
    cmocka_unit_test(test_step_error_stops))
