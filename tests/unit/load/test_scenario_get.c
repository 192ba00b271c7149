/* scenario_get: the plain load scenario, and through it the scenario
 * interface as the engine uses it, down to a real run of the engine
 * against a tiny server on a loopback socket. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tests/unit/unit.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sys/socket.h>

#include <cjson/cJSON.h>

#include "load/load_engine.h"
#include "load/load_report.h"
#include "load/scenario_get.h"
#include "tests/unit/listener.h"

static void url(struct load_url *u, const char *s)
{
    assert_int_equal(load_url_parse(s, u, NULL, 0), 0);
}

static void test_requests_in_turn(void **state)
{
    (void)state;
    struct load_url u;
    url(&u, "http://h:81/base/");
    const char *paths[] = {"/heart-beat", "/x?y=1"};
    struct load_scenario sc;
    char err[128];
    assert_int_equal(scenario_get_init(&sc, &u, paths, 2, 3, err, sizeof(err)), 0);
    assert_int_equal(sc.nkinds, 1);
    assert_string_equal(sc.kinds[0], "GET");
    void *w = sc.ops->worker_new(sc.state, 0, 1);
    void *c0 = sc.ops->conn_new(w, 0), *c1 = sc.ops->conn_new(w, 1);
    char buf[LOAD_REQ_MAX];
    size_t len = 0;
    const char *a = "GET /base/heart-beat HTTP/1.1\r\nHost: h:81\r\n\r\n";
    const char *b = "GET /base/x?y=1 HTTP/1.1\r\nHost: h:81\r\n\r\n";
    /* Connection k starts at path k and goes round. */
    assert_int_equal(sc.ops->next(c0, 0, buf, sizeof(buf), &len), 0);
    assert_int_equal(len, strlen(a));
    assert_memory_equal(buf, a, len);
    assert_int_equal(sc.ops->next(c1, 0, buf, sizeof(buf), &len), 0);
    assert_int_equal(len, strlen(b));
    assert_memory_equal(buf, b, len);
    assert_int_equal(sc.ops->next(c0, 0, buf, sizeof(buf), &len), 0);
    assert_memory_equal(buf, b, len);
    /* --tasks 3: three requests over all connections, then done. */
    assert_int_equal(sc.ops->next(c1, 0, buf, sizeof(buf), &len), LOAD_NEXT_DONE);
    assert_int_equal(sc.ops->next(c0, 0, buf, sizeof(buf), &len), LOAD_NEXT_DONE);
    assert_int_equal(sc.ops->finished(c0, 0, LOAD_OK), 1);   /* every request is a task */
    assert_int_equal(sc.ops->finished(c0, 0, LOAD_FAIL_IO), 1);
    sc.ops->conn_free(c0);
    sc.ops->conn_free(c1);
    sc.ops->worker_free(w);
    scenario_get_free(&sc);
}

static void test_answers(void **state)
{
    (void)state;
    struct load_url u;
    url(&u, "http://h");
    const char *paths[] = {"/"};
    struct load_scenario sc;
    assert_int_equal(scenario_get_init(&sc, &u, paths, 1, 0, NULL, 0), 0);
    char why[128] = "";
    const int good[] = {200, 201, 204, 299, 301, 302, 304, 399};
    for (size_t i = 0; i < sizeof(good) / sizeof(good[0]); i++)
        assert_int_equal(sc.ops->check(NULL, 0, good[i], "", 0, why, sizeof(why)), LOAD_OK);
    const int bad[] = {100, 199, 400, 404, 500, 503};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        assert_int_equal(sc.ops->check(NULL, 0, bad[i], "", 0, why, sizeof(why)), LOAD_FAIL_STATUS);
    assert_string_equal(why, "HTTP 503 (expected 2xx or 3xx)");
    /* No --tasks limit (--duration): the engine ends the run. */
    void *w = sc.ops->worker_new(sc.state, 0, 1), *c = sc.ops->conn_new(w, 0);
    char buf[LOAD_REQ_MAX];
    size_t len;
    for (int i = 0; i < 1000; i++)
        assert_int_equal(sc.ops->next(c, 0, buf, sizeof(buf), &len), 0);
    cJSON *op = cJSON_CreateObject();
    sc.ops->options_json(sc.state, op, 0);
    assert_null(op->child);
    sc.ops->options_json(sc.state, op, 1);
    assert_string_equal(cJSON_GetObjectItem(op, "scenario")->valuestring, "get");
    assert_string_equal(cJSON_GetArrayItem(cJSON_GetObjectItem(op, "paths"), 0)->valuestring,
                        "/");
    cJSON_Delete(op);
    sc.ops->conn_free(c);
    sc.ops->worker_free(w);
    scenario_get_free(&sc);
}

