/* build: src/shortener/service/request.c src/load/load_http.c src/base/url_mask.c src/base/json_alloc.c src/base/net.c src/base/units.c src/base/errbuf.c -luriparser -lcjson -lhttp_parser */
/* libFuzzer target: URLs from outside — the shortener's URL check and its
 * self-link test (service/request.h), the load generator's target URL
 * (load_url_parse, load/load_http.h) and the password mask every message
 * goes through (url_mask, base/url_mask.h).
 *
 * Input: any bytes. The whole input is the URL of request_check_url (raw
 * bytes, no NUL) and, up to its first NUL, the text of url_mask and of
 * load_url_parse. request_is_self_link gets the URL after the input's first
 * '\n' with the line before it as the authority (the request's Host); an
 * input without '\n' is its own authority (the URL's own host[:port]), so
 * that links back to the service are common. Two texts with a secret are
 * built from the input's '\n'-separated fields SCHEME, USER, SECRET, HOST:
 * "SCHEME://USER:SECRET@HOST" and "HOST password=SECRET&USER".
 *
 * Invariants checked:
 *  - request_check_url: deterministic (same answer and message twice);
 *    accepted means 1..LINKS_URL_MAX bytes of well-formed UTF-8 (RFC 3629)
 *    with no byte <= 0x20, no DEL and no C1 control, starting http:// or
 *    https:// (any case), an authority without '@', a non-empty host and a
 *    port, if written, of digits in 1..65535; refused means a message.
 *  - request_is_self_link (only on accepted URLs, as its contract says):
 *    0 or 1, 0 without an authority, blind to the authority's case; with
 *    the URL's own authority (http, or a port written) it is 1 exactly when
 *    the path, percent-decoded as the service routes it, starts /link/.
 *  - load_url_parse: on success host, port, hostport and path are
 *    terminated in their arrays, the port is 1..65535, and "http://" (or
 *    "https://" when it says tls) + hostport + path + the trailing '/'s it
 *    dropped gives the URL back.
 *  - url_mask: the output is terminated within cap for caps 1, 8, 64 and
 *    4096, and each is a prefix of the whole output (truncation only);
 *    masking is idempotent (masking the output changes nothing); a return
 *    of 0 means the output is the text unchanged. In
 *    "SCHEME://USER:SECRET@HOST" (SECRET without '@', blanks, quotes or
 *    "://", and not starting "//", which would make a "://" with the ':'
 *    before it: the header ends the userinfo there) and in
 *    "HOST password=SECRET&USER", SECRET never shows in the output unless
 *    the rest of the text holds it too (or it holds a '*', which the mask
 *    itself writes); with a HOST without '@', "://" or "password=" the
 *    first is exactly "SCHEME://USER:***@HOST".
 *
 * Build and run: make fuzz [FUZZ_TIME=30] */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "base/net.h"
#include "base/url_mask.h"
#include "load/load_http.h"
#include "shortener/service/request.h"
#include "shortener/store/links.h"

/* A fuzz-found invariant failure: say which, then abort (libFuzzer saves
 * the input). */
#define FUZZ_NAME "fuzz_url"
#include "tests/fuzz/fuzz_check.h"

/* Well-formed UTF-8 by RFC 3629's table (section 4), written from the
 * RFC, not from request.c. */
static int utf8_ok(const unsigned char *s, size_t n)
{
    size_t i = 0;
    while (i < n) {
        unsigned char c = s[i];
        size_t k;
        unsigned char lo = 0x80, hi = 0xbf;
        if (c < 0x80) {
            i++;
            continue;
        } else if (c >= 0xc2 && c <= 0xdf) {
            k = 2;
        } else if (c == 0xe0) {
            k = 3, lo = 0xa0;
        } else if ((c >= 0xe1 && c <= 0xec) || c == 0xee || c == 0xef) {
            k = 3;
        } else if (c == 0xed) {
            k = 3, hi = 0x9f;
        } else if (c == 0xf0) {
            k = 4, lo = 0x90;
        } else if (c >= 0xf1 && c <= 0xf3) {
            k = 4;
        } else if (c == 0xf4) {
            k = 4, hi = 0x8f;
        } else {
            return 0;
        }
        if (n - i < k || s[i + 1] < lo || s[i + 1] > hi)
            return 0;
        for (size_t j = 2; j < k; j++)
            if (s[i + j] < 0x80 || s[i + j] > 0xbf)
                return 0;
        i += k;
    }
    return 1;
}

