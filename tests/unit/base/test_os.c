/* Unit tests of base/os: each facility on Linux, and (built a second time
 * with -DKVTEST_OS_FALLBACK as test_os_fallback) its portable fallback or
 * its refusal. */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tests/unit/unit.h"

#include "base/os.h"

#ifdef KVTEST_OS_FALLBACK
#define FALLBACK 1
#else
#define FALLBACK 0
#endif

static void test_random_bytes(void **state)
{
    (void)state;
    unsigned char a[4096], b[4096];
    memset(a, 0, sizeof a);
    memset(b, 0, sizeof b);
    assert_int_equal(os_random_bytes(a, sizeof a), 0);
    assert_int_equal(os_random_bytes(b, sizeof b), 0);
    assert_memory_not_equal(a, b, sizeof a);
    int zeros = 0;
    for (size_t i = 0; i < sizeof a; i++)
        zeros += a[i] == 0;
    assert_true(zeros < 64);   /* ~16 expected; all-zero means unfilled */
}

/* A scratch file of 5 pages in the current directory (the tree's disk),
 * or in $TMPDIR (else /tmp) when that is read-only (a tree mounted
 * read-only after its build); returns its fd. */
static int scratch(char *path, size_t cap)
{
    const char *dir = getenv("TMPDIR");
    if (access(".", W_OK) == 0)
        dir = ".";
    else if (!dir || !*dir)
        dir = "/tmp";
    snprintf(path, cap, "%s/test_os.%ld.tmp", dir, (long)getpid());
    int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
    assert_true(fd >= 0);
    char page[4096];
    memset(page, 'x', sizeof page);
    for (int i = 0; i < 5; i++)
        assert_int_equal(write(fd, page, sizeof page), (ssize_t)sizeof page);
    return fd;
}

static void test_fds_on_path(void **state)
{
    (void)state;
    char path[4096];
    int fd = scratch(path, sizeof path);
    int fd2 = open(path, O_RDONLY);
    assert_true(fd2 >= 0);
    int fds[8];
    int n = os_fds_on_path(path, fds, 8);
    assert_int_equal(n, 2);
    assert_true((fds[0] == fd && fds[1] == fd2) || (fds[0] == fd2 && fds[1] == fd));
    assert_int_equal(os_fds_on_path(path, fds, 1), 1);
    close(fd2);
    unlink(path);
    assert_int_equal(os_fds_on_path(path, fds, 8), 0);
    close(fd);
}

static void test_writeback_evict_resident(void **state)
{
    (void)state;
    char path[4096];
    int fd = scratch(path, sizeof path);
    os_writeback_start(fd);
    assert_int_equal(os_writeback_wait(fd), 0);
    int64_t pages = 0, resident = 0;
    long ps = sysconf(_SC_PAGESIZE);
    if (FALLBACK) {
        assert_non_null(os_evict_missing());
        assert_int_equal(os_evict(fd), -1);
        assert_int_equal(os_resident(fd, 5 * 4096, &pages, &resident), -1);
    } else {
        assert_null(os_evict_missing());
        assert_int_equal(os_resident(fd, 5 * 4096, &pages, &resident), 0);
        assert_int_equal(pages, (5 * 4096 + ps - 1) / ps);
        assert_true(resident >= 1 && resident <= pages);   /* just written */
        assert_int_equal(os_evict(fd), 0);
    }
    close(fd);
    unlink(path);
}

static void test_readahead(void **state)
{
    (void)state;
    char path[4096];
    int fd = scratch(path, sizeof path);
    /* posix_fadvise is POSIX (ADV option): the fallback keeps it here. */
    assert_null(os_readahead_missing());
    assert_int_equal(os_readahead(fd, 1), 0);
    assert_int_equal(os_readahead(fd, 0), 0);
    close(fd);
    unlink(path);
}

static void test_names_and_counters(void **state)
{
    (void)state;
    char buf[256];
    os_cpu_model(buf, sizeof buf);
    assert_true(buf[0] != '\0');
    const char *keys[] = {"rchar", "nosuchfield"};
    int64_t v[2] = {-1, -1};
    if (FALLBACK) {
        assert_string_equal(os_flavour(), "posix");
        assert_int_equal(os_fs_type(".", buf, sizeof buf), -1);
        assert_non_null(os_io_counters_missing());
        assert_int_equal(os_io_counters(keys, 2, v), -1);
        assert_int_equal(v[0], 0);
    } else {
        assert_string_equal(os_flavour(), "linux");
        assert_int_equal(os_fs_type(".", buf, sizeof buf), 0);
        assert_true(buf[0] != '\0' && strcmp(buf, "unknown") != 0);
        assert_int_equal(os_fs_type("/proc", buf, sizeof buf), 0);
        assert_string_equal(buf, "proc");
        assert_int_equal(os_fs_type("/no/such/dir", buf, sizeof buf), -1);
        if (os_io_counters_missing())
            skip();
        assert_int_equal(os_io_counters(keys, 2, v), 0);
        assert_true(v[0] > 0);
        assert_int_equal(v[1], 0);
    }
}

UNIT_MAIN(NULL, NULL,
    cmocka_unit_test(test_random_bytes),
    cmocka_unit_test(test_fds_on_path),
    cmocka_unit_test(test_writeback_evict_resident),
    cmocka_unit_test(test_readahead),
    cmocka_unit_test(test_names_and_counters))
