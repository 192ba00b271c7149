/* request, at its edges: every UTF-8 lead and continuation byte range at
 * its exact boundary, overlong and surrogate forms, the URL length limit,
 * scheme case and empty hosts, the message each refusal gives, JSON body
 * members missing or of the wrong type, whitespace after the body, and
 * every route with its near-misses.
 *
 * Expected values come from the specifications, not from the code: UTF-8
 * byte ranges and the code points at their ends from RFC 3629 section 4
 * (the "UTF8-2/3/4" rules: C2-DF, E0 A0-BF, E1-EC, ED 80-9F, EE-EF, F0 90-BF,
 * F1-F3, F4 80-8F, continuation bytes 80-BF); JSON whitespace from RFC 8259
 * section 2 (space, tab, LF, CR only; a raw control character is not
 * allowed inside a string, section 7); the messages and routes from
 * request.h and the README's API table. */
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

#define WHY_EMPTY "url is empty"
#define WHY_LONG "url is longer than 2048 bytes"
#define WHY_SCHEME "url must start with http:// or https://"
#define WHY_HOST "url has no host"
#define WHY_CTRL "url contains spaces or control characters"
#define WHY_UTF8 "url is not valid UTF-8"

/* NULL when url (len bytes, not necessarily NUL-terminated) is accepted,
 * else the reason given. */
static const char *check(const char *url, size_t len)
{
    const char *why = NULL;
    int rc = request_check_url(url, len, &why);
    if (rc == 0)
        return NULL;
    assert_int_equal(rc, -1);
    assert_non_null(why);
    return why;
}

/* "https://h/" + tail (tlen bytes) + what, checked whole. */
static const char *check_tail(const char *tail, size_t tlen)
{
    char buf[64];
    assert_true(10 + tlen <= sizeof buf);
    memcpy(buf, "https://h/", 10);
    memcpy(buf + 10, tail, tlen);
    return check(buf, 10 + tlen);
}

#define OK_TAIL(t) assert_null(check_tail((t), sizeof(t) - 1))
#define BAD_TAIL(t, why) assert_string_equal(check_tail((t), sizeof(t) - 1), (why))

/* Each well-formed sequence alone at the end (the last byte is the last
 * of the URL: n == k exactly), then followed by ASCII. From RFC 3629's
 * table: the lowest and highest code point of each length, the continuation
 * bytes at both ends of 80..BF, and the neighbours of the surrogate block. */
static void test_utf8_accepted(void **st)
{
    (void)st;
    static const char *const good[] = {
        "\x21",                /* '!', the first byte above space */
        "\x7e",                /* '~', the last below DEL */
        "\xc2\xa9",            /* U+00A9: C2 is the lowest 2-byte lead */
        "\xc3\x80",            /* U+00C0: continuation 80, its lowest */
        "\xc3\xbf",            /* U+00FF: continuation BF, its highest */
        "\xdf\xbf",            /* U+07FF: DF, the highest 2-byte lead */
        "\xe0\xa0\x80",        /* U+0800: lowest 3-byte; E0 needs A0..BF next */
        "\xe2\x82\xac",        /* U+20AC, the euro sign */
        "\xed\x9f\xbf",        /* U+D7FF: just below the surrogates */
        "\xee\x80\x80",        /* U+E000: just above them */
        "\xef\xbf\xbd",        /* U+FFFD */
        "\xef\xbf\xbf",        /* U+FFFF: EF, the highest 3-byte lead */
        "\xf0\x90\x80\x80",    /* U+10000: lowest 4-byte; F0 needs 90..BF next */
        "\xf0\x9f\x98\x80",    /* U+1F600 */
        "\xf3\xbf\xbf\xbf",    /* U+FFFFF */
        "\xf4\x80\x80\x80",    /* U+100000 */
        "\xf4\x8f\xbf\xbf",    /* U+10FFFF: F4 8F, the last code point */
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        char buf[16];
        size_t n = strlen(good[i]);
        const char *why = check_tail(good[i], n);
        if (why)
            fail_msg("sequence %zu refused alone: %s", i, why);
        memcpy(buf, good[i], n);
        memcpy(buf + n, "x/\xc3\xa9", 4);   /* then ASCII, then a 2-byte one */
        why = check_tail(buf, n + 4);
        if (why)
            fail_msg("sequence %zu refused when followed: %s", i, why);
        memcpy(buf, "ab", 2);               /* after ASCII */
        memcpy(buf + 2, good[i], n);
        why = check_tail(buf, n + 2);
        if (why)
            fail_msg("sequence %zu refused after ASCII: %s", i, why);
    }
    /* Several multi-byte sequences back to back: each is measured from its
     * own lead byte. */
    OK_TAIL("\xe2\x82\xac\xf0\x9f\x98\x80\xc3\xa9\xef\xbf\xbd");
}