/* What acceptance promises, read off the raw bytes. */
static void check_accepted(const unsigned char *u, size_t len)
{
    CHECK(len >= 1 && len <= LINKS_URL_MAX, "accepted URL length outside 1..2048");
    CHECK(utf8_ok(u, len), "accepted URL is not well-formed UTF-8");
    for (size_t i = 0; i < len; i++) {
        CHECK(u[i] > 0x20 && u[i] != 0x7f, "accepted URL holds a control byte, space or DEL");
        CHECK(!(u[i] == 0xc2 && i + 1 < len && u[i + 1] >= 0x80 && u[i + 1] <= 0x9f),
              "accepted URL holds a C1 control");
    }
    size_t skip = len >= 7 && strncasecmp((const char *)u, "http://", 7) == 0 ? 7
                  : len >= 8 && strncasecmp((const char *)u, "https://", 8) == 0 ? 8 : 0;
    CHECK(skip, "accepted URL without http:// or https://");
    size_t a = skip, e = skip;
    while (e < len && u[e] != '/' && u[e] != '?' && u[e] != '#')
        e++;
    CHECK(e > a, "accepted URL with an empty authority");
    CHECK(!memchr(u + a, '@', e - a), "accepted URL with user:password@");
    /* The port: after the last ':' outside brackets. */
    size_t hend = e;
    if (u[a] == '[') {
        const unsigned char *rb = memchr(u + a, ']', e - a);
        CHECK(rb != NULL, "accepted URL with an unclosed '['");
        hend = (size_t)(rb - u) + 1;
        CHECK(hend == e || u[hend] == ':', "accepted URL with junk after ']'");
        CHECK(hend - a > 2, "accepted URL with an empty [] host");
    } else {
        const unsigned char *c = memchr(u + a, ':', e - a);
        if (c)
            hend = (size_t)(c - u);
        CHECK(hend > a, "accepted URL with an empty host");
    }
    if (hend < e) {
        unsigned long port = 0;
        for (size_t i = hend + 1; i < e; i++) {
            CHECK(u[i] >= '0' && u[i] <= '9', "accepted URL with a port that is not digits");
            if (port <= 65535)
                port = port * 10 + (u[i] - '0');
        }
        CHECK(hend + 1 == e || (port >= 1 && port <= 65535), "accepted URL with a port outside 1..65535");
    }
}

/* The authority of an accepted URL: after "://", up to '/', '?' or '#'. */
static char *authority_of(const char *u, size_t len)
{
    const char *a = strstr(u, "://") + 3;
    size_t n = 0;
    while ((size_t)(a - u) + n < len && !strchr("/?#", a[n]))
        n++;
    return fuzz_dupn(a, n);
}

/* url (accepted) against given (the Host; NULL: the URL's own authority). */
static void check_self(const char *url, size_t len, const char *given)
{
    char *auth = given ? fuzz_dupn(given, strlen(given)) : authority_of(url, len);
    int self = request_is_self_link(url, len, auth);
    CHECK(self == 0 || self == 1, "request_is_self_link is not 0 or 1");
    CHECK(request_is_self_link(url, len, auth) == self, "request_is_self_link not deterministic");
    CHECK(request_is_self_link(url, len, NULL) == 0, "self link without an authority");
    CHECK(request_is_self_link(url, len, "") == 0, "self link with an empty authority");
    /* Host names compare in any case (RFC 3986 section 3.2.2). */
    char *upper = fuzz_dupn(auth, strlen(auth));
    for (char *p = upper; *p; p++)
        if (*p >= 'a' && *p <= 'z')
            *p = (char)(*p - 'a' + 'A');
    CHECK(request_is_self_link(url, len, upper) == self,
          "request_is_self_link depends on the authority's case");
    free(upper);
    /* The URL's own authority: same host, and the same port when the
     * defaults agree (http's 80 is a Host's; https's 443 is not) or one is
     * written that net_parse_num reads alike on both sides. Then only the
     * path decides. */
    struct net_hostport hp;
    long port;
    int https = len >= 8 && strncasecmp(url, "https://", 8) == 0;
    if (!given && net_hostport_split(auth, strlen(auth), &hp, NULL, 0) == 0 &&
        (!https || (hp.plen > 0 && net_parse_num(hp.port, hp.plen, 0, 65535, &port) == 0))) {
        const char *p = strstr(url, "://") + 3 + strlen(auth);
        size_t plen = 0;
        while ((size_t)(p - url) + plen < len && p[plen] != '?' && p[plen] != '#')
            plen++;
        char *path = malloc(plen + 1);
        if (!path)
            abort();
        request_decode_path(p, plen, path);
        int want = strncmp(path, "/link/", 6) == 0;
        free(path);
        CHECK(self == want, "with its own authority, a URL is a self link iff its path is /link/...");
    }
    free(auth);
}

