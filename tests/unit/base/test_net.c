/* net: host:port splitting, URL numbers and the open-file limit. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "tests/unit/unit.h"

#include <sys/resource.h>

#include "base/net.h"

static int split(const char *s, struct net_hostport *hp, char *err)
{
    return net_hostport_split(s, strlen(s), hp, err, 128);
}

static void span(const char *p, size_t n, const char *want)
{
    assert_int_equal(n, strlen(want));
    assert_memory_equal(p, want, n);
}

/* s splits into host and port (NULL: no port at all). */
static void splits_to(const char *s, struct net_hostport *hp, const char *host, const char *port)
{
    char err[128];
    assert_int_equal(split(s, hp, err), 0);
    span(hp->host, hp->hlen, host);
    if (port)
        span(hp->port, hp->plen, port);
    else
        assert_null(hp->port);
}

static void test_split(void **state)
{
    (void)state;
    struct net_hostport hp;
    char err[128];
    splits_to("127.0.0.1:5000", &hp, "127.0.0.1", "5000");
    assert_false(hp.bracketed);
    splits_to("localhost", &hp, "localhost", NULL);
    assert_int_equal(hp.plen, 0);
    splits_to("[::1]:6379", &hp, "::1", "6379");
    assert_true(hp.bracketed);
    splits_to("[fe80::1]", &hp, "fe80::1", NULL);
    assert_int_equal(split("h:", &hp, err), 0);   /* empty port: the caller's to refuse */
    assert_non_null(hp.port);
    assert_int_equal(hp.plen, 0);
    assert_int_equal(split(":80", &hp, err), 0);  /* empty host: likewise */
    assert_int_equal(hp.hlen, 0);
    /* Only the n bytes given count. */
    assert_int_equal(net_hostport_split("h:12/x:9", 4, &hp, err, sizeof(err)), 0);
    span(hp.port, hp.plen, "12");
    assert_int_equal(split("[::1", &hp, err), -1);
    assert_string_equal(err, "unclosed '[' in the host");
    assert_int_equal(split("[::1]x", &hp, err), -1);
    assert_string_equal(err, "junk after ']' in the host");
    assert_int_equal(net_hostport_split("[", 1, &hp, NULL, 0), -1);   /* no buffer: fine */
}

static void test_parse_num(void **state)
{
    (void)state;
    long v = -1;
    assert_int_equal(net_parse_num("6379", 4, 1, 65535, &v), 0);
    assert_int_equal(v, 6379);
    assert_int_equal(net_parse_num("63790", 3, 1, 65535, &v), 0);   /* n bytes only */
    assert_int_equal(v, 637);
    assert_int_equal(net_parse_num("0", 1, 0, 10, &v), 0);
    assert_int_equal(v, 0);
    assert_int_equal(net_parse_num("65535", 5, 1, 65535, &v), 0);
    v = 7;
    assert_int_equal(net_parse_num("65536", 5, 1, 65535, &v), -1);
    assert_int_equal(net_parse_num("0", 1, 1, 65535, &v), -1);
    assert_int_equal(net_parse_num("", 0, 0, 10, &v), -1);
    assert_int_equal(net_parse_num("1x", 2, 0, 100, &v), -1);
    assert_int_equal(net_parse_num("-1", 2, -5, 100, &v), -1);
    assert_int_equal(net_parse_num("+1", 2, 0, 100, &v), -1);
    assert_int_equal(net_parse_num("1K", 2, 0, 100000, &v), -1);
    assert_int_equal(net_parse_num("1234567890", 10, 0, 2000000000, &v), -1);   /* > 9 digits */
    assert_int_equal(v, 7);   /* untouched on error */
}

static void test_fd_limit(void **state)
{
    (void)state;
    struct rlimit rl;
    assert_int_equal(getrlimit(RLIMIT_NOFILE, &rl), 0);
    struct net_fdlimit l;
    /* Asking for less than we have changes nothing. */
    assert_int_equal(net_fd_limit_raise(8, &l), 0);
    assert_true(l.now >= 8);
    assert_int_equal(l.now, l.was);
    assert_int_equal(l.err, 0);
    if (rl.rlim_max == RLIM_INFINITY || rl.rlim_max < 64) {
        skip();
        return;
    }
    /* Lowered, then raised toward what is asked, capped at the hard limit. */
    struct rlimit low = {32, rl.rlim_max};
    assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
    assert_int_equal(net_fd_limit_raise(48, &l), 0);
    assert_int_equal(l.was, 32);
    assert_int_equal(l.now, 48);
    assert_int_equal(setrlimit(RLIMIT_NOFILE, &low), 0);
    assert_int_equal(net_fd_limit_raise(UINT64_MAX - 1, &l), 0);
    assert_int_equal(l.now, (uint64_t)rl.rlim_max);
    assert_true(l.now < UINT64_MAX - 1);   /* short of the ask: the caller says so */
    assert_int_equal(setrlimit(RLIMIT_NOFILE, &rl), 0);
}

UNIT_MAIN(NULL, NULL,
    cmocka_unit_test(test_split),
    cmocka_unit_test(test_parse_num),
    cmocka_unit_test(test_fd_limit))