static void test_utf8_refused(void **st)
{
    (void)st;
    static const char *const bad[] = {
        "\x80",                /* a continuation byte as lead: lowest */
        "\xbf",                /* and highest */
        "\x80\x80",
        "\xc0\x80",            /* C0, C1: only overlong forms of ASCII */
        "\xc0\xaf",
        "\xc1\xbf",            /* overlong U+007F */
        "\xc2",                /* truncated at the end of the URL */
        "\xc2" "A",            /* a lead followed by ASCII */
        "\xc2\x7f",            /* ... by the byte just below 80 */
        "\xc2\xc0",            /* ... by the byte just above BF */
        "\xc2\xc2\xa9",        /* ... by another lead */
        "\xe0\x80\x80",        /* overlong U+0000 */
        "\xe0\x9f\xbf",        /* overlong U+07FF: E0 9F */
        "\xe2\x82",            /* truncated */
        "\xe2\x82" "A",
        "\xe2" "A" "\xac",
        "\xed\xa0\x80",        /* U+D800, the first surrogate */
        "\xed\xbf\xbf",        /* U+DFFF, the last */
        "\xed\xb0\x80",        /* U+DC00 */
        "\xf0\x80\x80\x80",    /* overlong U+0000 */
        "\xf0\x8f\xbf\xbf",    /* overlong U+FFFF: F0 8F */
        "\xf0\x9f\x98",        /* truncated */
        "\xf0\x9f\x98" "A",
        "\xf0\x9f" "A" "\x80",
        "\xf0" "A" "\x98\x80",
        "\xf4\x90\x80\x80",    /* U+110000: F4 90, past the last code point */
        "\xf4\xbf\xbf\xbf",
        "\xf5\x80\x80\x80",    /* F5..FF never appear in UTF-8 */
        "\xf7\xbf\xbf\xbf",
        "\xf8\x88\x80\x80\x80",
        "\xf8\x90\x80\x80",    /* a 4-byte shape on an F8 lead: U+10000 if taken */
        "\x81\x80\x80\x80",    /* ... on a continuation byte: U+40000 if taken */
        "\xfe",
        "\xff",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char buf[16];
        size_t n = strlen(bad[i]);
        const char *why = check_tail(bad[i], n);
        if (!why || strcmp(why, WHY_UTF8) != 0)
            fail_msg("sequence %zu: expected \"%s\", got %s", i, WHY_UTF8, why ? why : "accepted");
        memcpy(buf, bad[i], n);             /* and with ASCII after it */
        memcpy(buf + n, "xyz", 3);
        why = check_tail(buf, n + 3);
        if (!why || strcmp(why, WHY_UTF8) != 0)
            fail_msg("sequence %zu + ASCII: expected \"%s\", got %s", i, WHY_UTF8,
                     why ? why : "accepted");
    }
}

/* Every byte up to and including space, and DEL, is refused with the
 * control message wherever it stands (the scheme is matched first, so
 * the host and the path). Every other ASCII byte, at the start of a path
 * and at the end of a host name, passes exactly where RFC 3986 and the
 * host rule of request.h allow it: in a path, section 3.3's pchar
 * (unreserved, sub-delims, ':' and '@'), the delimiters '/', '?', '#',
 * and what WHATWG's URL standard percent-encodes in a path (its "path
 * percent-encode set": '"', '<', '>', '`', '{', '}') or keeps ('|', '^'),
 * but not '\', a path separator there ('%' only before two hex digits);
 * after a host name, its letters, digits, '-', '_', '.', and the
 * delimiters ':' (an empty port), '/', '?', '#'. */
