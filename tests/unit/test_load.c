/* loadmix: the load generator's request mix, key selection and the
 * classification of answers into successes and kinds of failure. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "load/load_http.h"
#include "shortener/cli/loadmix.h"

/* ---- failure classification -------------------------------------------- */

static void test_fail_names(void **state)
{
    (void)state;
    assert_string_equal(loadmix_fail_name(LOAD_FAIL_CONNECT), "connect");
    assert_string_equal(loadmix_fail_name(LOAD_FAIL_TIMEOUT), "timeout");
    assert_string_equal(loadmix_fail_name(LOAD_FAIL_IO), "io");
    assert_string_equal(loadmix_fail_name(LOAD_FAIL_STATUS), "http_status");
    assert_string_equal(loadmix_fail_name(LOAD_FAIL_BODY), "bad_body");
    assert_string_equal(loadmix_fail_name(LOAD_NFAIL), "?");
    assert_string_equal(loadmix_req_name(LOAD_POST), "POST");
    assert_string_equal(loadmix_req_name(LOAD_GET), "GET");
}

static enum load_fail post(long status, const char *body, char *id)
{
    char why[128];
    return loadmix_check_post(status, body, body ? strlen(body) : 0, id, 65, why, sizeof(why));
}

static void test_check_post(void **state)
{
    (void)state;
    char id[65] = "";
    assert_int_equal(post(201, "{\"short_link\": \"Ab3dE6gH9k\"}", id), LOAD_OK);
    assert_string_equal(id, "Ab3dE6gH9k");
    /* Wrong status, whatever the body. */
    assert_int_equal(post(200, "{\"short_link\": \"Ab3dE6gH9k\"}", id), LOAD_FAIL_STATUS);
    assert_int_equal(post(500, "{\"error\": \"x\"}", id), LOAD_FAIL_STATUS);
    assert_int_equal(post(404, "", id), LOAD_FAIL_STATUS);
    /* Right status, body without what the contract promises. */
    assert_int_equal(post(201, "", id), LOAD_FAIL_BODY);
    assert_int_equal(post(201, "not json", id), LOAD_FAIL_BODY);
    assert_int_equal(post(201, "[\"short_link\"]", id), LOAD_FAIL_BODY);
    assert_int_equal(post(201, "{\"id\": \"Ab3dE6gH9k\"}", id), LOAD_FAIL_BODY);
    assert_int_equal(post(201, "{\"short_link\": 12345}", id), LOAD_FAIL_BODY);
    assert_int_equal(post(201, "{\"short_link\": \"\"}", id), LOAD_FAIL_BODY);
    assert_int_equal(post(201, "{\"short_link\": \"ab/cd\"}", id), LOAD_FAIL_BODY);
    assert_int_equal(post(201, "{\"Short_Link\": \"Ab3dE6gH9k\"}", id), LOAD_FAIL_BODY);
    char big[200];
    snprintf(big, sizeof(big), "{\"short_link\": \"%070d\"}", 1);
    assert_int_equal(post(201, big, id), LOAD_FAIL_BODY);   /* over 64 characters */
    /* The body is a buffer, not a string: only len bytes count. */
    const char *b = "{\"short_link\": \"Xy12\"}trailing garbage";
    assert_int_equal(loadmix_check_post(201, b, 22, id, sizeof(id), NULL, 0), LOAD_OK);
    assert_string_equal(id, "Xy12");
    assert_int_equal(loadmix_check_post(201, b, 10, id, sizeof(id), NULL, 0), LOAD_FAIL_BODY);
    /* An id that does not fit the caller's buffer is not silently cut. */
    char small[4];
    assert_int_equal(loadmix_check_post(201, b, 22, small, sizeof(small), NULL, 0),
                     LOAD_FAIL_BODY);
}

static void test_check_post_reason(void **state)
{
    (void)state;
    char id[65], why[128] = "";
    const char *body = "{\"error\": \"boom\"}";
    loadmix_check_post(503, body, strlen(body), id, sizeof(id), why, sizeof(why));
    assert_non_null(strstr(why, "503"));
}

static enum load_fail get(long status, const char *body, const char *expect)
{
    char why[128];
    return loadmix_check_get(status, body, strlen(body), expect, why, sizeof(why));
}

