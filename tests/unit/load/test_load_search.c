/* Unit tests of the capacity search's logic (load/load_search.c): the
 * --slo grammar, the samples a step needs, and the search itself against
 * a service modelled here as a fixed-service-time queue of known
 * capacity -- the same check tests/cli/capacity.bats makes over real HTTP,
 * but exact and instant, so the ramp, the bisection, the repeats, the
 * interval and every way a search ends are pinned down. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

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
    for (int i = 0; i < LOAD_SLO_MAX; i++) {
        st->pct_us[i] = lat + 0.99 * late_s * 1e6;
        st->sent_pct_us[i] = lat;
    }
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_slo_parse),
        cmocka_unit_test(test_samples),
        cmocka_unit_test(test_finds_known_capacity),
        cmocka_unit_test(test_rate_max_and_first_step),
        cmocka_unit_test(test_close_steps_repeat),
        cmocka_unit_test(test_generator_limit),
        cmocka_unit_test(test_step_error_stops),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