static void check_load_url(const char *s)
{
    struct load_url u;
    char err[128];
    if (load_url_parse(s, &u, err, sizeof err) != 0) {
        CHECK(memchr(err, '\0', sizeof err) && err[0], "load_url_parse failed without a reason");
        return;
    }
    CHECK(memchr(u.host, '\0', sizeof u.host) && u.host[0], "load_url host empty or unterminated");
    CHECK(memchr(u.port, '\0', sizeof u.port), "load_url port unterminated");
    CHECK(memchr(u.hostport, '\0', sizeof u.hostport), "load_url hostport unterminated");
    CHECK(memchr(u.path, '\0', sizeof u.path), "load_url path unterminated");
    long port;
    CHECK(net_parse_num(u.port, strlen(u.port), 1, 65535, &port) == 0, "load_url port outside 1..65535");
    size_t hp = strlen(u.hostport), pl = strlen(u.path), sl = u.tls ? 8 : 7;
    CHECK(strncmp(s, u.tls ? "https://" : "http://", sl) == 0 &&
              strncmp(s + sl, u.hostport, hp) == 0 && strncmp(s + sl + hp, u.path, pl) == 0,
          "load_url parts do not give the URL back");
    CHECK(strchr(u.port, ':') == NULL && (hp == 0 || strstr(u.hostport, "://") == NULL),
          "load_url hostport holds a scheme");
    for (const char *t = s + sl + hp + pl; *t; t++)
        CHECK(*t == '/', "load_url dropped more than trailing '/'s");
    CHECK(pl == 0 || (u.path[0] == '/' && u.path[pl - 1] != '/'), "load_url path not /x without a trailing '/'");
}

/* url_mask into exactly cap bytes of heap (so AddressSanitizer sees any
 * byte written past them). */
static char *mask_cap(const char *text, size_t cap, int *rc)
{
    char *out = malloc(cap ? cap : 1);
    if (!out)
        abort();
    *rc = url_mask(text, out, cap);
    return out;
}

/* The whole output: room for every "***" a text of n bytes can gain (at
 * most one per 2 input bytes, "a:@" -> "a:***@", "password=" -> ...=***). */
static char *mask_all(const char *text, int *rc)
{
    return mask_cap(text, 3 * strlen(text) + 16, rc);
}

static void check_mask(const char *text)
{
    int rc;
    char *all = mask_all(text, &rc);
    CHECK(rc == 0 || rc == 1, "url_mask returned neither 0 nor 1");
    CHECK(rc == 1 || strcmp(all, text) == 0, "url_mask changed the text and said nothing was masked");
    static const size_t caps[] = {1, 8, 64, 4096};
    for (size_t i = 0; i < sizeof caps / sizeof caps[0]; i++) {
        int r;
        char *o = mask_cap(text, caps[i], &r);
        size_t n = strnlen(o, caps[i]);
        CHECK(n < caps[i], "url_mask output not terminated within cap");
        CHECK(strncmp(o, all, n) == 0 && (n == caps[i] - 1 || o[n] == all[n]),
              "url_mask output under a small cap is not a prefix of the whole");
        CHECK(r == rc, "url_mask's answer depends on cap");
        free(o);
    }
    int r0;
    free(mask_cap(text, 0, &r0));   /* cap 0: nothing written */
    int r2;
    char *again = mask_all(all, &r2);
    CHECK(strcmp(again, all) == 0, "url_mask is not idempotent");
    free(again);
    free(all);
}

/* Whether secret (no '*') can show in the masked text without a leak: the
 * mask's output is pieces of the text with "***" between them, so a
 * '*'-free string in it lies within one piece; it leaks only if the text
 * without the secret does not hold it. */
static void check_secret(const char *text, const char *without, const char *secret, const char *form)
{
    int rc;
    char *out = mask_all(text, &rc);
    if (!strchr(secret, '*') && !strstr(without, secret) && strstr(out, secret)) {
        fprintf(stderr, "fuzz_url: secret '%s' shown by url_mask in %s\n", secret, form);
        CHECK(0, "url_mask let a password through");
    }
    CHECK(rc == 1, "url_mask found no password in a text with one");
    free(out);
}

/* Keep the bytes of s[0..n) that keep() accepts. */
static char *filter(const char *s, size_t n, int (*keep)(unsigned char))
{
    char *o = malloc(n + 1);
    size_t k = 0;
    if (!o)
        abort();
    for (size_t i = 0; i < n; i++)
        if (keep((unsigned char)s[i]))
            o[k++] = s[i];
    o[k] = '\0';
    return o;
}

static int scheme_char(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
           c == '+' || c == '-' || c == '.';
}

