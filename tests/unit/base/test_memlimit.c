/* Unit tests of base/memlimit's one pure part: finding the memory
 * controller's directory from /proc/self/cgroup and /proc/self/mountinfo
 * texts (cgroup v1, v2, hybrid, a container whose mount root is its own
 * group). Entering a group needs root and is tested by
 * tests/cli/shortener/shortener_memlimit.bats. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include "tests/unit/unit.h"

#include "base/memlimit.h"

/* A hybrid host as on this project's machine: v1 controllers and an empty
 * v2 hierarchy at /sys/fs/cgroup/unified. */
static const char MI_HYBRID[] =
    "31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n"
    "32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
    "35 31 0:32 / /sys/fs/cgroup/memory rw,relatime shared:9 - cgroup cgroup rw,memory\n"
    "40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd\n"
    "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n";

static void test_v1_wins_over_v2(void **state)
{
    (void)state;
    struct memlimit_where w;
    const char *cg = "9:name=systemd:/\n4:memory:/process_api/a33\n1:cpu:/\n0::/\n";
    assert_int_equal(memlimit_locate(cg, MI_HYBRID, &w), 0);
    assert_int_equal(w.version, 1);
    assert_string_equal(w.dir, "/sys/fs/cgroup/memory/process_api/a33");
    /* The v2 line first changes nothing. */
    assert_int_equal(memlimit_locate("0::/x\n4:memory:/a\n", MI_HYBRID, &w), 0);
    assert_int_equal(w.version, 1);
    assert_string_equal(w.dir, "/sys/fs/cgroup/memory/a");
}

static void test_v1_shared_hierarchy(void **state)
{
    (void)state;
    struct memlimit_where w;
    const char *mi = "50 31 0:40 / /cg/mc rw - cgroup cgroup rw,cpuset,memory,pids\n";
    assert_int_equal(memlimit_locate("3:cpuset,memory,pids:/\n", mi, &w), 0);
    assert_int_equal(w.version, 1);
    assert_string_equal(w.dir, "/cg/mc");
    /* "memorylimits" is not "memory". */
    assert_int_equal(memlimit_locate("3:memorylimits:/a\n",
                                     "5 1 0:4 / /m rw - cgroup cgroup rw,memorylimits\n", &w), -1);
}

static void test_v2_unified(void **state)
{
    (void)state;
    struct memlimit_where w;
    const char *mi = "25 30 0:22 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw,nsdelegate\n";
    assert_int_equal(memlimit_locate("0::/user.slice/session-3.scope\n", mi, &w), 0);
    assert_int_equal(w.version, 2);
    assert_string_equal(w.dir, "/sys/fs/cgroup/user.slice/session-3.scope");
    assert_int_equal(memlimit_locate("0::/\n", mi, &w), 0);
    assert_string_equal(w.dir, "/sys/fs/cgroup");
}

static void test_container_root(void **state)
{
    (void)state;
    struct memlimit_where w;
    /* The mount's root is the container's own group: the path of
     * /proc/self/cgroup is relative to it. */
    const char *mi = "60 50 0:30 /docker/abc /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n";
    assert_int_equal(memlimit_locate("0::/docker/abc/inner\n", mi, &w), 0);
    assert_string_equal(w.dir, "/sys/fs/cgroup/inner");
    assert_int_equal(memlimit_locate("0::/docker/abc\n", mi, &w), 0);
    assert_string_equal(w.dir, "/sys/fs/cgroup");
    /* A sibling whose name starts alike is not under the root. */
    assert_int_equal(memlimit_locate("0::/docker/abcd\n", mi, &w), 0);
    assert_string_equal(w.dir, "/sys/fs/cgroup/docker/abcd");
}

static void test_nothing_found(void **state)
{
    (void)state;
    struct memlimit_where w;
    /* No memory line and no v2 line; a memory line but no such mount. */
    assert_int_equal(memlimit_locate("1:cpu:/\n", MI_HYBRID, &w), -1);
    assert_int_equal(memlimit_locate("4:memory:/a\n",
                                     "32 31 0:29 / /c rw - cgroup cgroup rw,cpu\n", &w), -1);
    assert_int_equal(memlimit_locate("", "", &w), -1);
    assert_int_equal(memlimit_locate("garbage", "garbage - x", &w), -1);
}

UNIT_MAIN(NULL, NULL,
    cmocka_unit_test(test_v1_wins_over_v2),
    cmocka_unit_test(test_v1_shared_hierarchy),
    cmocka_unit_test(test_v2_unified),
    cmocka_unit_test(test_container_root),
    cmocka_unit_test(test_nothing_found))
