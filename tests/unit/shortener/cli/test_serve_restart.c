/* serve_restart_take: the restart policy of "shortener serve --processes
 * N". More than SERVE_RESTART_BURST restarts within SERVE_RESTART_WINDOW_NS
 * is a loop: the first burst is always allowed (even at one instant, even
 * right after boot, when the clock is below the window), one more within
 * the window is refused, and a restart exactly the window after the oldest
 * of the last burst is not within it. A refusal records nothing. The CLI
 * suite (shortener_procs.bats) sees the loop itself; only here can the
 * clock be put on the boundary. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tests/unit/unit.h"

#include "shortener/cli/serve_procs.h"

#define B SERVE_RESTART_BURST
#define W SERVE_RESTART_WINDOW_NS
#define SEC 1000000000ull

/* The figures the CLI's "giving up" line and the suite state. */
static void test_constants(void **st)
{
    (void)st;
    assert_int_equal(B, 5);
    assert_true(W == 10 * SEC);
}

/* A burst at one instant, 1 s after boot (the ring's zeros are within the
 * window of that instant, yet count as no restart); then the window's edge. */
static void test_burst_then_edge(void **st)
{
    (void)st;
    struct serve_restarts r = {{0}, 0};
    uint64_t t = SEC;
    for (int i = 0; i < B; i++)
        assert_int_equal(serve_restart_take(&r, t), 1);
    assert_int_equal(r.n, B);
    assert_int_equal(serve_restart_take(&r, t), 0);
    assert_int_equal(serve_restart_take(&r, t + W / 2), 0);
    assert_int_equal(serve_restart_take(&r, t + W - 1), 0);
    assert_int_equal(r.n, B);   /* refusals record nothing */
    /* exactly the window after the oldest: not within it. All five of the
     * burst leave the window at once, so five more fit at t + W, and not a
     * sixth. */
    for (int i = 0; i < B; i++)
        assert_int_equal(serve_restart_take(&r, t + W), 1);
    assert_int_equal(serve_restart_take(&r, t + W), 0);
    assert_int_equal(serve_restart_take(&r, t + 2 * W - 1), 0);
    assert_int_equal(serve_restart_take(&r, t + 2 * W), 1);
    assert_int_equal(r.n, 2 * B + 1);
}

/* Restarts spread evenly: one every W / B keeps the last burst exactly a
 * window wide, for ever; one nanosecond sooner each and the (B + 1)th is
 * refused. The ring is read at the oldest, wherever the run started. */
static void test_steady(void **st)
{
    (void)st;
    struct serve_restarts r = {{0}, 0};
    uint64_t t = 1000000 * SEC;   /* an uptime of 11 days */
    for (int i = 0; i < 1000; i++, t += W / B)
        assert_int_equal(serve_restart_take(&r, t), 1);
    struct serve_restarts q = {{0}, 0};
    t = 3 * SEC;
    for (int i = 0; i < B; i++, t += W / B - 1)
        assert_int_equal(serve_restart_take(&q, t), 1);
    assert_int_equal(serve_restart_take(&q, t), 0);
    assert_int_equal(serve_restart_take(&q, t + B), 1);   /* back to the exact edge */
}

/* Refused restarts do not slide the window: after a refusal, the next
 * restart is judged against the same oldest restart, not the refusal. */
static void test_refusal_keeps_window(void **st)
{
    (void)st;
    struct serve_restarts r = {{0}, 0};
    for (int i = 0; i < B; i++)
        assert_int_equal(serve_restart_take(&r, 20 * SEC + (uint64_t)i * SEC), 1);
    /* the oldest is 20 s: refused until 30 s */
    assert_int_equal(serve_restart_take(&r, 29 * SEC), 0);
    assert_int_equal(serve_restart_take(&r, 30 * SEC), 1);
    /* now the oldest is 21 s */
    assert_int_equal(serve_restart_take(&r, 30 * SEC + 1), 0);
    assert_int_equal(serve_restart_take(&r, 31 * SEC - 1), 0);
    assert_int_equal(serve_restart_take(&r, 31 * SEC), 1);
    assert_int_equal(r.n, B + 2);
}

UNIT_MAIN(NULL, NULL,
    cmocka_unit_test(test_constants),
    cmocka_unit_test(test_burst_then_edge),
    cmocka_unit_test(test_steady),
    cmocka_unit_test(test_refusal_keeps_window))
