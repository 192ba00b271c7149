/* load_http: the load engine's URL parser and answer parser, and the
 * failure kinds' names. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tests/unit/unit.h"

#include "load/load_http.h"
#include "load/load_scenario.h"

static void test_fail_names(void **state)
{
    (void)state;
    assert_string_equal(load_fail_name(LOAD_FAIL_CONNECT), "connect");
    assert_string_equal(load_fail_name(LOAD_FAIL_TIMEOUT), "timeout");
    assert_string_equal(load_fail_name(LOAD_FAIL_IO), "io");
    assert_string_equal(load_fail_name(LOAD_FAIL_STATUS), "http_status");
    assert_string_equal(load_fail_name(LOAD_FAIL_BODY), "bad_body");
    assert_string_equal(load_fail_name(LOAD_NFAIL), "?");
}

static void test_url_parse(void **state)
{
    (void)state;
    struct load_url u;
    char err[128];
    assert_int_equal(load_url_parse("http://127.0.0.1:5000", &u, err, sizeof(err)), 0);
    assert_string_equal(u.host, "127.0.0.1");
    assert_string_equal(u.port, "5000");
    assert_string_equal(u.hostport, "127.0.0.1:5000");
    assert_string_equal(u.path, "");
    assert_int_equal(load_url_parse("http://localhost/api/v1/", &u, err, sizeof(err)), 0);
    assert_string_equal(u.host, "localhost");
    assert_string_equal(u.port, "80");
    assert_string_equal(u.path, "/api/v1");
    assert_int_equal(load_url_parse("http://[::1]:8080/x", &u, err, sizeof(err)), 0);
    assert_string_equal(u.host, "::1");
    assert_string_equal(u.port, "8080");
    assert_string_equal(u.hostport, "[::1]:8080");
    assert_string_equal(u.path, "/x");
    assert_int_equal(u.tls, 0);
    /* https: TLS, 443 unless given */
    assert_int_equal(load_url_parse("https://h", &u, err, sizeof(err)), 0);
    assert_int_equal(u.tls, 1);
    assert_string_equal(u.host, "h");
    assert_string_equal(u.port, "443");
    assert_string_equal(u.hostport, "h");
    assert_int_equal(load_url_parse("https://[::1]:8443/p", &u, err, sizeof(err)), 0);
    assert_int_equal(u.tls, 1);
    assert_string_equal(u.host, "::1");
    assert_string_equal(u.port, "8443");
    assert_string_equal(u.path, "/p");
    assert_int_equal(load_url_parse("https://", &u, err, sizeof(err)), -1);
    assert_int_equal(load_url_parse("ftp://h", &u, err, sizeof(err)), -1);
    assert_int_equal(load_url_parse("http://", &u, err, sizeof(err)), -1);
    assert_int_equal(load_url_parse("http://h:0", &u, err, sizeof(err)), -1);
    assert_int_equal(load_url_parse("http://h:99999", &u, err, sizeof(err)), -1);
    assert_int_equal(load_url_parse("http://h:80x", &u, err, sizeof(err)), -1);
    assert_int_equal(load_url_parse("http://h:", &u, err, sizeof(err)), -1);
    assert_int_equal(load_url_parse("http://[::1", &u, err, sizeof(err)), -1);
    assert_int_equal(load_url_parse("http://u@h", &u, err, sizeof(err)), -1);
    assert_int_equal(load_url_parse("http://h/?q=1", &u, err, sizeof(err)), -1);
}

/* Feed text in pieces of `step` bytes; the final feed result. */
static int feed(struct load_resp *r, const char *text, size_t step)
{
    size_t len = strlen(text);
    char why[128];
    for (size_t i = 0; i < len; i += step) {
        size_t n = len - i < step ? len - i : step;
        if (load_resp_feed(r, text + i, n, why, sizeof(why)) != 0)
            return -1;
    }
    return 0;
}

