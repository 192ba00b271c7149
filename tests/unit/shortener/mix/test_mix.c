/* mix: the shortener's load scenario: answer checks, the request mix, URLs
 * to shorten, the requests' bytes, and the scenario as the engine drives it. */
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
#include "shortener/mix/mix.h"
#include "shortener/mix/mix_check.h"

#include <cjson/cJSON.h>

static enum load_fail post(long status, const char *body, char *id)
{
    char why[128];
    return mix_check_post(status, body, body ? strlen(body) : 0, id, 65, why, sizeof(why));
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
    assert_int_equal(mix_check_post(201, b, 22, id, sizeof(id), NULL, 0), LOAD_OK);
    assert_string_equal(id, "Xy12");
    assert_int_equal(mix_check_post(201, b, 10, id, sizeof(id), NULL, 0), LOAD_FAIL_BODY);
    /* An id that does not fit the caller's buffer is not silently cut. */
    char small[4];
    assert_int_equal(mix_check_post(201, b, 22, small, sizeof(small), NULL, 0),
                     LOAD_FAIL_BODY);
}

static void test_check_post_reason(void **state)
{
    (void)state;
    char id[65], why[128] = "";
    const char *body = "{\"error\": \"boom\"}";
    mix_check_post(503, body, strlen(body), id, sizeof(id), why, sizeof(why));
    assert_non_null(strstr(why, "503"));
}