static void test_check_get(void **state)
{
    (void)state;
    const char *u = "https://example.com/a/b?c=d";
    assert_int_equal(get(200, "{\"link\": \"https://example.com/a/b?c=d\"}", u), LOAD_OK);
    /* The resolved URL must be exactly the created one. */
    assert_int_equal(get(200, "{\"link\": \"https://example.com/a/b?c=e\"}", u), LOAD_FAIL_BODY);
    assert_int_equal(get(200, "{\"link\": \"https://example.com/a/b\"}", u), LOAD_FAIL_BODY);
    assert_int_equal(get(200, "{\"url\": \"https://example.com/a/b?c=d\"}", u), LOAD_FAIL_BODY);
    assert_int_equal(get(200, "{\"link\": null}", u), LOAD_FAIL_BODY);
    assert_int_equal(get(200, "", u), LOAD_FAIL_BODY);
    assert_int_equal(get(404, "{\"error\": \"not found\"}", u), LOAD_FAIL_STATUS);
    assert_int_equal(get(500, "{\"link\": \"https://example.com/a/b?c=d\"}", u), LOAD_FAIL_STATUS);
    /* Ids from --keys: any http(s) URL will do. */
    assert_int_equal(get(200, "{\"link\": \"http://x.org/\"}", NULL), LOAD_OK);
    assert_int_equal(get(200, "{\"link\": \"https://x.org/\"}", NULL), LOAD_OK);
    assert_int_equal(get(200, "{\"link\": \"ftp://x.org/\"}", NULL), LOAD_FAIL_BODY);
    assert_int_equal(get(200, "{\"link\": \"\"}", NULL), LOAD_FAIL_BODY);
}

/* ---- request mix --------------------------------------------------------- */

static void test_task_steps(void **state)
{
    (void)state;
    /* The classic task: one POST, then `gets` GETs of that link. */
    assert_int_equal(loadmix_task_step(0, 80), LOAD_POST);
    for (int64_t s = 1; s <= 80; s++)
        assert_int_equal(loadmix_task_step(s, 80), LOAD_GET);
    assert_int_equal(loadmix_task_step(81, 80), -1);
    assert_int_equal(loadmix_task_step(0, 0), LOAD_POST);
    assert_int_equal(loadmix_task_step(1, 0), -1);
}

static void test_pick_ratio(void **state)
{
    (void)state;
    rng_t r;
    rng_seed(&r, 42);
    for (int i = 0; i < 1000; i++) {
        assert_int_equal(loadmix_pick(0.0, 1, &r), LOAD_GET);
        assert_int_equal(loadmix_pick(1.0, 1, &r), LOAD_POST);
        /* Nothing to GET yet: create first, whatever the ratio. */
        assert_int_equal(loadmix_pick(0.0, 0, &r), LOAD_POST);
    }
    const int n = 200000;
    int posts = 0;
    for (int i = 0; i < n; i++)
        posts += loadmix_pick(0.25, 1, &r) == LOAD_POST;
    /* sd = sqrt(n p (1-p)) ~ 194; allow 5 sd. */
    assert_in_range(posts, 50000 - 970, 50000 + 970);
}

static void test_make_url(void **state)
{
    (void)state;
    rng_t r;
    rng_seed(&r, 7);
    char a[256], b[256];
    size_t minlen = 1000, maxlen = 0;
    for (uint64_t seq = 0; seq < 2000; seq++) {
        size_t n = loadmix_make_url(a, sizeof(a), &r, 3, seq);
        assert_int_equal(n, strlen(a));
        assert_true(strncmp(a, "https://", 8) == 0);
        for (size_t i = 0; i < n; i++)   /* nothing the service would reject or JSON-escape */
            assert_true(a[i] > 0x20 && a[i] < 0x7f && a[i] != '"' && a[i] != '\\');
        minlen = n < minlen ? n : minlen;
        maxlen = n > maxlen ? n : maxlen;
    }
    assert_true(minlen >= 30);
    assert_true(maxlen <= 255);
    assert_true(maxlen - minlen >= 60);   /* varied lengths */
    /* Unique per (vu, seq), even with the same random stream. */
    rng_t r1, r2;
    rng_seed(&r1, 1);
    rng_seed(&r2, 1);
    loadmix_make_url(a, sizeof(a), &r1, 1, 2);
    loadmix_make_url(b, sizeof(b), &r2, 1, 3);
    assert_string_not_equal(a, b);
    rng_seed(&r2, 1);
    loadmix_make_url(b, sizeof(b), &r2, 2, 2);
    assert_string_not_equal(a, b);
    assert_int_equal(loadmix_make_url(a, 100, &r, 1, 1), 0);
}