static void test_bad_paths(void **state)
{
    (void)state;
    struct load_url u;
    url(&u, "http://h");
    struct load_scenario sc;
    char err[128];
    const char *nodash[] = {"heart-beat"}, *space[] = {"/a b"}, *crlf[] = {"/a\r\nX: y"};
    assert_int_equal(scenario_get_init(&sc, &u, nodash, 1, 1, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "must start with '/'"));
    assert_int_equal(scenario_get_init(&sc, &u, space, 1, 1, err, sizeof(err)), -1);
    assert_int_equal(scenario_get_init(&sc, &u, crlf, 1, 1, err, sizeof(err)), -1);
    assert_int_equal(scenario_get_init(&sc, &u, nodash, 0, 1, err, sizeof(err)), -1);
    char *longp = malloc(LOAD_REQ_MAX + 1);
    assert_non_null(longp);
    memset(longp, 'a', LOAD_REQ_MAX);
    longp[0] = '/';
    longp[LOAD_REQ_MAX] = '\0';
    const char *lp[] = {"/ok", longp};
    assert_int_equal(scenario_get_init(&sc, &u, lp, 2, 1, err, sizeof(err)), -1);
    assert_non_null(strstr(err, "too long"));
    free(longp);
    assert_true(scenario_get_path_ok("/heart-beat"));
    assert_false(scenario_get_path_ok(""));
    assert_false(scenario_get_path_ok("/\x7f"));
}

/* ---- the engine, driven by the scenario, over a real socket ------------- */

/* Answers each request on one connection: 404 for paths with "missing",
 * else 200, until the client closes. */
static void *serve(void *arg)
{
    int lfd = *(int *)arg;
    int fd = accept(lfd, NULL, NULL);
    char buf[4096];
    size_t have = 0;
    while (fd >= 0) {
        ssize_t n = recv(fd, buf + have, sizeof(buf) - 1 - have, 0);
        if (n <= 0)
            break;
        have += (size_t)n;
        buf[have] = '\0';
        char *end;
        while ((end = strstr(buf, "\r\n\r\n")) != NULL) {
            int missing = strstr(buf, "missing") && strstr(buf, "missing") < end;
            const char *ans = missing ? "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n"
                                      : "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
            if (send(fd, ans, strlen(ans), MSG_NOSIGNAL) < 0)
                break;
            size_t used = (size_t)(end + 4 - buf);
            memmove(buf, buf + used, have - used + 1);
            have -= used;
        }
    }
    if (fd >= 0)
        close(fd);
    return NULL;
}

static void test_engine_run(void **state)
{
    (void)state;
    int port;
    int lfd = unit_listener(&port);
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, serve, &lfd), 0);

    char base[64];
    snprintf(base, sizeof(base), "http://127.0.0.1:%d", port);
    struct load_url u;
    url(&u, base);
    const char *paths[] = {"/ok", "/missing"};
    struct load_scenario sc;
    assert_int_equal(scenario_get_init(&sc, &u, paths, 2, 6, NULL, 0), 0);
    struct load_opts o = {.command = "test", .base = base, .url = &u, .tasks = 6,
                          .connections = 1, .timeout_ms = 5000, .workers = 1, .seed = 1};
    struct load_totals t;
    assert_int_equal(load_totals_init(&t, &sc), 0);
    double secs = 0;
    char err[256];
    load_interrupted = 0;
    assert_int_equal(load_engine_run(&o, &sc, NULL, &t.c, &secs, err, sizeof(err)), 0);
    load_totals_finish(&t, secs);
    assert_int_equal(t.nreq, 6);
    assert_int_equal(t.c.ok[0], 3);
    assert_int_equal(t.c.fail[0][LOAD_FAIL_STATUS], 3);
    assert_int_equal(t.c.tasks_ok, 3);
    assert_int_equal(t.c.tasks_failed, 3);
    assert_int_equal(t.c.h[0]->count, 6);   /* every answer timed, failed ones too */
    assert_true(t.c.nerr > 0);
    char want[128];
    snprintf(want, sizeof(want), "GET %s/missing: http_status: HTTP 404", base);
    assert_non_null(strstr(t.c.err[0].msg, want));
    load_totals_free(&t);
    scenario_get_free(&sc);
    pthread_join(th, NULL);
    close(lfd);
}

UNIT_MAIN(NULL, NULL,
    cmocka_unit_test(test_requests_in_turn),
    cmocka_unit_test(test_answers),
    cmocka_unit_test(test_bad_paths),
    cmocka_unit_test(test_engine_run))
