/* load_vu: a connection's FIFO ring of requests, write side: bytes
 * written move requests into flight in order, across the ring's wrap. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "tests/unit/unit.h"

#include "load/load_vu.h"

static void test_wrote_moves_requests_in_order(void **state)
{
    (void)state;
    struct load_req q[4];
    struct load_vu v;
    memset(&v, 0, sizeof(v));
    memset(q, 0, sizeof(q));
    v.q = q;
    v.qcap = 4;
    v.qhead = 3;   /* the ring wraps: requests in q[3], q[0], q[1] */
    v.qn = 3;
    q[3].len = 10;
    q[0].len = 20;
    q[1].len = 30;
    assert_ptr_equal(load_vu_req(&v, 0), &q[3]);
    assert_ptr_equal(load_vu_req(&v, 2), &q[1]);
    load_vu_wrote(&v, 15);   /* the first whole, 5 bytes of the second */
    assert_int_equal(v.qsent, 1);
    assert_int_equal(v.off, 5);
    load_vu_wrote(&v, 40);   /* the second's 15 left, 25 of the third */
    assert_int_equal(v.qsent, 2);
    assert_int_equal(v.off, 25);
    load_vu_wrote(&v, 5);
    assert_int_equal(v.qsent, 3);
    assert_int_equal(v.off, 0);
}

UNIT_MAIN(NULL, NULL,
    cmocka_unit_test(test_wrote_moves_requests_in_order))