/* ---- keys file ------------------------------------------------------------ */

static int parse(struct loadkeys *k, const char *text, char *err)
{
    size_t len = strlen(text);
    char *buf = malloc(len + 1);
    assert_non_null(buf);
    memcpy(buf, text, len + 1);
    int rc = loadkeys_parse(k, buf, len, err, 160);
    if (rc != 0)
        free(buf);   /* on error the caller keeps the buffer */
    return rc;
}

static void test_keys_parse(void **state)
{
    (void)state;
    struct loadkeys k;
    char err[160];
    assert_int_equal(parse(&k, "abc\n\n  Def12 \r\nxyz9", err), 0);
    assert_int_equal(k.n, 3);
    assert_string_equal(k.id[0], "abc");
    assert_string_equal(k.id[1], "Def12");
    assert_string_equal(k.id[2], "xyz9");   /* last line without newline */
    loadkeys_free(&k);
    assert_int_equal(parse(&k, "", err), 0);
    assert_int_equal(k.n, 0);
    loadkeys_free(&k);

    assert_int_equal(parse(&k, "good\nbad id\n", err), -1);
    assert_non_null(strstr(err, "line 2"));
    assert_null(k.buf);
    assert_int_equal(parse(&k, "ok\nslash/no\n", err), -1);
    char long_id[80];
    memset(long_id, 'a', 65);
    long_id[65] = '\0';
    assert_int_equal(parse(&k, long_id, err), -1);
}

static void test_keys_read(void **state)
{
    (void)state;
    char path[] = "/tmp/kvtest-test-load-XXXXXX";
    int fd = mkstemp(path);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    assert_non_null(f);
    for (int i = 0; i < 5000; i++)   /* larger than the first read buffer */
        fprintf(f, "Id%08d\n", i);
    fclose(f);
    struct loadkeys k;
    char err[256];
    assert_int_equal(loadkeys_read(&k, path, err, sizeof(err)), 0);
    assert_int_equal(k.n, 5000);
    assert_string_equal(k.id[0], "Id00000000");
    assert_string_equal(k.id[4999], "Id00004999");
    loadkeys_free(&k);

    f = fopen(path, "w");   /* empty: an error, not a silent run with no keys */
    assert_non_null(f);
    fclose(f);
    assert_int_equal(loadkeys_read(&k, path, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "no link ids"));
    unlink(path);
    assert_int_equal(loadkeys_read(&k, path, err, sizeof(err)), -1);
    assert_non_null(strstr(err, path));
}

/* ---- key selection -------------------------------------------------------- */

static void test_pick_uniform(void **state)
{
    (void)state;
    struct loadpick p;
    assert_int_equal(loadpick_init(&p, 0, 0), -1);
    assert_int_equal(loadpick_init(&p, 10, -1), -1);
    assert_int_equal(loadpick_init(&p, 10, 0), 0);
    rng_t r;
    rng_seed(&r, 3);
    int count[10] = {0};
    for (int i = 0; i < 100000; i++) {
        uint64_t x = loadpick_next(&p, &r);
        assert_true(x < 10);
        count[x]++;
    }
    for (int i = 0; i < 10; i++)   /* sd ~ 95 */
        assert_in_range(count[i], 10000 - 500, 10000 + 500);
    assert_int_equal(loadpick_init(&p, 1, 0), 0);
    for (int i = 0; i < 100; i++)
        assert_int_equal(loadpick_next(&p, &r), 0);
}

static void test_scatter_bijection(void **state)
{
    (void)state;
    const uint64_t sizes[] = {1, 2, 3, 10, 97, 100, 1000, 4096, 65537};
    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); s++) {
        uint64_t n = sizes[s];
        struct loadpick p;
        assert_int_equal(loadpick_init(&p, n, 1.0), 0);
        unsigned char *seen = calloc(n, 1);
        assert_non_null(seen);
        for (uint64_t i = 0; i < n; i++) {
            uint64_t x = loadpick_scatter(&p, i);
            assert_true(x < n);
            assert_int_equal(seen[x], 0);
            seen[x] = 1;
        }
        free(seen);
        /* The hottest ranks are not neighbours in the file. */
        if (n >= 100) {
            int64_t d = (int64_t)loadpick_scatter(&p, 1) - (int64_t)loadpick_scatter(&p, 0);
            assert_true(llabs(d) > 1);
        }
    }
}

