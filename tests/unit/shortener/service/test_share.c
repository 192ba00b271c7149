/* service_share: the counters of several service processes, played here
 * by several services in one process attached to the slots of one share:
 * "all" is the sum of every slot, each service's own fields stay its own,
 * and a service that takes a slot over carries its predecessor's counts
 * on (the sum never goes back). */
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
#include "shortener/service/service_share.h"
#include "tests/unit/shortener/service_fixture.h"

static double num(const cJSON *o, const char *path1, const char *path2, const char *path3)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(o, path1);
    if (path2)
        v = cJSON_GetObjectItemCaseSensitive(v, path2);
    if (path3)
        v = cJSON_GetObjectItemCaseSensitive(v, path3);
    return cJSON_IsNumber(v) ? v->valuedouble : -1;
}

static void hits(struct service *s, int worker, int n)
{
    struct service_reply r;
    for (int i = 0; i < n; i++) {
        service_handle(s, service_worker_at(s, worker), "GET", "/heart-beat", NULL, NULL, 0, 0, &r);
        assert_int_equal(r.status, 200);
        service_reply_free(&r);
    }
}

/* /stats answered by s (not counted in what it reports). */
static cJSON *stats(struct service *s)
{
    struct service_reply r;
    service_handle(s, service_worker_at(s, 0), "GET", "/stats", NULL, NULL, 0, 0, &r);
    assert_int_equal(r.status, 200);
    cJSON *j = cJSON_Parse(r.body);
    service_reply_free(&r);
    assert_non_null(j);
    return j;
}

static void test_share_sums(void **st)
{
    struct fixture *fx = *st;
    fixture_links_db(fx);
    struct service_share *sh = service_share_new(2, 2, &(struct service_kind){0});
    assert_non_null(sh);
    struct service *a = fixture_service_open(fx, 2);
    struct service *b = fixture_service_open(fx, 2);
    assert_int_equal(service_attach_share(a, sh, 0), 0);
    assert_int_equal(service_attach_share(b, sh, 1), 0);
    hits(a, 0, 3);
    hits(a, 1, 4);   /* both workers of a count */
    hits(b, 1, 5);

    cJSON *j = stats(b);
    assert_int_equal(num(j, "process", NULL, NULL), 1);
    assert_int_equal(num(j, "processes", NULL, NULL), 2);
    assert_int_equal(num(j, "pid", NULL, NULL), getpid());
    assert_int_equal(num(j, "routes", "GET /heart-beat", "200"), 5);   /* b's own */
    const cJSON *all = cJSON_GetObjectItemCaseSensitive(j, "all");
    assert_int_equal(num(all, "routes", "GET /heart-beat", "200"), 12);
    assert_int_equal(num(all, "requests", NULL, NULL), 12);
    cJSON_Delete(j);

    /* b dies; its successor in slot 1 starts its own count from 0 while
     * "all" keeps what b counted (and the /stats b answered). */
    service_free(b);
    struct service *b2 = fixture_service_open(fx, 2);
    assert_int_equal(service_attach_share(b2, sh, 1), 0);
    hits(b2, 0, 2);
    j = stats(b2);
    assert_int_equal(num(j, "requests", NULL, NULL), 2);
    all = cJSON_GetObjectItemCaseSensitive(j, "all");
    assert_int_equal(num(all, "routes", "GET /heart-beat", "200"), 14);
    assert_int_equal(num(all, "routes", "GET /stats", "200"), 1);
    cJSON_Delete(j);

    /* the parent's summary: the same sum, plus processes and restarts */
    service_share_restarted(sh);
    char *txt = service_share_stats_json(sh);
    j = cJSON_Parse(txt);
    cJSON_free(txt);
    assert_int_equal(num(j, "routes", "GET /heart-beat", "200"), 14);
    assert_int_equal(num(j, "requests", NULL, NULL), 16);   /* + the two /stats */
    assert_int_equal(num(j, "processes", NULL, NULL), 2);
    assert_int_equal(num(j, "restarts", NULL, NULL), 1);
    cJSON_Delete(j);

    /* a slot out of range, or a worker count the share was not made for */
    struct service *c = fixture_service_open(fx, 1);
    assert_int_equal(service_attach_share(c, sh, 0), -1);
    assert_int_equal(service_attach_share(b2, sh, 2), -1);
    service_free(c);
    service_free(a);
    service_free(b2);
    service_share_free(sh);
}

/* Without a share, /stats has none of the fields of several processes. */
static void test_no_share(void **st)
{
    struct fixture *fx = *st;
    struct service *s = fixture_service(fx, 1);
    hits(s, 0, 1);
    cJSON *j = stats(s);
    assert_null(cJSON_GetObjectItemCaseSensitive(j, "process"));
    assert_null(cJSON_GetObjectItemCaseSensitive(j, "all"));
    assert_int_equal(num(j, "requests", NULL, NULL), 1);
    cJSON_Delete(j);
    service_free(s);
    assert_null(service_share_new(0, 1, &(struct service_kind){0}));
    assert_null(service_share_new(SERVICE_SHARE_PROCS_MAX + 1, 1, &(struct service_kind){0}));
}

UNIT_MAIN(NULL, NULL,
    cmocka_unit_test_setup_teardown(test_share_sums, fixture_dir_setup, fixture_teardown),
    cmocka_unit_test_setup_teardown(test_no_share, fixture_dir_setup, fixture_teardown))