static enum load_fail get(long status, const char *body, const char *expect)
{
    char why[128];
    return mix_check_get(status, body, strlen(body), expect, why, sizeof(why));
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

static void test_task_steps(void **state)
{
    (void)state;
    /* The classic task: one POST, then `gets` GETs of that link. */
    assert_int_equal(mix_task_step(0, 80), MIX_POST);
    for (int64_t s = 1; s <= 80; s++)
        assert_int_equal(mix_task_step(s, 80), MIX_GET);
    assert_int_equal(mix_task_step(81, 80), -1);
    assert_int_equal(mix_task_step(0, 0), MIX_POST);
    assert_int_equal(mix_task_step(1, 0), -1);
}

/* --walk: key i of pass i / n, in file order, until the passes are out. */
static void test_walk_key(void **state)
{
    (void)state;
    for (int64_t i = 0; i < 6; i++)
        assert_int_equal(mix_walk_key(i, 2, 3), i % 3);
    assert_int_equal(mix_walk_key(6, 2, 3), -1);
    assert_int_equal(mix_walk_key(1000, 2, 3), -1);
    assert_int_equal(mix_walk_key(0, 1, 1), 0);
    assert_int_equal(mix_walk_key(1, 1, 1), -1);
    assert_int_equal(mix_walk_key(0, 1, 0), -1);
    assert_int_equal(mix_walk_key(-1, 1, 3), -1);
}

/* --walk 2 over 3 ids with two connections on two workers: they share one
 * walk (6 GETs in all, in file order), every one a task, then both DONE. */
static void test_scenario_walk(void **state)
{
    (void)state;
    struct load_url u;
    assert_int_equal(load_url_parse("http://h", &u, NULL, 0), 0);
    char ids[] = "aa\nbb\ncc\n";
    struct mix_keys keys;
    char err[128];
    char *buf0 = strdup(ids);
    assert_int_equal(mix_keys_parse(&keys, buf0, strlen(buf0), err, sizeof(err)), 0);
    struct mix_opts o = {.walk = 2};
    struct load_scenario sc;
    assert_int_equal(mix_scenario_init(&sc, &o, &u, &keys, NULL), 0);
    void *w0 = sc.ops->worker_new(sc.state, 0, 1), *w1 = sc.ops->worker_new(sc.state, 1, 1);
    void *c[2] = {sc.ops->conn_new(w0, 0), sc.ops->conn_new(w1, 1)};
    const char *want[] = {"aa", "bb", "cc", "aa", "bb", "cc"};
    char buf[LOAD_REQ_MAX], line[64], why[128];
    size_t len;
    const char *ok = "{\"link\": \"https://x.example/\"}";
    for (int i = 0; i < 6; i++) {
        void *ci = c[i % 2];
        assert_int_equal(sc.ops->next(ci, 0, buf, sizeof(buf), &len), MIX_GET);
        snprintf(line, sizeof(line), "GET /link/%s HTTP/1.1\r\n", want[i]);
        assert_memory_equal(buf, line, strlen(line));
        assert_int_equal(sc.ops->check(ci, MIX_GET, 200, ok, strlen(ok), why, sizeof(why)),
                         LOAD_OK);
        assert_int_equal(sc.ops->finished(ci, MIX_GET, LOAD_OK), 1);
    }
    assert_int_equal(sc.ops->next(c[0], 0, buf, sizeof(buf), &len), LOAD_NEXT_DONE);
    assert_int_equal(sc.ops->next(c[1], 0, buf, sizeof(buf), &len), LOAD_NEXT_DONE);
    for (int i = 0; i < 2; i++)
        sc.ops->conn_free(c[i]);
    sc.ops->worker_free(w0);
    sc.ops->worker_free(w1);
    mix_scenario_free(&sc);
    mix_keys_free(&keys);
}

static void test_pick_ratio(void **state)
{
    (void)state;
    rng_t r;
    rng_seed(&r, 42);
    for (int i = 0; i < 1000; i++) {
        assert_int_equal(mix_pick(0.0, 1, &r), MIX_GET);
        assert_int_equal(mix_pick(1.0, 1, &r), MIX_POST);
        /* Nothing to GET yet: create first, whatever the ratio. */
        assert_int_equal(mix_pick(0.0, 0, &r), MIX_POST);
    }
    const int n = 200000;
    int posts = 0;
    for (int i = 0; i < n; i++)
        posts += mix_pick(0.25, 1, &r) == MIX_POST;
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
        size_t n = mix_make_url(a, sizeof(a), &r, 3, seq);
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
    mix_make_url(a, sizeof(a), &r1, 1, 2);
    mix_make_url(b, sizeof(b), &r2, 1, 3);
    assert_string_not_equal(a, b);
    rng_seed(&r2, 1);
    mix_make_url(b, sizeof(b), &r2, 2, 2);
    assert_string_not_equal(a, b);
    assert_int_equal(mix_make_url(a, 100, &r, 1, 1), 0);
}

static void test_requests(void **state)
{
    (void)state;
    struct load_url u;
    assert_int_equal(load_url_parse("http://h:81/p", &u, NULL, 0), 0);
    struct mix_reqfmt f;
    mix_reqfmt_init(&f, &u);
    char buf[2048];
    size_t n = mix_reqfmt_get(&f, buf, sizeof(buf), "Ab12");
    const char *get = "GET /p/link/Ab12 HTTP/1.1\r\nHost: h:81\r\n\r\n";
    assert_int_equal(n, strlen(get));
    assert_memory_equal(buf, get, n);
    n = mix_reqfmt_post(&f, buf, sizeof(buf), "https://x.org/a");
    const char *post = "POST /p/link HTTP/1.1\r\nHost: h:81\r\n"
                       "Content-Type: application/json\r\nContent-Length: 26\r\n\r\n"
                       "{\"url\": \"https://x.org/a\"}";
    assert_int_equal(n, strlen(post));
    assert_memory_equal(buf, post, n);
    /* Too small a buffer: nothing half-written is reported as a request. */
    assert_int_equal(mix_reqfmt_get(&f, buf, 20, "Ab12"), 0);
    assert_int_equal(mix_reqfmt_post(&f, buf, 60, "https://x.org/a"), 0);
}

/* An answer to the POST in buf: 201 with short_link id; the URL it
 * created (from the request's JSON body) into url. */
static void created(const char *buf, size_t len, char *url, size_t cap)
{
    const char *b = strstr(buf, "{\"url\": \"");
    assert_non_null(b);
    b += 9;
    const char *e = memchr(b, '"', len - (size_t)(b - buf));
    assert_non_null(e);
    assert_true((size_t)(e - b) < cap);
    memcpy(url, b, (size_t)(e - b));
    url[e - b] = '\0';
}

/* Task mode through the scenario interface, as the engine calls it: POST,
 * then --gets GETs of the created id that must return its URL; a failure
 * ends the task; --tasks ends the connection. */
static void test_scenario_tasks(void **state)
{
    (void)state;
    struct load_url u;
    assert_int_equal(load_url_parse("http://h:81/p", &u, NULL, 0), 0);
    struct mix_opts o = {.tasks = 2, .gets = 2, .create_ratio = 1.0 / 3};
    struct load_scenario sc;
    assert_int_equal(mix_scenario_init(&sc, &o, &u, NULL, NULL), 0);
    assert_int_equal(sc.nkinds, 2);
    assert_string_equal(sc.kinds[MIX_POST], "POST");
    assert_string_equal(sc.kinds[MIX_GET], "GET");
    void *w = sc.ops->worker_new(sc.state, 0, 1);
    assert_non_null(w);
    void *c = sc.ops->conn_new(w, 0);
    assert_non_null(c);
    char buf[LOAD_REQ_MAX], url[256], body[400], why[128];
    size_t len = 0;
    assert_int_equal(sc.ops->next(c, 0, buf, sizeof(buf), &len), MIX_POST);
    assert_true(len > 0 && strncmp(buf, "POST /p/link HTTP/1.1\r\n", 23) == 0);
    created(buf, len, url, sizeof(url));
    const char *ok = "{\"short_link\": \"Ab12\"}";
    assert_int_equal(sc.ops->check(c, MIX_POST, 201, ok, strlen(ok), why, sizeof(why)), LOAD_OK);
    assert_int_equal(sc.ops->finished(c, MIX_POST, LOAD_OK), 0);
    snprintf(body, sizeof(body), "{\"link\": \"%s\"}", url);
    for (int g = 0; g < 2; g++) {
        assert_int_equal(sc.ops->next(c, 0, buf, sizeof(buf), &len), MIX_GET);
        assert_memory_equal(buf, "GET /p/link/Ab12 HTTP/1.1\r\n", 27);
        assert_int_equal(sc.ops->check(c, MIX_GET, 200, body, strlen(body), why, sizeof(why)),
                         LOAD_OK);
        assert_int_equal(sc.ops->check(c, MIX_GET, 200, "{\"link\": \"https://x.org/\"}", 26, why,
                                  sizeof(why)), LOAD_FAIL_BODY);
        assert_int_equal(sc.ops->finished(c, MIX_GET, LOAD_OK), g == 1);   /* the last GET ends it */
    }
    /* The second task fails at its POST: over, its GETs never sent. */
    assert_int_equal(sc.ops->next(c, 0, buf, sizeof(buf), &len), MIX_POST);
    assert_int_equal(sc.ops->finished(c, MIX_POST, LOAD_FAIL_IO), 1);
    assert_int_equal(sc.ops->next(c, 0, buf, sizeof(buf), &len), LOAD_NEXT_DONE);
    /* The --json options the shortener has always printed, in two parts. */
    cJSON *op = cJSON_CreateObject();
    sc.ops->options_json(sc.state, op, 0);
    assert_int_equal(cJSON_GetObjectItem(op, "gets")->valuedouble, 2);
    assert_null(cJSON_GetObjectItem(op, "keys"));
    sc.ops->options_json(sc.state, op, 1);
    assert_true(cJSON_IsNull(cJSON_GetObjectItem(op, "keys")));
    assert_non_null(cJSON_GetObjectItem(op, "create_ratio"));
    cJSON_Delete(op);
    sc.ops->conn_free(c);
    sc.ops->worker_free(w);
    mix_scenario_free(&sc);
}

/* Duration mode without --keys: GETs ask for links this worker created. */
static void test_scenario_pool(void **state)
{
    (void)state;
    struct load_url u;
    assert_int_equal(load_url_parse("http://h", &u, NULL, 0), 0);
    struct mix_opts o = {.duration = 1, .create_ratio = 0.5};
    struct load_scenario sc;
    assert_int_equal(mix_scenario_init(&sc, &o, &u, NULL, NULL), 0);
    void *w = sc.ops->worker_new(sc.state, 0, 1);
    void *c = sc.ops->conn_new(w, 0);
    char buf[LOAD_REQ_MAX], why[128];
    size_t len;
    /* Nothing to GET yet: a POST, whatever the ratio. */
    assert_int_equal(sc.ops->next(c, 0, buf, sizeof(buf), &len), MIX_POST);
    const char *ok = "{\"short_link\": \"Zz9\"}";
    assert_int_equal(sc.ops->check(c, MIX_POST, 201, ok, strlen(ok), why, sizeof(why)), LOAD_OK);
    assert_int_equal(sc.ops->finished(c, MIX_POST, LOAD_OK), 1);   /* every request is a task */
    int gets = 0;
    for (int i = 0; i < 200; i++) {
        int k = sc.ops->next(c, 0, buf, sizeof(buf), &len);
        if (k == MIX_GET) {
            gets++;
            assert_memory_equal(buf, "GET /link/Zz9 HTTP/1.1\r\n", 24);
        }
        sc.ops->finished(c, k, LOAD_FAIL_TIMEOUT);   /* nothing more enters the pool */
    }
    assert_true(gets > 50 && gets < 150);
    sc.ops->conn_free(c);
    sc.ops->worker_free(w);
    mix_scenario_free(&sc);
}

/* --pipeline 4, task mode: the GETs wait for the POST's answer (WAIT),
 * then go together; the next task waits until the last GET is in. */
static void test_scenario_tasks_pipelined(void **state)
{
    (void)state;
    struct load_url u;
    assert_int_equal(load_url_parse("http://h", &u, NULL, 0), 0);
    struct mix_opts o = {.tasks = 2, .gets = 3, .create_ratio = 0.25, .pipeline = 4};
    struct load_scenario sc;
    assert_int_equal(mix_scenario_init(&sc, &o, &u, NULL, NULL), 0);
    void *w = sc.ops->worker_new(sc.state, 0, 1);
    void *c = sc.ops->conn_new(w, 0);
    char buf[LOAD_REQ_MAX], url[256], body[400], why[128];
    size_t len = 0;
    assert_int_equal(sc.ops->next(c, 0, buf, sizeof(buf), &len), MIX_POST);
    created(buf, len, url, sizeof(url));
    assert_int_equal(sc.ops->next(c, 0, buf, sizeof(buf), &len), LOAD_NEXT_WAIT);
    const char *ok = "{\"short_link\": \"Q7\"}";
    assert_int_equal(sc.ops->check(c, MIX_POST, 201, ok, strlen(ok), why, sizeof(why)), LOAD_OK);
    assert_int_equal(sc.ops->finished(c, MIX_POST, LOAD_OK), 0);
    for (int g = 0; g < 3; g++) {
        assert_int_equal(sc.ops->next(c, 0, buf, sizeof(buf), &len), MIX_GET);
        assert_memory_equal(buf, "GET /link/Q7 HTTP/1.1\r\n", 23);
    }
    assert_int_equal(sc.ops->next(c, 0, buf, sizeof(buf), &len), LOAD_NEXT_WAIT);
    snprintf(body, sizeof(body), "{\"link\": \"%s\"}", url);
    for (int g = 0; g < 3; g++) {
        assert_int_equal(sc.ops->check(c, MIX_GET, 200, body, strlen(body), why, sizeof(why)),
                         LOAD_OK);
        assert_int_equal(sc.ops->finished(c, MIX_GET, LOAD_OK), g == 2);
    }
    /* The second task: its first GET fails and ends it; the two behind it
     * end without counting, and only then is the connection done. */
    assert_int_equal(sc.ops->next(c, 0, buf, sizeof(buf), &len), MIX_POST);
    assert_int_equal(sc.ops->finished(c, MIX_POST, LOAD_OK), 0);
    for (int g = 0; g < 3; g++)
        assert_int_equal(sc.ops->next(c, 0, buf, sizeof(buf), &len), MIX_GET);
    assert_int_equal(sc.ops->finished(c, MIX_GET, LOAD_FAIL_BODY), 1);
    assert_int_equal(sc.ops->next(c, 0, buf, sizeof(buf), &len), LOAD_NEXT_WAIT);
    assert_int_equal(sc.ops->finished(c, MIX_GET, LOAD_OK), 0);
    assert_int_equal(sc.ops->finished(c, MIX_GET, LOAD_OK), 0);
    assert_int_equal(sc.ops->next(c, 0, buf, sizeof(buf), &len), LOAD_NEXT_DONE);
    sc.ops->conn_free(c);
    sc.ops->worker_free(w);
    mix_scenario_free(&sc);
}

/* --pipeline 3, duration mode, in steady state as the engine drives it:
 * three requests in flight, each answer checked then finished, and the
 * next request built at once. Each request keeps what its own answer must
 * say: a POST's created URL (its id then GETs that URL), a GET the URL of
 * the link it asks for, so another request's answer fails. */
static void test_scenario_pool_pipelined(void **state)
{
    (void)state;
    struct load_url u;
    assert_int_equal(load_url_parse("http://h", &u, NULL, 0), 0);
    struct mix_opts o = {.duration = 1, .create_ratio = 0.3, .pipeline = 3};
    struct load_scenario sc;
    assert_int_equal(mix_scenario_init(&sc, &o, &u, NULL, NULL), 0);
    void *w = sc.ops->worker_new(sc.state, 0, 1);
    void *c = sc.ops->conn_new(w, 0);
    char buf[LOAD_REQ_MAX], why[128], body[400];
    size_t len;
    /* The test's own FIFO of what each request in flight must get. */
    struct { int kind; char url[256]; } fifo[3];
    char urls[200][256];   /* link i: id "L<i>", its URL */
    int nlinks = 0, head = 0, n = 0, gets = 0;
    for (int step = 0; step < 300; step++) {
        while (n < 3) {
            int k = sc.ops->next(c, 0, buf, sizeof(buf), &len);
            int t = (head + n) % 3;
            fifo[t].kind = k;
            if (k == MIX_POST) {
                created(buf, len, fifo[t].url, sizeof(fifo[t].url));
            } else {
                assert_int_equal(k, MIX_GET);
                int id = atoi(buf + strlen("GET /link/L"));
                assert_true(id >= 0 && id < nlinks);
                snprintf(fifo[t].url, sizeof(fifo[t].url), "%s", urls[id]);
            }
            n++;
        }
        int k = fifo[head].kind;
        if (k == MIX_POST) {
            assert_true(nlinks < 200);
            snprintf(urls[nlinks], sizeof(urls[nlinks]), "%s", fifo[head].url);
            snprintf(body, sizeof(body), "{\"short_link\": \"L%d\"}", nlinks++);
            assert_int_equal(sc.ops->check(c, k, 201, body, strlen(body), why, sizeof(why)),
                             LOAD_OK);
        } else {
            gets++;
            snprintf(body, sizeof(body), "{\"link\": \"https://other.example/x\"}");
            assert_int_equal(sc.ops->check(c, k, 200, body, strlen(body), why, sizeof(why)),
                             LOAD_FAIL_BODY);
            snprintf(body, sizeof(body), "{\"link\": \"%s\"}", fifo[head].url);
            assert_int_equal(sc.ops->check(c, k, 200, body, strlen(body), why, sizeof(why)),
                             LOAD_OK);
        }
        assert_int_equal(sc.ops->finished(c, k, LOAD_OK), 1);
        head = (head + 1) % 3;
        n--;
    }
    assert_true(gets > 100);
    sc.ops->conn_free(c);
    sc.ops->worker_free(w);
    mix_scenario_free(&sc);
}

UNIT_MAIN(NULL, NULL,
    cmocka_unit_test(test_check_post),
    cmocka_unit_test(test_check_post_reason),
    cmocka_unit_test(test_check_get),
    cmocka_unit_test(test_task_steps),
    cmocka_unit_test(test_walk_key),
    cmocka_unit_test(test_scenario_walk),
    cmocka_unit_test(test_pick_ratio),
    cmocka_unit_test(test_make_url),
    cmocka_unit_test(test_requests),
    cmocka_unit_test(test_scenario_tasks),
    cmocka_unit_test(test_scenario_pool),
    cmocka_unit_test(test_scenario_tasks_pipelined),
    cmocka_unit_test(test_scenario_pool_pipelined))
