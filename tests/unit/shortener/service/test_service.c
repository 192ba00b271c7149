/* service: the request handler end to end without HTTP, statuses, JSON
 * bodies (escaped properly) and the per-route counts of /stats. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tests/unit/unit.h"

#include <cjson/cJSON.h>
#include "shortener/service/service.h"
#include "tests/unit/shortener/service_fixture.h"

/* The status w answers a request without a body with. */
static int status_of(struct service *s, struct service_worker *w, const char *method,
                     const char *path)
{
    struct service_reply r;
    service_handle(s, w, method, path, NULL, NULL, 0, 0, &r);
    int status = r.status;
    service_reply_free(&r);
    return status;
}

/* The request handler end to end, without HTTP: statuses and JSON. */
static void test_service_handle(void **st)
{
    struct fixture *fx = *st;
    struct service *s = fixture_service(fx, 1);
    struct service_worker *w = service_claim_worker(s);
    assert_ptr_equal(w, service_worker_at(s, 0));
    assert_null(service_claim_worker(s));   /* one worker, one claim */
    struct service_reply r;

    service_handle(s, w, "GET", "/heart-beat", NULL, NULL, 0, 0, &r);
    assert_int_equal(r.status, 200);
    assert_string_equal(r.body, "{\"OK\":true}");
    service_reply_free(&r);

    const char *body = "{\"url\":\"https://svc.example/\\\"q\\\"\"}";
    service_handle(s, w, "POST", "/link", NULL, body, strlen(body), 0, &r);
    assert_int_equal(r.status, 201);
    cJSON *j = cJSON_Parse(r.body);
    assert_non_null(j);
    const cJSON *sl = cJSON_GetObjectItemCaseSensitive(j, "short_link");
    assert_true(cJSON_IsString(sl));
    char path[80];
    snprintf(path, sizeof path, "/link/%s", sl->valuestring);
    cJSON_Delete(j);
    service_reply_free(&r);

    service_handle(s, w, "GET", path, NULL, NULL, 0, 0, &r);
    assert_int_equal(r.status, 200);
    j = cJSON_Parse(r.body);   /* the quote in the URL is escaped properly */
    assert_non_null(j);
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(j, "link")->valuestring,
                        "https://svc.example/\"q\"");
    cJSON_Delete(j);
    service_reply_free(&r);

    service_handle(s, w, "POST", "/link", NULL, "x", 1, 1, &r);
    assert_int_equal(r.status, 413);
    service_reply_free(&r);
    service_handle(s, w, "PUT", "/link", NULL, NULL, 0, 0, &r);
    assert_int_equal(r.status, 405);
    assert_string_equal(r.allow, "POST");
    service_reply_free(&r);
    assert_int_equal(status_of(s, w, "GET", "/link/a-b"), 400);
    assert_int_equal(status_of(s, w, "GET", "/link/abcdefghij"), 404);
    assert_int_equal(status_of(s, w, "GET", "/nope"), 404);

    service_handle(s, w, "GET", "/stats", NULL, NULL, 0, 0, &r);
    assert_int_equal(r.status, 200);
    j = cJSON_Parse(r.body);
    assert_non_null(j);
    assert_int_equal(cJSON_GetObjectItemCaseSensitive(j, "requests")->valuedouble, 8);
    const cJSON *routes = cJSON_GetObjectItemCaseSensitive(j, "routes");
    const cJSON *res = cJSON_GetObjectItemCaseSensitive(routes, "GET /link/<id>");
    assert_int_equal(cJSON_GetObjectItemCaseSensitive(res, "200")->valuedouble, 1);
    assert_int_equal(cJSON_GetObjectItemCaseSensitive(res, "404")->valuedouble, 1);
    assert_int_equal(cJSON_GetObjectItemCaseSensitive(res, "400")->valuedouble, 1);
    cJSON_Delete(j);
    service_reply_free(&r);
    service_free(s);
}

UNIT_MAIN(NULL, NULL,
    cmocka_unit_test_setup_teardown(test_service_handle, fixture_dir_setup,
                                    fixture_teardown))