/* What ends a userinfo (url_mask.h): blanks, quotes, and NUL (C string). */
static int not_stop(unsigned char c)
{
    return c && c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\'' && c != '"';
}

static int user_char(unsigned char c) { return not_stop(c) && c != ':' && c != '@'; }
static int secret_char(unsigned char c) { return not_stop(c) && c != '@'; }
static int value_char(unsigned char c) { return not_stop(c) && c != '@' && c != '&'; }
static int any_char(unsigned char c) { return c != 0; }

static char *cat(const char *a, const char *b, const char *c, const char *d, const char *e)
{
    size_t n = strlen(a) + strlen(b) + strlen(c) + strlen(d) + strlen(e);
    char *s = malloc(n + 1);
    if (!s)
        abort();
    snprintf(s, n + 1, "%s%s%s%s%s", a, b, c, d, e);
    return s;
}

static void check_secrets(const char *data, size_t size)
{
    const char *f[4];
    size_t n[4];
    const char *p = data, *end = data + size;
    for (int i = 0; i < 4; i++) {
        const char *nl = i < 3 ? memchr(p, '\n', (size_t)(end - p)) : NULL;
        f[i] = p;
        n[i] = (size_t)((nl ? nl : end) - p);
        p = nl ? nl + 1 : end;
    }
    char *scheme = filter(f[0], n[0], scheme_char);
    char *user = filter(f[1], n[1], user_char);
    char *secret = filter(f[2], n[2], secret_char);
    char *value = filter(f[2], n[2], value_char);
    char *host = filter(f[3], n[3], any_char);
    if (!*scheme) {
        free(scheme);
        scheme = fuzz_dupn("valkey", 6);
    }
    /* A "://" in the secret, or one its first "//" makes with the ':'
     * before it, ends the userinfo by the header's own rule. */
    if (*secret && !strstr(secret, "://") && strncmp(secret, "//", 2) != 0) {
        char *text = cat(scheme, "://", user, ":", secret);
        char *t2 = cat(text, "@", host, "", "");
        char *without = cat(scheme, "://", user, ":***@", host);
        check_secret(t2, without, secret, "SCHEME://USER:SECRET@HOST");
        /* A host with no '@', "://" or "password=" is copied as it is. */
        int plain = !strchr(host, '@') && !strstr(host, "://");
        for (const char *h = host; plain && *h; h++)
            plain = strncasecmp(h, "password=", 9) != 0;
        if (plain) {
            int rc;
            char *out = mask_all(t2, &rc);
            CHECK(strcmp(out, without) == 0, "url_mask of SCHEME://USER:SECRET@HOST is not SCHEME://USER:***@HOST");
            free(out);
        }
        free(text);
        free(t2);
        free(without);
    }
    if (*value) {
        char *t = cat(host, " password=", value, "&", user);
        char *without = cat(host, " password=***&", user, "", "");
        check_secret(t, without, value, "HOST password=SECRET&USER");
        free(t);
        free(without);
    }
    free(scheme);
    free(user);
    free(secret);
    free(value);
    free(host);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* request_check_url reads exactly len bytes: a heap copy of that size
     * lets AddressSanitizer catch a read past them. */
    char *raw = malloc(size ? size : 1);
    if (!raw)
        abort();
    memcpy(raw, data, size);
    const char *why = NULL, *why2 = NULL;
    int rc = request_check_url(raw, size, &why);
    CHECK(rc == 0 || rc == -1, "request_check_url returned neither 0 nor -1");
    CHECK(request_check_url(raw, size, &why2) == rc && (rc == 0 || why2 == why),
          "request_check_url not deterministic");
    if (rc == 0)
        check_accepted((const unsigned char *)raw, size);
    else
        CHECK(why && *why, "request_check_url refused without a reason");
    char *text = fuzz_dupn(data, size);   /* ends at the first NUL for the C-string APIs */

    const char *nl = memchr(data, '\n', size);
    if (rc == 0 && !nl) {
        check_self(text, size, NULL);
    } else if (nl) {
        const char *url = nl + 1;
        size_t ulen = size - (size_t)(url - (const char *)data);
        char *u = malloc(ulen ? ulen : 1);
        if (!u)
            abort();
        memcpy(u, url, ulen);
        if (request_check_url(u, ulen, &why) == 0) {
            char *auth = fuzz_dupn(data, (size_t)(nl - (const char *)data));
            check_self(u, ulen, auth);
            free(auth);
        }
        free(u);
    }
    check_load_url(text);
    check_mask(text);
    check_secrets((const char *)data, size);
    free(text);
    free(raw);
    return 0;
}
