/* Unit tests of the shortener's pure parts and its store: id generation,
 * URL and id validation, JSON handling, the link store on a real SQLite
 * file, cache URL parsing and the no-Valkey fallback. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <cjson/cJSON.h>

#include "shortener/cache/cache.h"
#include "shortener/store/linkid.h"
#include "shortener/store/links.h"
#include "shortener/service/request.h"
#include "shortener/service/service.h"
#include "shortener/cache/trackmap.h"
#include "shortener/store/urlgen.h"

static char tmpdir[64];
static char dbpath[128];

static int in_alphabet(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');
}

static int cmp_id(const void *a, const void *b)
{
    return memcmp(a, b, LINKS_ID_LEN + 1);
}

/* Ids as the store makes them (links_create_db and links_create share
 * the generator): 10 of [A-Za-z0-9], all distinct, letters unbiased. */
static void test_id_alphabet_length_uniqueness(void **st)
{
    (void)st;
    enum { N = 20000 };
    char err[512];
    assert_int_equal(links_create_db(dbpath, N, 1, 0, err, sizeof err), 0);
    struct links *l = links_open(dbpath, 1, err, sizeof err);
    assert_non_null(l);
    char *recs;
    int64_t nids;
    assert_int_equal(links_ids(l, 0, &recs, &nids), 0);
    assert_int_equal(nids, N);
    char (*ids)[LINKS_ID_LEN + 1] = calloc(N, sizeof *ids);
    assert_non_null(ids);
    int seen[256] = {0};
    for (int i = 0; i < N; i++) {
        const char *rec = recs + (size_t)i * (LINKS_ID_MAX + 1);
        assert_int_equal(strlen(rec), LINKS_ID_LEN);
        memcpy(ids[i], rec, LINKS_ID_LEN + 1);
        for (int k = 0; k < LINKS_ID_LEN; k++) {
            assert_true(in_alphabet(ids[i][k]));
            seen[(unsigned char)ids[i][k]]++;
        }
    }
    free(recs);
    links_close(l);
    /* All 62 letters occur, none wildly over- or under-represented:
     * 200000 letters / 62 = 3226 expected; 5 sigma is about 280. */
    int letters = 0;
    for (int c = 0; c < 256; c++) {
        if (!seen[c])
            continue;
        letters++;
        assert_in_range(seen[c], 3226 - 400, 3226 + 400);
    }
    assert_int_equal(letters, 62);
    qsort(ids, N, sizeof *ids, cmp_id);
    for (int i = 1; i < N; i++)
        assert_int_not_equal(memcmp(ids[i - 1], ids[i], LINKS_ID_LEN), 0);
    free(ids);
}

static void test_valid_id(void **st)
{
    (void)st;
    char id64[66];
    memset(id64, 'a', 65);
    id64[65] = '\0';
    assert_true(linkid_valid("a", 1));
    assert_true(linkid_valid("AbC123xyZ9", 10));
    assert_true(linkid_valid(id64, 64));
    assert_false(linkid_valid(id64, 65));
    assert_false(linkid_valid("", 0));
    assert_false(linkid_valid("abc-def", 7));
    assert_false(linkid_valid("abc def", 7));
    assert_false(linkid_valid("abc/def", 7));
    assert_false(linkid_valid("abc\0def", 7));
    assert_false(linkid_valid("caf\xc3\xa9", 5));
    assert_false(linkid_valid("abc_", 4));
}

static int url_ok(const char *u)
{
    const char *why = NULL;
    int rc = request_check_url(u, strlen(u), &why);
    if (rc != 0)
        assert_non_null(why);
    return rc == 0;
}

