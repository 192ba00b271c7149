/* request: URL validation, the JSON body of POST /link, and routing of
 * method and path, all without HTTP. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tests/unit/unit.h"

#include "shortener/service/request.h"
#include "shortener/store/links.h"

static int url_ok(const char *u)
{
    const char *why = NULL;
    int rc = request_check_url(u, strlen(u), &why);
    if (rc != 0)
        assert_non_null(why);
    return rc == 0;
}

#define WHY_HOSTCHARS "url host may hold only letters, digits, '-', '_' and '.' (an IDN as xn--...)"

/* The reason url is refused ("" when accepted). */
static const char *why_of(const char *u)
{
    const char *why = NULL;
    return request_check_url(u, strlen(u), &why) == 0 ? "" : why;
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
    /* RFC 3986 and the host rule (request.h): each refused with its own
     * reason, the cases of issue 46 first */
    assert_string_equal(why_of("http://:80"), "url has no host");
    assert_string_equal(why_of("http://exa%mple.com/"), "url is not a valid URI (RFC 3986)");
    assert_string_equal(why_of("http://exa%41mple.com/"), WHY_HOSTCHARS);
    assert_string_equal(why_of("http://example.com:99999/"), "url port must be 1..65535");
    assert_string_equal(why_of("http://example.com:0/"), "url port must be 1..65535");
    assert_string_equal(why_of("http://example.com:65536"), "url port must be 1..65535");
    assert_string_equal(why_of("http://example.com/\xc2\x85"), "url contains spaces or control characters");
    assert_string_equal(why_of("http://user:pw@example.com/"),
                        "url may not carry a user or password (user:password@)");
    assert_string_equal(why_of("http://@example.com/"),
                        "url may not carry a user or password (user:password@)");
    assert_string_equal(why_of("http://[v1.x]/"), "url host is not a name or an IP address");
    assert_string_equal(why_of("http://b\xc3\xbc" "cher.de/"), WHY_HOSTCHARS);
    assert_string_equal(why_of("http://exa mple.com/"), "url contains spaces or control characters");
    assert_string_equal(why_of("http://ex<ample.com/"), "url is not a valid URI (RFC 3986)");
    /* after the host, what a browser percent-encodes or keeps (WHATWG) */
    assert_true(url_ok("https://example.com/a<b>\"c\"`{x}|^?q=<y>#<z>"));
    assert_string_equal(why_of("https://example.com/a\\b"), "url is not a valid URI (RFC 3986)");
    assert_string_equal(why_of("https://example.com/100%"), "url is not a valid URI (RFC 3986)");
    assert_true(url_ok("http://example.com:/"));          /* an empty port: the default */
    assert_true(url_ok("http://example.com:65535/"));
    assert_true(url_ok("http://example.com:1"));
    assert_true(url_ok("http://127.0.0.1/"));
    assert_true(url_ok("http://[2001:db8::1]:8080/x"));
    assert_true(url_ok("http://xn--bcher-kva.de/"));
    assert_true(url_ok("http://my_host.example-1.com./"));
    assert_true(url_ok("https://example.com/%E2%82%AC?q=a:b@c/d#f!$&'()*+,;="));
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

/* How method and path route. */
static struct request_match match(const char *method, const char *path)
{
    struct request_match m;
    request_match(method, path, &m);
    return m;
}

static void test_match(void **st)
{
    (void)st;
    struct request_match m = match("GET", "/heart-beat");
    assert_int_equal(m.route, ROUTE_HEARTBEAT);
    assert_true(m.method_ok);
    assert_true(match("HEAD", "/heart-beat").method_ok);
    m = match("POST", "/heart-beat");
    assert_false(m.method_ok);
    assert_string_equal(m.allow, "GET, HEAD");
    m = match("POST", "/link");
    assert_int_equal(m.route, ROUTE_CREATE);
    assert_true(m.method_ok);
    m = match("GET", "/link");
    assert_false(m.method_ok);
    assert_string_equal(m.allow, "POST");
    m = match("GET", "/link/abc");
    assert_int_equal(m.route, ROUTE_RESOLVE);
    assert_int_equal(m.idlen, 3);
    assert_memory_equal(m.id, "abc", 3);
    assert_false(match("DELETE", "/link/abc").method_ok);
    m = match("GET", "/link/");
    assert_int_equal(m.route, ROUTE_RESOLVE);
    assert_int_equal(m.idlen, 0);
    assert_int_equal(match("GET", "/links").route, ROUTE_UNKNOWN);
    assert_int_equal(match("GET", "/").route, ROUTE_UNKNOWN);
    m = match("get", "/stats");
    assert_int_equal(m.route, ROUTE_STATS);
    assert_false(m.method_ok);
}

static int self(const char *url, const char *authority)
{
    return request_is_self_link(url, strlen(url), authority);
}

/* A link back to the service's own /link/: same host (any case), same
 * port (absent: the scheme's default; a Host without one: 80), and a
 * path that decodes to /link/... */
static void test_self_link(void **st)
{
    (void)st;
    assert_true(self("http://127.0.0.1:8080/link/abc", "127.0.0.1:8080"));
    assert_true(self("http://LocalHost:8080/link/abc", "localhost:8080"));
    assert_true(self("http://h/link/x", "h"));
    assert_true(self("http://h:80/link/x", "h"));
    assert_true(self("http://h/link/x", "h:80"));
    assert_true(self("https://h:443/link/x", "h:443"));
    assert_true(self("http://[::1]:8080/link/x", "[::1]:8080"));
    assert_true(self("http://h:8080/%6Cink/x", "h:8080"));
    assert_true(self("http://h:8080/link/x?y#z", "h:8080"));
    assert_true(self("http://h:8080/link/", "h:8080"));
    /* The path ends where the query or the fragment starts, right there. */
    assert_true(self("http://h/link/?x", "h"));
    assert_true(self("http://h/link/#f", "h"));
    assert_true(self("http://[::1]/link/?x", "[::1]"));
    assert_false(self("https://h/link/x", "h"));       /* 443 is not 80 */
    assert_true(self("https://h/link/x", "h:443"));    /* https's own default */
    assert_false(self("http://h:8080/link/x", "h:8081"));
    assert_false(self("http://other:8080/link/x", "h:8080"));
    assert_false(self("http://h:8080/stats", "h:8080"));
    assert_false(self("http://h:8080/linkx/y", "h:8080"));
    assert_false(self("http://h:8080/x/link/y", "h:8080"));
    assert_false(self("http://h:8080/?/link/x", "h:8080"));
    /* One digit is a port too: 8 is not the Host's 80. */
    assert_false(self("http://h:8/link/x", "h:80"));
    assert_true(self("http://h:8/link/x", "h:8"));
    /* The Host's port as written, 0 included; one that cannot be read
     * (65536) counts as the default, so the check errs towards refusing
     * a link that may loop. */
    assert_false(self("http://h/link/x", "h:0"));
    assert_true(self("http://h/link/x", "h:65536"));
    /* No URI at all is no self link (the service checks URLs first; the
     * function still answers 0, never -1, which means out of memory). */
    assert_int_equal(self("http://{a/link/x", "{a"), 0);
    /* The longest URL a link may have is still checked. */
    char url[LINKS_URL_MAX + 1];
    memcpy(url, "http://h/link/", 14);
    memset(url + 14, 'a', LINKS_URL_MAX - 14);
    url[LINKS_URL_MAX] = '\0';
    assert_int_equal(request_is_self_link(url, LINKS_URL_MAX, "h"), 1);
    assert_int_equal(request_is_self_link(url, LINKS_URL_MAX - 1, "h"), 1);
    assert_false(self("http://h:8080/link/x", NULL));
    assert_false(self("http://h:8080/link/x", ""));
}

UNIT_MAIN(NULL, NULL,
    cmocka_unit_test(test_check_url),
    cmocka_unit_test(test_self_link),
    cmocka_unit_test(test_parse_create),
    cmocka_unit_test(test_match))