static void test_control_bytes(void **st)
{
    (void)st;
    static const char unreserved_marks[] = "-._~";
    static const char sub_delims[] = "!$&'()*+,;=";
    for (int c = 0; c <= 0x7f; c++) {
        int ctrl = c <= 0x20 || c == 0x7f;
        int alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        int path_ok = !ctrl && (alnum || strchr(unreserved_marks, c) || strchr(sub_delims, c) ||
                                strchr(":@/?#", c) || strchr("\"<>`{}|^", c));
        int host_ok = !ctrl && (alnum || strchr("-_.:/?#", c));
        char path[] = "https://h/a?b";
        path[10] = (char)c;
        const char *why = check(path, sizeof path - 1);
        char host[] = "http://ab";
        host[8] = (char)c;
        const char *why2 = check(host, sizeof host - 1);
        if (ctrl) {
            if (!why || strcmp(why, WHY_CTRL) != 0 || !why2 || strcmp(why2, WHY_CTRL) != 0)
                fail_msg("byte 0x%02x: expected \"%s\"", c, WHY_CTRL);
            continue;
        }
        if (path_ok != !why)
            fail_msg("byte 0x%02x in a path: %s", c, why ? why : "accepted");
        if (host_ok != !why2)
            fail_msg("byte 0x%02x in a host: %s", c, why2 ? why2 : "accepted");
    }
    /* A NUL inside the given length is a control byte, not the end. */
    assert_string_equal(check("http://a\0b", 10), WHY_CTRL);
    /* C1 controls, U+0080 to U+009F (C2 80 to C2 9F), are controls too;
     * U+00A0, the next, is not. */
    BAD_TAIL("\xc2\x80", WHY_CTRL);
    BAD_TAIL("\xc2\x85", WHY_CTRL);
    BAD_TAIL("\xc2\x9f", WHY_CTRL);
    OK_TAIL("\xc2\xa0");
}

/* The check reads exactly len bytes: what follows in memory is not the
 * URL's. */
static void test_length_is_exact(void **st)
{
    (void)st;
    const char raw[] = "http://a b\x01\xff";
    assert_null(check(raw, 8));                  /* "http://a" */
    assert_string_equal(check(raw, 9), WHY_CTRL);
    assert_string_equal(check(raw, 7), WHY_HOST);   /* "http://", byte 7 unread */
    const char raw2[] = "https://h/\xc3\xa9 ";
    assert_null(check(raw2, 12));
    assert_string_equal(check(raw2, 11), WHY_UTF8);  /* cut inside the sequence */
}

/* url copied into a heap block of exactly its length, no NUL after it:
 * a read past the URL's last byte is AddressSanitizer's to report. */
static const char *check_exact(const char *url)
{
    size_t len = strlen(url);
    char *p = malloc(len);
    assert_non_null(p);
    memcpy(p, url, len);
    const char *why = check(p, len);
    free(p);
    return why;
}

static void test_reads_stop_at_the_end(void **st)
{
    (void)st;
    assert_null(check_exact("http://a"));                /* no path: the authority runs to the end */
    assert_null(check_exact("https://h:8080"));
    assert_string_equal(check_exact("https://h/\xc2"), WHY_UTF8);   /* a lead byte last */
    assert_string_equal(check_exact("https://h/\xc2\x85"), WHY_CTRL);
}

#define WHY_HOSTCHARS "url host may hold only letters, digits, '-', '_' and '.' (an IDN as xn--...)"
#define WHY_URI "url is not a valid URI (RFC 3986)"

/* RFC 3986 lets a reg-name hold unreserved and sub-delims characters
 * ("~", "!", "$", ...) anywhere; a shortener stores none of them, first
 * byte or last. In the authority nothing is percent-encoded, so a byte
 * RFC 3986 refuses there ("{") is refused as no URI, not as a host. */
static void test_host_characters(void **st)
{
    (void)st;
    static const char *const bad[] = {
        "http://~a/", "http://!a/", "http://$a", "http://a~/", "http://a!b/", "https://*.example.com/",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        const char *why = check(bad[i], strlen(bad[i]));
        if (!why || strcmp(why, WHY_HOSTCHARS) != 0)
            fail_msg("[%s]: expected \"%s\", got %s", bad[i], WHY_HOSTCHARS, why ? why : "accepted");
    }
    assert_string_equal(check("http://{a/", 10), WHY_URI);
    assert_string_equal(check("http://a{/", 10), WHY_URI);
    assert_null(check("http://a/{", 10));   /* in the path it is encoded, as a browser does */
    /* A port of six digits that starts 65535 is out of range, not 65535. */
    assert_string_equal(check("http://h:655350/", 16), "url port must be 1..65535");
    assert_null(check("http://h:65535/", 15));
}