static void test_check_url(void **st)
{
    (void)st;
    assert_true(url_ok("https://example.com/some/page"));
    assert_true(url_ok("http://a"));
    assert_true(url_ok("HTTPS://EXAMPLE.COM"));
    assert_true(url_ok("https://example.com:8443/p?q=1&r=%20#x"));
    assert_true(url_ok("https://example.org/caf\xc3\xa9"));
    assert_true(url_ok("https://[::1]:80/"));
    assert_false(url_ok(""));
    assert_false(url_ok("ftp://example.com/"));
    assert_false(url_ok("javascript:alert(1)"));
    assert_false(url_ok("example.com"));
    assert_false(url_ok("https://"));
    assert_false(url_ok("https:///path"));
    assert_false(url_ok("https://?q"));
    assert_false(url_ok("http:/example.com"));
    assert_false(url_ok("https://example.com/a b"));
    assert_false(url_ok("https://example.com/\t"));
    assert_false(url_ok("https://example.com/\x7f"));
    assert_false(url_ok("https://example.com/\x01"));
    assert_false(url_ok("https://example.com/\xc3"));          /* truncated */
    assert_false(url_ok("https://example.com/\xc0\xaf"));      /* overlong */
    assert_false(url_ok("https://example.com/\xed\xa0\x80"));  /* surrogate */
    assert_false(url_ok("https://example.com/\xff"));
    /* Length limit: exactly 2048 bytes passes, 2049 fails. */
    char buf[LINKS_URL_MAX + 2];
    memcpy(buf, "https://example.com/", 20);
    memset(buf + 20, 'a', sizeof buf - 20);
    buf[LINKS_URL_MAX] = '\0';
    assert_true(url_ok(buf));
    buf[LINKS_URL_MAX] = 'a';
    buf[LINKS_URL_MAX + 1] = '\0';
    assert_false(url_ok(buf));
}

static int parse(const char *body, char *url)
{
    const char *why = NULL;
    size_t n = 0;
    int rc = request_parse_create(body, strlen(body), url, LINKS_URL_MAX + 1, &n, &why);
    if (rc == 0)
        assert_int_equal(n, strlen(url));
    else
        assert_non_null(why);
    return rc;
}

static void test_parse_create(void **st)
{
    (void)st;
    char url[LINKS_URL_MAX + 1];
    assert_int_equal(parse("{\"url\": \"https://example.com/x\"}", url), 0);
    assert_string_equal(url, "https://example.com/x");
    assert_int_equal(parse(" {\"other\": [1,2,{}], \"url\":\"http://a.b/\\u00e9\\/\"} ", url), 0);
    assert_string_equal(url, "http://a.b/\xc3\xa9/");
    const char *bad[] = {
        "", "   ", "not json", "{", "{\"url\": \"https://a.b/\"", "[]", "null", "42",
        "\"https://a.b/\"", "{}", "{\"URL\": \"https://a.b/\"}", "{\"url\": \"\"}",
        "{\"url\": 1}", "{\"url\": null}", "{\"url\": true}", "{\"url\": {}}",
        "{\"url\": [\"https://a.b/\"]}", "{\"url\": \"ftp://a.b/\"}",
        "{\"url\": \"https://a.b/\\u0000x\"}", "{\"url\": \"https://a.b/\\n\"}",
        "{\"url\": \"https://a.b/ \"}", "{\"url\": \"https://a.b/\\ud800\"}",
        "{\"url\": \"https://a.b/\"} trailing",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (parse(bad[i], url) == 0)
            fail_msg("accepted bad body [%s]", bad[i]);
    }
    /* Not NUL-terminated input: the parser must stop at len. */
    const char raw[] = "{\"url\":\"https://a.b/\"}XXXX";
    const char *why;
    assert_int_equal(request_parse_create(raw, 22, url, sizeof url, NULL, &why), 0);
    assert_int_not_equal(request_parse_create(raw, 21, url, sizeof url, NULL, &why), 0);
}

static void test_match(void **st)
{
    (void)st;
    struct request_match m;
    request_match("GET", "/heart-beat", &m);
    assert_int_equal(m.route, ROUTE_HEARTBEAT);
    assert_true(m.method_ok);
    request_match("HEAD", "/heart-beat", &m);
    assert_true(m.method_ok);
    request_match("POST", "/heart-beat", &m);
    assert_false(m.method_ok);
    assert_string_equal(m.allow, "GET, HEAD");
    request_match("POST", "/link", &m);
    assert_int_equal(m.route, ROUTE_CREATE);
    assert_true(m.method_ok);
    request_match("GET", "/link", &m);
    assert_false(m.method_ok);
    assert_string_equal(m.allow, "POST");
    request_match("GET", "/link/abc", &m);
    assert_int_equal(m.route, ROUTE_RESOLVE);
    assert_int_equal(m.idlen, 3);
    assert_memory_equal(m.id, "abc", 3);
    request_match("DELETE", "/link/abc", &m);
    assert_false(m.method_ok);
    request_match("GET", "/link/", &m);
    assert_int_equal(m.route, ROUTE_RESOLVE);
    assert_int_equal(m.idlen, 0);
    request_match("GET", "/links", &m);
    assert_int_equal(m.route, ROUTE_UNKNOWN);
    request_match("GET", "/", &m);
    assert_int_equal(m.route, ROUTE_UNKNOWN);
    request_match("get", "/stats", &m);
    assert_int_equal(m.route, ROUTE_STATS);
    assert_false(m.method_ok);
}