static void test_pick_zipf(void **state)
{
    (void)state;
    const uint64_t n = 1000;
    struct loadpick p;
    assert_int_equal(loadpick_init(&p, n, 1.1), 0);
    rng_t r;
    rng_seed(&r, 11);
    uint64_t *count = calloc(n, sizeof(*count));
    assert_non_null(count);
    const int draws = 200000;
    for (int i = 0; i < draws; i++) {
        uint64_t x = loadpick_next(&p, &r);
        assert_true(x < n);
        count[x]++;
    }
    /* Rank 1 of Zipf(1.1) over 1000 keys gets ~16% of the draws (uniform:
     * 0.1%), and lands where the scatter puts rank 0. */
    uint64_t hot = loadpick_scatter(&p, 0);
    assert_true(count[hot] > (uint64_t)draws / 10);
    for (uint64_t i = 0; i < n; i++)
        assert_true(count[i] <= count[hot]);
    /* Same seed, same sequence. */
    rng_t a, b;
    rng_seed(&a, 5);
    rng_seed(&b, 5);
    for (int i = 0; i < 1000; i++)
        assert_int_equal(loadpick_next(&p, &a), loadpick_next(&p, &b));
    free(count);
}

/* ---- the engine's HTTP: URL, requests, answers ------------------------------ */

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
    assert_int_equal(load_url_parse("https://h", &u, err, sizeof(err)), -1);
    assert_int_equal(load_url_parse("http://", &u, err, sizeof(err)), -1);
    assert_int_equal(load_url_parse("http://h:0", &u, err, sizeof(err)), -1);
    assert_int_equal(load_url_parse("http://h:99999", &u, err, sizeof(err)), -1);
    assert_int_equal(load_url_parse("http://h:80x", &u, err, sizeof(err)), -1);
    assert_int_equal(load_url_parse("http://h:", &u, err, sizeof(err)), -1);
    assert_int_equal(load_url_parse("http://[::1", &u, err, sizeof(err)), -1);
    assert_int_equal(load_url_parse("http://u@h", &u, err, sizeof(err)), -1);
    assert_int_equal(load_url_parse("http://h/?q=1", &u, err, sizeof(err)), -1);
}

static void test_requests(void **state)
{
    (void)state;
    struct load_url u;
    assert_int_equal(load_url_parse("http://h:81/p", &u, NULL, 0), 0);
    struct load_reqfmt f;
    load_reqfmt_init(&f, &u);
    char buf[2048];
    size_t n = load_reqfmt_get(&f, buf, sizeof(buf), "Ab12");
    const char *get = "GET /p/link/Ab12 HTTP/1.1\r\nHost: h:81\r\n\r\n";
    assert_int_equal(n, strlen(get));
    assert_memory_equal(buf, get, n);
    n = load_reqfmt_post(&f, buf, sizeof(buf), "https://x.org/a");
    const char *post = "POST /p/link HTTP/1.1\r\nHost: h:81\r\n"
                       "Content-Type: application/json\r\nContent-Length: 26\r\n\r\n"
                       "{\"url\": \"https://x.org/a\"}";
    assert_int_equal(n, strlen(post));
    assert_memory_equal(buf, post, n);
    /* Too small a buffer: nothing half-written is reported as a request. */
    assert_int_equal(load_reqfmt_get(&f, buf, 20, "Ab12"), 0);
    assert_int_equal(load_reqfmt_post(&f, buf, 60, "https://x.org/a"), 0);
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

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_fail_names),
        cmocka_unit_test(test_check_post),
        cmocka_unit_test(test_check_post_reason),
        cmocka_unit_test(test_check_get),
        cmocka_unit_test(test_task_steps),
        cmocka_unit_test(test_pick_ratio),
        cmocka_unit_test(test_make_url),
        cmocka_unit_test(test_keys_parse),
        cmocka_unit_test(test_keys_read),
        cmocka_unit_test(test_pick_uniform),
        cmocka_unit_test(test_scatter_bijection),
        cmocka_unit_test(test_pick_zipf),
        cmocka_unit_test(test_url_parse),
        cmocka_unit_test(test_requests),
        cmocka_unit_test(test_answers),
        cmocka_unit_test(test_answer_too_big),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