static void test_limits_and_messages(void **st)
{
    (void)st;
    assert_string_equal(check("", 0), WHY_EMPTY);
    assert_string_equal(check("h", 1), WHY_SCHEME);   /* one byte: not "empty" */
    assert_string_equal(check("x", 1), WHY_SCHEME);
    /* 2048 bytes pass, 2049 are refused for their length before anything
     * else (the 2049-byte one would otherwise pass). */
    char buf[LINKS_URL_MAX + 1];
    memcpy(buf, "https://example.com/", 20);
    memset(buf + 20, 'a', sizeof buf - 20);
    assert_null(check(buf, LINKS_URL_MAX));
    assert_string_equal(check(buf, LINKS_URL_MAX + 1), WHY_LONG);
    memset(buf, ' ', sizeof buf);                 /* bad in every way, but long */
    assert_string_equal(check(buf, LINKS_URL_MAX + 1), WHY_LONG);
    assert_string_equal(check(buf, LINKS_URL_MAX), WHY_SCHEME);
}

static void test_scheme_and_host(void **st)
{
    (void)st;
    /* Scheme: either spelling, any case. */
    static const char *const good[] = {
        "http://a", "https://a", "HTTP://a", "HTTPS://a", "hTtP://a", "HtTpS://a",
        "http://a/", "https://a?", "http://a#", "http://[::1]", "http://xn--caf-dma.example",
        "https://h/%20%00%2F",
    };
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        if (check(good[i], strlen(good[i])))
            fail_msg("refused [%s]", good[i]);
    static const char *const scheme[] = {
        "http:/", "https:/", "http:/a", "https:/a", "http:a", "https:a", "httpx://a",
        "httpss://a", "ftp://a", " http://a", "http//a", "http:\\\\a", "ttp://a",
        "//a", "https//", "h", "http", "https", "http:", "https:",
    };
    for (size_t i = 0; i < sizeof scheme / sizeof scheme[0]; i++) {
        const char *why = check(scheme[i], strlen(scheme[i]));
        if (!why || strcmp(why, WHY_SCHEME) != 0)
            fail_msg("[%s]: expected \"%s\", got %s", scheme[i], WHY_SCHEME, why ? why : "accepted");
    }
    /* Nothing after the scheme, or a path, query or fragment at once. */
    static const char *const nohost[] = {
        "http://", "https://", "HTTP://", "HTTPS://", "http:///", "https:///",
        "http:///a", "https:///a", "http://?", "http://?a", "https://?q=1",
        "http://#", "http://#a", "https://#f",
    };
    for (size_t i = 0; i < sizeof nohost / sizeof nohost[0]; i++) {
        const char *why = check(nohost[i], strlen(nohost[i]));
        if (!why || strcmp(why, WHY_HOST) != 0)
            fail_msg("[%s]: expected \"%s\", got %s", nohost[i], WHY_HOST, why ? why : "accepted");
    }
    /* A space right after the scheme is a control-byte refusal, not a
     * missing host (only '/', '?', '#' and the end mean no host). */
    assert_string_equal(check("http:// a", 9), WHY_CTRL);
}

/* ---- POST /link bodies ---- */

static const char *parse_n(const char *body, size_t len, char *url, size_t cap, size_t *n)
{
    const char *why = NULL;
    int rc = request_parse_create(body, len, url, cap, n, &why);
    if (rc == 0)
        return NULL;
    assert_int_equal(rc, -1);
    assert_non_null(why);
    return why;
}

static const char *parse(const char *body, char *url)
{
    size_t n = 12345;
    const char *why = parse_n(body, strlen(body), url, LINKS_URL_MAX + 1, &n);
    if (!why)
        assert_int_equal(n, strlen(url));
    return why;
}