static void test_sample_urls(void **st)
{
    (void)st;
    char a[LINKS_URL_MAX + 1], b[LINKS_URL_MAX + 1];
    size_t minlen = SIZE_MAX, maxlen = 0;
    for (uint64_t k = 0; k < 2000; k++) {
        size_t n = urlgen_sample(42, k, a, sizeof a);
        assert_int_equal(n, strlen(a));
        const char *why;
        assert_int_equal(request_check_url(a, n, &why), 0);
        assert_int_equal(urlgen_sample(42, k, b, sizeof b), n);
        assert_string_equal(a, b);   /* reproducible */
        minlen = n < minlen ? n : minlen;
        maxlen = n > maxlen ? n : maxlen;
    }
    assert_true(minlen < 40);   /* varied lengths */
    assert_true(maxlen > 120);
}

static int setup_db(void **st)
{
    (void)st;
    strcpy(tmpdir, "/tmp/kvtest-unit-XXXXXX");
    if (!mkdtemp(tmpdir))
        return -1;
    snprintf(dbpath, sizeof dbpath, "%s/links.db", tmpdir);
    return 0;
}

static int teardown_db(void **st)
{
    (void)st;
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    return system(cmd) == 0 ? 0 : -1;
}

static void test_store(void **st)
{
    (void)st;
    char err[512], url[LINKS_URL_MAX + 1], id[LINKS_ID_LEN + 1];
    size_t n;
    assert_int_equal(links_create_db(dbpath, 100, 3, 0, err, sizeof err), 0);
    /* refuses to replace without force */
    assert_int_equal(links_create_db(dbpath, 1, 3, 0, err, sizeof err), 1);
    for (int cache = 0; cache <= 1; cache++) {
        struct links *l = links_open(dbpath, cache, err, sizeof err);
        assert_non_null(l);
        assert_int_equal(links_create(l, "https://store.example/x", 23, id), LINKS_OK);
        assert_int_equal(strlen(id), LINKS_ID_LEN);
        assert_int_equal(links_lookup(l, id, LINKS_ID_LEN, url, sizeof url, &n), LINKS_OK);
        assert_string_equal(url, "https://store.example/x");
        assert_int_equal(n, 23);
        assert_int_equal(links_lookup(l, "nosuchid00", 10, url, sizeof url, &n), LINKS_NOTFOUND);
        /* the same lookup through the cache layer with no cache */
        assert_int_equal(cache_lookup(NULL, l, id, LINKS_ID_LEN, url, sizeof url, &n), LINKS_OK);
        assert_string_equal(url, "https://store.example/x");
        char *ids;
        int64_t nids;
        assert_int_equal(links_ids(l, 0, &ids, &nids), 0);
        assert_int_equal(nids, 101 + cache);
        for (int64_t i = 0; i < nids; i++) {
            const char *rec = ids + i * (LINKS_ID_MAX + 1);
            assert_int_equal(strlen(rec), LINKS_ID_LEN);
            assert_int_equal(links_lookup(l, rec, LINKS_ID_LEN, url, sizeof url, &n), LINKS_OK);
        }
        free(ids);
        assert_int_equal(links_ids(l, 5, &ids, &nids), 0);
        assert_int_equal(nids, 5);
        free(ids);
        links_close(l);
    }
    /* a file that is not a links database */
    char other[160];
    snprintf(other, sizeof other, "%s/other.txt", tmpdir);
    FILE *f = fopen(other, "w");
    assert_non_null(f);
    fputs("hello, this is not SQLite at all, not even close\n", f);
    fclose(f);
    assert_null(links_open(other, 1, err, sizeof err));
    assert_non_null(strstr(err, "other.txt"));
    snprintf(other, sizeof other, "%s/missing.db", tmpdir);
    assert_null(links_open(other, 1, err, sizeof err));
    assert_int_not_equal(access(other, F_OK), 0);   /* not created */
}