static void test_answers(void **state)
{
    (void)state;
    struct load_resp r;
    assert_int_equal(load_resp_init(&r), 0);
    const char *a = "HTTP/1.1 201 Created\r\nContent-Length: 22\r\n\r\n{\"short_link\": \"Xy12\"}";
    for (size_t step = 1; step <= strlen(a); step += 7) {   /* any split of the bytes */
        load_resp_reset_conn(&r);
        assert_int_equal(feed(&r, a, step), 0);
        assert_true(r.complete);
        assert_int_equal(r.status, 201);
        assert_true(r.keep_alive);
        assert_int_equal(r.len, 22);
        assert_memory_equal(r.body, "{\"short_link\": \"Xy12\"}", 22);
    }
    /* The next answer on the same connection: chunked this time. */
    load_resp_begin(&r);
    assert_false(r.complete);
    assert_int_equal(feed(&r, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                              "4\r\n{\"li\r\n5\r\nnk\": \r\n6\r\n\"u\"}  \r\n0\r\n\r\n", 3), 0);
    assert_true(r.complete);
    assert_int_equal(r.len, 15);
    assert_memory_equal(r.body, "{\"link\": \"u\"}  ", 15);
    /* Connection: close ends keep-alive; so do bytes nobody asked for. */
    load_resp_begin(&r);
    assert_int_equal(feed(&r, "HTTP/1.1 404 Not Found\r\nConnection: close\r\n"
                              "Content-Length: 0\r\n\r\n", 100), 0);
    assert_true(r.complete);
    assert_int_equal(r.status, 404);
    assert_false(r.keep_alive);
    load_resp_reset_conn(&r);
    assert_int_equal(feed(&r, "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}HTTP/1.1", 100), 0);
    assert_true(r.complete);
    assert_false(r.keep_alive);
    /* A body that ends with the connection. */
    load_resp_reset_conn(&r);
    assert_int_equal(feed(&r, "HTTP/1.0 200 OK\r\n\r\n{\"link\": \"u\"}", 5), 0);
    assert_false(r.complete);
    assert_int_equal(load_resp_feed(&r, NULL, 0, NULL, 0), 0);
    assert_true(r.complete);
    assert_int_equal(r.len, 13);
    /* Cut short, or not HTTP at all: an error with a reason. */
    char why[128] = "";
    load_resp_reset_conn(&r);
    assert_int_equal(feed(&r, "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n{}", 100), 0);
    assert_int_equal(load_resp_feed(&r, NULL, 0, why, sizeof(why)), -1);
    assert_non_null(strstr(why, "closed"));
    load_resp_reset_conn(&r);
    assert_int_equal(load_resp_feed(&r, "SSH-2.0-OpenSSH\r\n", 17, why, sizeof(why)), -1);
    assert_non_null(strstr(why, "invalid HTTP"));
    load_resp_free(&r);
}

static void test_answer_too_big(void **state)
{
    (void)state;
    struct load_resp r;
    assert_int_equal(load_resp_init(&r), 0);
    char head[100];
    size_t big = LOAD_BODY_MAX + 10;
    snprintf(head, sizeof(head), "HTTP/1.1 200 OK\r\nContent-Length: %zu\r\n\r\n", big);
    assert_int_equal(feed(&r, head, 100), 0);
    char *body = malloc(big + 1);
    assert_non_null(body);
    memset(body, 'x', big);
    body[big] = '\0';
    assert_int_equal(feed(&r, body, 4000), 0);
    assert_true(r.complete);
    assert_true(r.overflow);   /* counted as bad_body, connection still usable */
    assert_true(r.keep_alive);
    assert_true(r.len <= LOAD_BODY_MAX);
    free(body);
    load_resp_free(&r);
}

/* Pipelining: answers to several requests arrive back to back, several in
 * one read and one split across reads. load_resp_take hands them out one
 * at a time, in order, each with its own status and body. */
static void test_pipelined_answers(void **state)
{
    (void)state;
    const char *stream = "HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\na"
                         "HTTP/1.1 201 Created\r\nTransfer-Encoding: chunked\r\n\r\n"
                         "2\r\nbb\r\n0\r\n\r\n"
                         "HTTP/1.1 404 Not Found\r\nContent-Length: 3\r\n\r\nccc"
                         "HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\ndddd";
    const char *bodies[] = {"a", "bb", "ccc", "dddd"};
    const int status[] = {200, 201, 404, 200};
    const size_t steps[] = {1, 7, 64, strlen(stream)};
    for (size_t k = 0; k < sizeof(steps) / sizeof(steps[0]); k++) {
        struct load_resp r;
        assert_int_equal(load_resp_init(&r), 0);
        size_t n = strlen(stream), at = 0;
        int got = 0;
        char why[128];
        while (at < n) {   /* one "read" of up to steps[k] bytes */
            size_t end = at + steps[k] < n ? at + steps[k] : n;
            while (at < end) {
                ssize_t used = load_resp_take(&r, stream + at, end - at, why, sizeof(why));
                assert_true(used > 0 && (size_t)used <= end - at);
                at += (size_t)used;
                if (!r.complete)
                    break;
                assert_true(got < 4);
                assert_int_equal(r.status, status[got]);
                assert_int_equal(r.len, strlen(bodies[got]));
                assert_memory_equal(r.body, bodies[got], r.len);
                assert_true(r.keep_alive);
                got++;
                load_resp_begin(&r);
            }
        }
        assert_int_equal(got, 4);
        load_resp_free(&r);
    }
}

UNIT_MAIN(NULL, NULL,
    cmocka_unit_test(test_fail_names),
    cmocka_unit_test(test_url_parse),
    cmocka_unit_test(test_answers),
    cmocka_unit_test(test_answer_too_big),
    cmocka_unit_test(test_pipelined_answers))