static void test_body_messages(void **st)
{
    (void)st;
    char url[LINKS_URL_MAX + 1];
    static const struct { const char *body, *why; } cases[] = {
        {"1", "body must be a JSON object"},   /* one byte: not "empty" */
        {"[]", "body must be a JSON object"},
        {"\"https://a.b/\"", "body must be a JSON object"},
        {"null", "body must be a JSON object"},
        {" ", "invalid JSON"},
        {"{", "invalid JSON"},
        {"{} x", "invalid JSON"},
        {"{}", "missing \"url\""},
        {"{\"URL\": \"https://a.b/\"}", "missing \"url\""},
        {"{\"Url\": \"https://a.b/\"}", "missing \"url\""},
        {"{\"u\": {\"url\": \"https://a.b/\"}}", "missing \"url\""},
        {"{\"url\": 1}", "\"url\" must be a string"},
        {"{\"url\": 0}", "\"url\" must be a string"},
        {"{\"url\": null}", "\"url\" must be a string"},
        {"{\"url\": true}", "\"url\" must be a string"},
        {"{\"url\": false}", "\"url\" must be a string"},
        {"{\"url\": []}", "\"url\" must be a string"},
        {"{\"url\": {}}", "\"url\" must be a string"},
        {"{\"url\": [\"https://a.b/\"]}", "\"url\" must be a string"},
        {"{\"url\": \"\"}", WHY_EMPTY},
        {"{\"url\": \"a\"}", WHY_SCHEME},
        {"{\"url\": \"https://\"}", WHY_HOST},
        {"{\"url\": \"https://a.b/ \"}", WHY_CTRL},
        {"{\"url\": \"https://a.b/\\t\"}", WHY_CTRL},
        {"{\"url\": \"https://a.b/\\u007f\"}", WHY_CTRL},
        {"{\"url\": \"https://a.b/\\u0000x\"}", WHY_CTRL},
        /* a body that spells a NUL anywhere is refused (request.c) */
        {"{\"x\": \"\\u0000\", \"url\": \"https://a.b/\"}", WHY_CTRL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *why = parse(cases[i].body, url);
        if (!why || strcmp(why, cases[i].why) != 0)
            fail_msg("[%s]: expected \"%s\", got %s", cases[i].body, cases[i].why,
                     why ? why : "accepted");
    }
    assert_string_equal(parse_n("{}", 0, url, sizeof url, NULL),
                        "empty body: expected a JSON object with \"url\"");
}

/* After the object only JSON whitespace (RFC 8259: space, tab, LF, CR),
 * each on its own and mixed; any other byte, even one cJSON itself would
 * skip (form feed, vertical tab) or a NUL, makes the body invalid. */
static void test_body_trailing(void **st)
{
    (void)st;
    char url[LINKS_URL_MAX + 1], body[64];
    const char *obj = "{\"url\":\"https://a.b/\"}";
    static const char *const ok[] = {"", " ", "\t", "\n", "\r", "\r\n", " \t\n\r \t\n\r"};
    for (size_t i = 0; i < sizeof ok / sizeof ok[0]; i++) {
        snprintf(body, sizeof body, "%s%s", obj, ok[i]);
        const char *why = parse(body, url);
        if (why)
            fail_msg("trailing whitespace %zu refused: %s", i, why);
        assert_string_equal(url, "https://a.b/");
    }
    static const char *const bad[] = {"\f", "\v", " x", "\tx", "\nx", "\rx", "x", " }", "{}"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(body, sizeof body, "%s%s", obj, bad[i]);
        const char *why = parse(body, url);
        if (!why || strcmp(why, "invalid JSON") != 0)
            fail_msg("trailing %zu: expected invalid JSON, got %s", i, why ? why : "accepted");
    }
    /* A NUL after the object, inside len. */
    const char nul[] = "{\"url\":\"https://a.b/\"}\0";
    assert_string_equal(parse_n(nul, sizeof nul - 1, url, sizeof url, NULL), "invalid JSON");
    /* Only len bytes are the body: whitespace and garbage after them in
     * memory are not looked at. */
    const char raw[] = "{\"url\":\"https://a.b/\"} \tX";
    size_t objlen = strlen(obj);
    assert_null(parse_n(raw, objlen, url, sizeof url, NULL));        /* the ' ' after is unread */
    assert_null(parse_n(raw, objlen + 1, url, sizeof url, NULL));
    assert_null(parse_n(raw, objlen + 2, url, sizeof url, NULL));
    assert_string_equal(parse_n(raw, objlen + 3, url, sizeof url, NULL), "invalid JSON");
}

/* A raw NUL byte inside the JSON string is not JSON (RFC 8259 section 7:
 * control characters must be escaped) and would end the URL early in
 * cJSON's NUL-terminated copy, so "https://a.b/\0evil" must not be stored
 * as "https://a.b/". */
static void test_body_raw_nul(void **st)
{
    (void)st;
    char url[LINKS_URL_MAX + 1];
    const char body[] = "{\"url\":\"https://a.b/\0evil\"}";
    assert_string_equal(parse_n(body, sizeof body - 1, url, sizeof url, NULL), "invalid JSON");
    const char body2[] = "{\"url\":\"https://a.b/\"}";
    assert_null(parse_n(body2, sizeof body2 - 1, url, sizeof url, NULL));
    /* a raw NUL in another member is no better */
    const char body3[] = "{\"x\":\"\0\",\"url\":\"https://a.b/\"}";
    assert_string_equal(parse_n(body3, sizeof body3 - 1, url, sizeof url, NULL), "invalid JSON");
}

/* What is stored is the URL byte for byte: escapes decoded by JSON, none
 * by us (a "%41" stays three characters). */
static void test_body_copy(void **st)
{
    (void)st;
    char url[LINKS_URL_MAX + 1];
    size_t n = 0;
    const char *b = "{\"url\":\"https://a.b/%41%00%2F\\/\\u00e9\\ud83d\\ude00\"}";
    assert_null(parse_n(b, strlen(b), url, sizeof url, &n));
    /* U+1F600 from its surrogate pair is F0 9F 98 80 (RFC 3629) */
    assert_string_equal(url, "https://a.b/%41%00%2F/\xc3\xa9\xf0\x9f\x98\x80");
    assert_int_equal(n, 28);
    /* Only the member named exactly "url" counts. */
    b = "{\"urls\":\"x\",\"url\":\"http://first\",\"Url\":\"http://other\"}";
    assert_null(parse_n(b, strlen(b), url, sizeof url, &n));
    assert_string_equal(url, "http://first");
    assert_int_equal(n, 12);
}

/* The longest URL, 2048 bytes, through a body; 2049 refused. */
static void test_body_length_limit(void **st)
{
    (void)st;
    size_t max = LINKS_URL_MAX;
    char *body = malloc(max + 32), *url = malloc(max + 1);
    assert_non_null(body);
    assert_non_null(url);
    for (size_t len = max - 1; len <= max + 1; len++) {
        size_t off = (size_t)sprintf(body, "{\"url\":\"https://h/");
        memset(body + off, 'p', len - 10);
        off += len - 10;
        off += (size_t)sprintf(body + off, "\"}");
        size_t n = 0;
        const char *why = parse_n(body, off, url, max + 1, &n);
        if (len <= max) {
            assert_null(why);
            assert_int_equal(n, len);
            assert_int_equal(strlen(url), len);
            assert_memory_equal(url, "https://h/pp", 12);
        } else {
            assert_string_equal(why, WHY_LONG);
        }
    }
    free(body);
    free(url);
}

/* The caller's buffer: a URL of n bytes needs cap > n. Below the
 * documented cap (cap > LINKS_URL_MAX), the defence still holds: a buffer
 * of exactly cap bytes is never written past. */
static void test_body_cap(void **st)
{
    (void)st;
    const char *b = "{\"url\":\"http://abc\"}";   /* the URL is 10 bytes */
    size_t n = 0;
    char *url = malloc(11);
    assert_non_null(url);
    assert_null(parse_n(b, strlen(b), url, 11, &n));
    assert_string_equal(url, "http://abc");
    assert_int_equal(n, 10);
    free(url);
    url = malloc(10);
    assert_non_null(url);
    assert_string_equal(parse_n(b, strlen(b), url, 10, &n), WHY_LONG);
    free(url);
}

/* ---- routing ---- */

struct want {
    enum request_route route;
    int method_ok;
    const char *allow;   /* NULL: none */
    const char *id;      /* NULL: none */
};

/* m starts as garbage: every field of the answer must be set. */
static void route(const char *method, const char *path, struct want w)
{
    struct request_match m;
    memset(&m, 0xa5, sizeof m);
    request_match(method, path, &m);
    if (m.route != w.route || m.method_ok != w.method_ok)
        fail_msg("%s %s: route %d method_ok %d, expected %d %d", method, path, (int)m.route,
                 m.method_ok, (int)w.route, w.method_ok);
    if (w.allow)
        assert_string_equal(m.allow, w.allow);
    else
        assert_null(m.allow);
    if (w.id) {
        assert_ptr_equal(m.id, path + 6);   /* a pointer into path, after "/link/" */
        assert_int_equal(m.idlen, strlen(w.id));
        assert_string_equal(m.id, w.id);
    } else {
        assert_null(m.id);
        assert_int_equal(m.idlen, 0);
    }
}

static void test_routes(void **st)
{
    (void)st;
    static const char *const gets[] = {"GET", "HEAD"};
    static const char *const not_get[] = {"POST", "PUT", "DELETE", "PATCH", "OPTIONS", "get",
                                          "head", "Get", "GE", "HEA", "GETS", "HEADS", "GET ",
                                          ""};
    static const char *const not_post[] = {"GET", "HEAD", "PUT", "post", "Post", "POS",
                                           "POSTS", "POST ", ""};
    /* GET routes */
    static const char *const getpaths[] = {"/heart-beat", "/stats"};
    const enum request_route getroutes[] = {ROUTE_HEARTBEAT, ROUTE_STATS};
    for (size_t p = 0; p < 2; p++) {
        for (size_t i = 0; i < 2; i++)
            route(gets[i], getpaths[p], (struct want){getroutes[p], 1, "GET, HEAD", NULL});
        for (size_t i = 0; i < sizeof not_get / sizeof not_get[0]; i++)
            route(not_get[i], getpaths[p], (struct want){getroutes[p], 0, "GET, HEAD", NULL});
    }
    /* POST /link */
    route("POST", "/link", (struct want){ROUTE_CREATE, 1, "POST", NULL});
    for (size_t i = 0; i < sizeof not_post / sizeof not_post[0]; i++)
        route(not_post[i], "/link", (struct want){ROUTE_CREATE, 0, "POST", NULL});
    /* GET /link/<id>: anything after "/link/", verbatim (no decoding) */
    static const char *const ids[] = {"abc", "", "/", "/x", "a/b", "a%2Fb", "x?y", "link"};
    for (size_t k = 0; k < sizeof ids / sizeof ids[0]; k++) {
        char path[32];
        snprintf(path, sizeof path, "/link/%s", ids[k]);
        for (size_t i = 0; i < 2; i++)
            route(gets[i], path, (struct want){ROUTE_RESOLVE, 1, "GET, HEAD", ids[k]});
        for (size_t i = 0; i < sizeof not_get / sizeof not_get[0]; i++)
            route(not_get[i], path, (struct want){ROUTE_RESOLVE, 0, "GET, HEAD", ids[k]});
    }
    /* Near-misses: 404 whatever the method (method_ok stays 1: an unknown
     * path is not a wrong method), no Allow, no id. */
    static const char *const unknown[] = {
        "", "/", "//", "heart-beat", "/heart-beat/", "/heart-beatx", "/heart-bea", "/Heart-beat",
        "/heart_beat", "/heart-beat?", "//heart-beat", "/stat", "/stats/", "/statsx", "/STATS",
        "stats", "/lin", "/link?", "/link?x=1", "/linkx", "/links", "/link.", "/LINK", "/LINK/abc",
        "/Link/abc", "link/abc", "//link", "//link/abc", "/link\\abc", "/api/link", " /link",
    };
    static const char *const methods[] = {"GET", "HEAD", "POST", "PUT", "BREW", ""};
    for (size_t p = 0; p < sizeof unknown / sizeof unknown[0]; p++)
        for (size_t i = 0; i < sizeof methods / sizeof methods[0]; i++)
            route(methods[i], unknown[p], (struct want){ROUTE_UNKNOWN, 1, NULL, NULL});
}

static void test_route_names(void **st)
{
    (void)st;
    assert_string_equal(request_route_name(ROUTE_HEARTBEAT), "GET /heart-beat");
    assert_string_equal(request_route_name(ROUTE_CREATE), "POST /link");
    assert_string_equal(request_route_name(ROUTE_RESOLVE), "GET /link/<id>");
    assert_string_equal(request_route_name(ROUTE_STATS), "GET /stats");
    assert_string_equal(request_route_name(ROUTE_UNKNOWN), "other");
    assert_string_equal(request_route_name(ROUTE_COUNT), "other");
}

/* The path of a request target as routing sees it (request_decode_path),
 * each case worked out from the rule: cut at '?', "%XY" with two hex
 * digits (either case) is the byte 0xXY, anything else stays as sent, a
 * decoded NUL ends it. The input is given without a NUL in a buffer of
 * exactly its length and the output one of len + 1, so a read or write
 * past either end is the sanitizer's error; then once more in place. */
static void decoded_is(const char *in, const char *want, size_t wantlen)
{
    size_t len = strlen(in);
    char *p = malloc(len ? len : 1), *out = malloc(len + 1);
    assert_non_null(p);
    assert_non_null(out);
    memcpy(p, in, len);
    memset(out, 'x', len + 1);
    request_decode_path(p, len, out);
    assert_memory_equal(out, want, wantlen);
    assert_int_equal(out[wantlen], '\0');
    /* in place, as the HTTP glue calls it: the same bytes */
    memcpy(out, in, len);
    request_decode_path(out, len, out);
    assert_memory_equal(out, want, wantlen);
    assert_int_equal(out[wantlen], '\0');
    free(p);
    free(out);
}
#define DECODED(in, want) decoded_is((in), (want), sizeof(want) - 1)

static void test_decode_path(void **st)
{
    (void)st;
    DECODED("", "");
    DECODED("/link/abc", "/link/abc");
    DECODED("/link/a?x=%41", "/link/a");     /* the query is cut, not decoded */
    DECODED("?", "");
    DECODED("/a%3Fb", "/a?b");                /* a decoded '?' does not cut */
    /* a '%' at each distance from the end: two digits after it, one, none */
    DECODED("/a%41", "/aA");
    DECODED("/a%4", "/a%4");
    DECODED("/a%", "/a%");
    DECODED("%2F", "/");                      /* at the very start */
    DECODED("%41%42", "AB");
    DECODED("%%41", "%A");                    /* a '%' that is not an escape stays */
    DECODED("/a%00b", "/a");                  /* a decoded NUL ends it */
    /* the second digit at each edge of 0-9, A-F and a-f: "%4c" */
    DECODED("%4/", "%4/");
    DECODED("%40", "@");
    DECODED("%49", "I");
    DECODED("%4:", "%4:");
    DECODED("%4@", "%4@");
    DECODED("%4A", "J");
    DECODED("%4F", "O");
    DECODED("%4G", "%4G");
    DECODED("%4`", "%4`");
    DECODED("%4a", "J");
    DECODED("%4f", "O");
    DECODED("%4g", "%4g");
    /* the first digit at the same edges: "%c1" */
    DECODED("%/1", "%/1");
    DECODED("%01", "\x01");
    DECODED("%91", "\x91");
    DECODED("%:1", "%:1");
    DECODED("%@1", "%@1");
    DECODED("%A1", "\xa1");
    DECODED("%F1", "\xf1");
    DECODED("%G1", "%G1");
    DECODED("%`1", "%`1");
    DECODED("%a1", "\xa1");
    DECODED("%f1", "\xf1");
    DECODED("%g1", "%g1");
}

UNIT_MAIN(NULL, NULL,
    cmocka_unit_test(test_utf8_accepted),
    cmocka_unit_test(test_utf8_refused),
    cmocka_unit_test(test_control_bytes),
    cmocka_unit_test(test_length_is_exact),
    cmocka_unit_test(test_reads_stop_at_the_end),
    cmocka_unit_test(test_host_characters),
    cmocka_unit_test(test_limits_and_messages),
    cmocka_unit_test(test_scheme_and_host),
    cmocka_unit_test(test_body_messages),
    cmocka_unit_test(test_body_trailing),
    cmocka_unit_test(test_body_raw_nul),
    cmocka_unit_test(test_body_copy),
    cmocka_unit_test(test_body_length_limit),
    cmocka_unit_test(test_body_cap),
    cmocka_unit_test(test_routes),
    cmocka_unit_test(test_route_names),
    cmocka_unit_test(test_decode_path))