static void test_cache_url(void **st)
{
    (void)st;
    struct cache_config c;
    char err[256];
    assert_int_equal(cache_parse_url("valkey://127.0.0.1:6379", &c, err, sizeof err), 0);
    assert_string_equal(c.host, "127.0.0.1");
    assert_int_equal(c.port, 6379);
    assert_int_equal(c.db, 0);
    assert_int_equal(c.connect_timeout_ms, CACHE_TIMEOUT_MS);
    assert_int_equal(cache_parse_url("redis://localhost:1/15", &c, err, sizeof err), 0);
    assert_string_equal(c.host, "localhost");
    assert_int_equal(c.db, 15);
    assert_int_equal(cache_parse_url("valkey://[::1]:7000/2", &c, err, sizeof err), 0);
    assert_string_equal(c.host, "::1");
    assert_int_equal(c.port, 7000);
    const char *bad[] = {"none", "", "valkey://", "valkey://host", "valkey://:6379",
                         "valkey://h:0", "valkey://h:65536", "valkey://h:12x",
                         "valkey://h:1/x", "http://h:1", "valkey://[::1:5",
                         "valkey://u@h:1", "valkey://h:1/"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        if (cache_parse_url(bad[i], &c, err, sizeof err) == 0)
            fail_msg("accepted bad cache URL [%s]", bad[i]);
}

/* A Valkey that is not there: lookups still answer from SQLite, the
 * failure is counted, and the backoff spares further connect attempts. */
static void test_cache_fallback(void **st)
{
    (void)st;
    char err[512], url[LINKS_URL_MAX + 1], id[LINKS_ID_LEN + 1];
    size_t n;
    assert_int_equal(links_create_db(dbpath, 0, 1, 1, err, sizeof err), 0);
    struct links *l = links_open(dbpath, 1, err, sizeof err);
    assert_non_null(l);
    assert_int_equal(links_create(l, "https://fallback.example/", 25, id), LINKS_OK);
    struct cache_config cfg;
    /* port 1 on loopback: nothing listens there, connect is refused */
    assert_int_equal(cache_parse_url("valkey://127.0.0.1:1", &cfg, err, sizeof err), 0);
    struct cache *c = cache_open(&cfg);
    assert_non_null(c);
    assert_int_not_equal(cache_ping(c, err, sizeof err), 0);
    for (int i = 0; i < 50; i++) {
        assert_int_equal(cache_lookup(c, l, id, LINKS_ID_LEN, url, sizeof url, &n), LINKS_OK);
        assert_string_equal(url, "https://fallback.example/");
    }
    assert_int_equal(cache_lookup(c, l, "zzzzzzzzzz", 10, url, sizeof url, &n), LINKS_NOTFOUND);
    struct cache_stats cs;
    cache_stats(c, &cs);
    assert_true(cs.errors >= 1);
    assert_true(cs.skipped >= 1);   /* backoff: not one connect per lookup */
    assert_int_equal(cs.hits, 0);
    assert_int_equal(cs.connects, 0);
    cache_close(c);
    links_close(l);
}

/* The request handler end to end, without HTTP: statuses and JSON. */
static void test_service_handle(void **st)
{
    (void)st;
    char err[512];
    assert_int_equal(links_create_db(dbpath, 0, 1, 1, err, sizeof err), 0);
    struct service_opts o = {1, 1, NULL};
    struct service *s = service_new(dbpath, &o, err, sizeof err);
    assert_non_null(s);
    struct service_worker *w = service_claim_worker(s);
    assert_ptr_equal(w, service_worker_at(s, 0));
    assert_null(service_claim_worker(s));   /* one worker, one claim */
    struct service_reply r;

    service_handle(s, w, "GET", "/heart-beat", NULL, 0, 0, &r);
    assert_int_equal(r.status, 200);
    assert_string_equal(r.body, "{\"OK\":true}");
    service_reply_free(&r);

    const char *body = "{\"url\":\"https://svc.example/\\\"q\\\"\"}";
    service_handle(s, w, "POST", "/link", body, strlen(body), 0, &r);
    assert_int_equal(r.status, 201);
    cJSON *j = cJSON_Parse(r.body);
    assert_non_null(j);
    const cJSON *sl = cJSON_GetObjectItemCaseSensitive(j, "short_link");
    assert_true(cJSON_IsString(sl));
    char path[80];
    snprintf(path, sizeof path, "/link/%s", sl->valuestring);
    cJSON_Delete(j);
    service_reply_free(&r);

    service_handle(s, w, "GET", path, NULL, 0, 0, &r);
    assert_int_equal(r.status, 200);
    j = cJSON_Parse(r.body);   /* the quote in the URL is escaped properly */
    assert_non_null(j);
    assert_string_equal(cJSON_GetObjectItemCaseSensitive(j, "link")->valuestring,
                        "https://svc.example/\"q\"");
    cJSON_Delete(j);
    service_reply_free(&r);

    service_handle(s, w, "POST", "/link", "x", 1, 1, &r);
    assert_int_equal(r.status, 413);
    service_reply_free(&r);
    service_handle(s, w, "PUT", "/link", NULL, 0, 0, &r);
    assert_int_equal(r.status, 405);
    assert_string_equal(r.allow, "POST");
    service_reply_free(&r);
    service_handle(s, w, "GET", "/link/a-b", NULL, 0, 0, &r);
    assert_int_equal(r.status, 400);
    service_reply_free(&r);
    service_handle(s, w, "GET", "/link/abcdefghij", NULL, 0, 0, &r);
    assert_int_equal(r.status, 404);
    service_reply_free(&r);
    service_handle(s, w, "GET", "/nope", NULL, 0, 0, &r);
    assert_int_equal(r.status, 404);
    service_reply_free(&r);

    service_handle(s, w, "GET", "/stats", NULL, 0, 0, &r);
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

/* The client-side cache's map: bounded, replace, delete, deadline. */
static void test_trackmap(void **st)
{
    (void)st;
    struct trackmap *m = trackmap_new(100);
    assert_non_null(m);
    char url[64], id[16];
    size_t n = 0;
    assert_int_equal(trackmap_get(m, "a", 1, 0, url, sizeof url, &n), 0);
    assert_int_equal(trackmap_put(m, "a", 1, "http://a", 8, 0), 0);
    assert_int_equal(trackmap_get(m, "a", 1, 0, url, sizeof url, &n), 1);
    assert_string_equal(url, "http://a");
    assert_int_equal(n, 8);
    assert_int_equal(trackmap_put(m, "a", 1, "http://b", 8, 0), 0);   /* replace */
    assert_int_equal(trackmap_get(m, "a", 1, 0, url, sizeof url, &n), 1);
    assert_string_equal(url, "http://b");
    assert_int_equal(trackmap_count(m), 1);
    /* a deadline: served before it, never at or after it */
    assert_int_equal(trackmap_put(m, "t", 1, "http://t", 8, 1000), 0);
    assert_int_equal(trackmap_get(m, "t", 1, 999, url, sizeof url, &n), 1);
    assert_int_equal(trackmap_get(m, "t", 1, 1000, url, sizeof url, &n), 0);
    assert_int_equal(trackmap_count(m), 1);
    /* bounded: 1000 puts into 100 entries; every present entry is right */
    int evicted = 0;
    for (int i = 0; i < 1000; i++) {
        snprintf(id, sizeof id, "id%d", i);
        snprintf(url, sizeof url, "http://%d", i);
        int rc = trackmap_put(m, id, strlen(id), url, strlen(url), 0);
        assert_true(rc == 0 || rc == 1);
        evicted += rc;
        assert_true(trackmap_count(m) <= 100);
    }
    assert_int_equal(trackmap_count(m), 100);
    assert_int_equal(evicted, 901);
    int present = 0;
    for (int i = 0; i < 1000; i++) {
        char want[32];
        snprintf(id, sizeof id, "id%d", i);
        snprintf(want, sizeof want, "http://%d", i);
        if (trackmap_get(m, id, strlen(id), 0, url, sizeof url, &n)) {
            assert_string_equal(url, want);
            present++;
        }
    }
    assert_int_equal(present, 100);
    /* delete every present entry: probing survives the backward shifts */
    for (int i = 0; i < 1000; i++) {
        snprintf(id, sizeof id, "id%d", i);
        trackmap_del(m, id, strlen(id));
        assert_int_equal(trackmap_get(m, id, strlen(id), 0, url, sizeof url, &n), 0);
    }
    assert_int_equal(trackmap_count(m), 0);
    assert_int_equal(trackmap_put(m, "z", 1, "http://z", 8, 0), 0);
    trackmap_clear(m);
    assert_int_equal(trackmap_get(m, "z", 1, 0, url, sizeof url, &n), 0);
    trackmap_free(m);
}

/* Both schemas, real SQLite files with the same links (init --from):
 * identical answers for every id and for misses; new links work in both. */
static void test_schemas_agree(void **st)
{
    (void)st;
    char err[512], cov[160];
    assert_int_equal(links_create_db(dbpath, 2000, 7, 0, err, sizeof err), 0);
    snprintf(cov, sizeof cov, "%s/covering.db", tmpdir);
    struct links_create_opts o = {0, 1, 0, LINKS_SCHEMA_COVERING, dbpath};
    int64_t copied = 0;
    assert_int_equal(links_create_db_opts(cov, &o, &copied, err, sizeof err), 0);
    assert_int_equal(copied, 2000);
    struct links *a = links_open(dbpath, 1, err, sizeof err);
    struct links *b = links_open(cov, 1, err, sizeof err);
    assert_non_null(a);
    assert_non_null(b);
    assert_int_equal(links_schema_of(a), LINKS_SCHEMA_SEED);
    assert_int_equal(links_schema_of(b), LINKS_SCHEMA_COVERING);
    char *ids, *ids2;
    int64_t n, n2;
    assert_int_equal(links_ids(a, 0, &ids, &n), 0);
    assert_int_equal(links_ids(b, 0, &ids2, &n2), 0);
    assert_int_equal(n, 2000);
    assert_int_equal(n2, n);
    assert_memory_equal(ids, ids2, (size_t)n * (LINKS_ID_MAX + 1));   /* same order */
    char ua[LINKS_URL_MAX + 1], ub[LINKS_URL_MAX + 1];
    size_t la, lb;
    for (int64_t i = 0; i < n; i++) {
        const char *id = ids + i * (LINKS_ID_MAX + 1);
        assert_int_equal(links_lookup(a, id, strlen(id), ua, sizeof ua, &la), LINKS_OK);
        assert_int_equal(links_lookup(b, id, strlen(id), ub, sizeof ub, &lb), LINKS_OK);
        assert_int_equal(la, lb);
        assert_string_equal(ua, ub);
        /* a miss: the same id one letter longer, and a changed letter */
        char miss[LINKS_ID_MAX + 2];
        snprintf(miss, sizeof miss, "%sx", id);
        assert_int_equal(links_lookup(a, miss, strlen(miss), ua, sizeof ua, &la), LINKS_NOTFOUND);
        assert_int_equal(links_lookup(b, miss, strlen(miss), ub, sizeof ub, &lb), LINKS_NOTFOUND);
        miss[0] = miss[0] == 'Q' ? 'R' : 'Q';
        miss[strlen(id)] = '\0';
        enum links_rc ra = links_lookup(a, miss, strlen(miss), ua, sizeof ua, &la);
        assert_int_equal(links_lookup(b, miss, strlen(miss), ub, sizeof ub, &lb), ra);
    }
    char nid[LINKS_ID_LEN + 1];
    assert_int_equal(links_create(b, "https://example.com/new", 23, nid), LINKS_OK);
    assert_int_equal(links_lookup(b, nid, strlen(nid), ub, sizeof ub, &lb), LINKS_OK);
    assert_string_equal(ub, "https://example.com/new");
    free(ids2);
    assert_int_equal(links_ids(b, 0, &ids2, &n2), 0);
    assert_int_equal(n2, 2001);
    assert_string_equal(ids2 + 2000 * (LINKS_ID_MAX + 1), nid);   /* listed last */
    free(ids);
    free(ids2);
    links_close(a);
    links_close(b);
    /* copying onto itself is misuse */
    assert_int_equal(links_create_db_opts(dbpath, &o, &copied, err, sizeof err), 2);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup_teardown(test_id_alphabet_length_uniqueness, setup_db,
                                        teardown_db),
        cmocka_unit_test(test_valid_id),
        cmocka_unit_test(test_check_url),
        cmocka_unit_test(test_parse_create),
        cmocka_unit_test(test_match),
        cmocka_unit_test(test_sample_urls),
        cmocka_unit_test(test_cache_url),
        cmocka_unit_test_setup_teardown(test_store, setup_db, teardown_db),
        cmocka_unit_test_setup_teardown(test_cache_fallback, setup_db, teardown_db),
        cmocka_unit_test_setup_teardown(test_service_handle, setup_db, teardown_db),
        cmocka_unit_test(test_trackmap),
        cmocka_unit_test_setup_teardown(test_schemas_agree, setup_db, teardown_db),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
