/* request: routing and validation of the shortener API. See request.h. */
#include "shortener/service/request.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cjson/cJSON.h>
#include <uriparser/Uri.h>

#include "base/json_alloc.h"
#include "base/net.h"

static int is_get(const char *m)
{
    return strcmp(m, "GET") == 0 || strcmp(m, "HEAD") == 0;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

void request_decode_path(const char *path, size_t len, char *out)
{
    char *d = out;
    for (size_t i = 0; i < len && path[i] != '?'; i++) {
        int hi, lo;
        if (path[i] == '%' && i + 2 < len && (hi = hexval(path[i + 1])) != -1 &&
            (lo = hexval(path[i + 2])) != -1) {
            *d++ = (char)(hi << 4 | lo);
            i += 2;
        } else {
            *d++ = path[i];
        }
    }
    *d = '\0';
}

void request_match(const char *method, const char *path, struct request_match *m)
{
    memset(m, 0, sizeof *m);
    m->route = ROUTE_UNKNOWN;
    m->method_ok = 1;
    if (strcmp(path, "/heart-beat") == 0) {
        m->route = ROUTE_HEARTBEAT;
        m->allow = "GET, HEAD";
        m->method_ok = is_get(method);
    } else if (strcmp(path, "/stats") == 0) {
        m->route = ROUTE_STATS;
        m->allow = "GET, HEAD";
        m->method_ok = is_get(method);
    } else if (strcmp(path, "/link") == 0) {
        m->route = ROUTE_CREATE;
        m->allow = "POST";
        m->method_ok = strcmp(method, "POST") == 0;
    } else if (strncmp(path, "/link/", 6) == 0) {
        m->route = ROUTE_RESOLVE;
        m->allow = "GET, HEAD";
        m->method_ok = is_get(method);
        m->id = path + 6;
        m->idlen = strlen(m->id);
    }
}

/* Length of the UTF-8 sequence at s (n bytes left), 0 if malformed:
 * overlong forms, surrogates and code points above U+10FFFF are refused,
 * so what we store is exactly what cJSON will print back. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    unsigned char c = s[0];
    size_t k;
    unsigned int cp;
    if (c < 0x80)
        return 1;
    if (c >= 0xc2 && c <= 0xdf) {
        k = 2;
        cp = c & 0x1f;
    } else if (c >= 0xe0 && c <= 0xef) {
        k = 3;
        cp = c & 0x0f;
    } else if (c >= 0xf0 && c <= 0xf4) {
        k = 4;
        cp = c & 0x07;
    } else {
        return 0;
    }
    if (n < k)
        return 0;
    for (size_t i = 1; i < k; i++) {
        if ((s[i] & 0xc0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[i] & 0x3f);
    }
    if ((k == 3 && cp < 0x800) || (k == 4 && cp < 0x10000) || cp > 0x10ffff ||
        (cp >= 0xd800 && cp <= 0xdfff))
        return 0;
    return k;
}

/* 1 when the n bytes at p are a host name a shortener may store:
 * letters, digits, '-', '_' and '.', nothing else (RFC 3986 allows a
 * reg-name much more, and WHATWG's URL parser rewrites some of it; a
 * percent sign, "exa%mple.com", or a non-ASCII name, is refused: an IDN
 * goes in as punycode, xn--...). */
static int host_name_ok(const char *p, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        char c = p[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '-' || c == '_' || c == '.'))
            return 0;
    }
    return 1;
}

#define RANGE_LEN(r) ((size_t)((r).afterLast - (r).first))

/* url (len <= LINKS_URL_MAX bytes) as liburiparser reads it, into buf
 * (3 * LINKS_URL_MAX + 1 bytes): each byte above 0x7f written %XX, and
 * after the authority also the characters RFC 3986 leaves out that WHATWG
 * percent-encodes in a path or a query (" < > ` { }) or keeps (| ^): what
 * a browser sends for them. In the authority nothing is rewritten: a byte
 * there that RFC 3986 refuses stays refused ('\' anywhere too: WHATWG
 * reads it as '/'). 0, -1 when RFC 3986 says it is no URI, -2 when the
 * parser ran out of memory (the server's fault, not the URL's). */
#define ASCII_MAX (3 * LINKS_URL_MAX + 1)
static int parse_ascii(const char *url, size_t len, char *buf, UriUriA *uri)
{
    static const char hex[] = "0123456789ABCDEF";
    const char *auth = memmem(url, len, "://", 3);
    size_t rest = auth ? (size_t)(auth - url) + 3 : len;   /* where the path may start */
    while (rest < len && url[rest] != '/' && url[rest] != '?' && url[rest] != '#')
        rest++;
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)url[i];
        if (c < 0x80 && (i < rest || !strchr("\"<>`{}|^", c))) {
            buf[n++] = (char)c;
        } else {
            buf[n++] = '%';
            buf[n++] = hex[c >> 4];
            buf[n++] = hex[c & 15];
        }
    }
    buf[n] = '\0';
    const char *errpos = NULL;
    int rc = uriParseSingleUriExA(uri, buf, buf + n, &errpos);
    return rc == URI_SUCCESS ? 0 : rc == URI_ERROR_MALLOC ? -2 : -1;
}

/* The URL against RFC 3986 and what a shortener may store (request.h). */
static int check_syntax(const char *url, size_t len, const char **why)
{
    char buf[ASCII_MAX];
    UriUriA uri;
    int parsed = parse_ascii(url, len, buf, &uri);
    if (parsed != 0) {
        *why = parsed == -2 ? "out of memory" : "url is not a valid URI (RFC 3986)";
        return parsed;
    }
    int rc = -1;
    size_t hlen = RANGE_LEN(uri.hostText);
    if (uri.userInfo.first) {
        *why = "url may not carry a user or password (user:password@)";
    } else if (!uri.hostText.first || hlen == 0) {
        *why = "url has no host";
    } else if (uri.hostData.ipFuture.first) {
        *why = "url host is not a name or an IP address";
    } else if (!uri.hostData.ip4 && !uri.hostData.ip6 && !host_name_ok(uri.hostText.first, hlen)) {
        *why = "url host may hold only letters, digits, '-', '_' and '.' (an IDN as xn--...)";
    } else {
        size_t plen = RANGE_LEN(uri.portText);
        long port = 0;
        for (size_t i = 0; i < plen && port <= 65535; i++)
            port = port * 10 + (uri.portText.first[i] - '0');
        if (plen > 0 && (port < 1 || port > 65535))
            *why = "url port must be 1..65535";
        else
            rc = 0;
    }
    uriFreeUriMembersA(&uri);
    return rc;
}

int request_check_url(const char *url, size_t len, const char **why)
{
    if (len == 0) {
        *why = "url is empty";
        return -1;
    }
    if (len > LINKS_URL_MAX) {
        *why = "url is longer than 2048 bytes";
        return -1;
    }
    size_t skip;
    if (len >= 7 && strncasecmp(url, "http://", 7) == 0)
        skip = 7;
    else if (len >= 8 && strncasecmp(url, "https://", 8) == 0)
        skip = 8;
    else {
        *why = "url must start with http:// or https://";
        return -1;
    }
    if (skip == len || url[skip] == '/' || url[skip] == '?' || url[skip] == '#') {
        *why = "url has no host";
        return -1;
    }
    const unsigned char *u = (const unsigned char *)url;
    for (size_t i = 0; i < len;) {
        /* C0, space, DEL, and C1 (U+0080-U+009F, C2 80-9F in UTF-8) */
        if (u[i] <= 0x20 || u[i] == 0x7f ||
            (u[i] == 0xc2 && i + 1 < len && u[i + 1] >= 0x80 && u[i + 1] <= 0x9f)) {
            *why = "url contains spaces or control characters";
            return -1;
        }
        size_t k = utf8_len(u + i, len - i);
        if (k == 0) {
            *why = "url is not valid UTF-8";
            return -1;
        }
        i += k;
    }
    return check_syntax(url, len, why);
}

int request_parse_create(const char *body, size_t len, char *url, size_t cap,
                         size_t *urllen, const char **why)
{
    if (len == 0) {
        *why = "empty body: expected a JSON object with \"url\"";
        return -1;
    }
    /* A raw NUL byte is never JSON (inside a string it must be escaped),
     * yet cJSON takes it into the string, which then ends there: the URL
     * would be silently shortened, as with "\u0000" below. */
    if (memchr(body, '\0', len)) {
        *why = "invalid JSON";
        return -1;
    }
    /* cJSON stops after the first value; what follows must be blank,
     * or "{...} garbage" would pass as valid. */
    const char *end = NULL;
    json_alloc_reset();
    cJSON *doc = cJSON_ParseWithLengthOpts(body, len, &end, 0);
    if (doc && end) {
        while (end < body + len && (*end == ' ' || *end == '\t' || *end == '\n' || *end == '\r'))
            end++;
        if (end != body + len) {
            cJSON_Delete(doc);
            doc = NULL;
        }
    }
    if (!doc) {
        int oom = json_alloc_failed();
        *why = oom ? "out of memory" : "invalid JSON";
        return oom ? -2 : -1;
    }
    int rc = -1;
    const cJSON *u = cJSON_IsObject(doc) ? cJSON_GetObjectItemCaseSensitive(doc, "url") : NULL;
    if (!cJSON_IsObject(doc)) {
        *why = "body must be a JSON object";
    } else if (!u) {
        *why = "missing \"url\"";
    } else if (!cJSON_IsString(u) || !u->valuestring) {
        *why = "\"url\" must be a string";
    } else {
        /* cJSON strings end at the first NUL, so a "\u0000" inside the
         * URL would silently shorten it. Refuse any body that spells a
         * NUL (rare, and the answer stays the same for the same body). */
        size_t n = strlen(u->valuestring);
        rc = request_check_url(u->valuestring, n, why);
        if (rc == 0) {
            rc = -1;
            if (n >= cap) {
                *why = "url is longer than 2048 bytes";
            } else if (memmem(body, len, "\\u0000", 6)) {
                *why = "url contains spaces or control characters";
            } else {
                memcpy(url, u->valuestring, n);
                url[n] = '\0';
                if (urllen)
                    *urllen = n;
                rc = 0;
            }
        }
    }
    cJSON_Delete(doc);
    return rc;
}

const char *request_route_name(enum request_route r)
{
    switch (r) {
    case ROUTE_HEARTBEAT: return "GET /heart-beat";
    case ROUTE_CREATE: return "POST /link";
    case ROUTE_RESOLVE: return "GET /link/<id>";
    case ROUTE_STATS: return "GET /stats";
    default: return "other";
    }
}

/* The port of a URL's or a Host's authority: written, else dflt. */
static long port_or(const char *p, size_t n, long dflt)
{
    long v;
    return n > 0 && net_parse_num(p, n, 0, 65535, &v) == 0 ? v : dflt;
}

int request_is_self_link(const char *url, size_t len, const char *authority)
{
    struct net_hostport hp;
    if (!authority || !*authority ||
        net_hostport_split(authority, strlen(authority), &hp, NULL, 0) != 0 || hp.hlen == 0)
        return 0;
    char buf[ASCII_MAX];
    UriUriA uri;
    if (len > LINKS_URL_MAX)
        return 0;
    int parsed = parse_ascii(url, len, buf, &uri);
    if (parsed != 0)
        return parsed == -2 ? -1 : 0;
    int https = RANGE_LEN(uri.scheme) == 5;
    size_t hlen = RANGE_LEN(uri.hostText);
    int self = hlen == hp.hlen && strncasecmp(uri.hostText.first, hp.host, hlen) == 0 &&
               port_or(uri.portText.first, RANGE_LEN(uri.portText), https ? 443 : 80) ==
                   port_or(hp.port, hp.plen, 80);
    if (self) {
        /* The path as the service will route it: from the '/' after the
         * authority to the query or the fragment. */
        const char *p = uri.hostText.afterLast + (uri.hostData.ip6 ? 1 : 0);
        if (uri.portText.first)
            p = uri.portText.afterLast;
        const char *end = uri.query.first     ? uri.query.first - 1
                          : uri.fragment.first ? uri.fragment.first - 1
                                               : buf + strlen(buf);
        char path[ASCII_MAX];
        request_decode_path(p, (size_t)(end - p), path);
        self = strncmp(path, "/link/", 6) == 0;
    }
    uriFreeUriMembersA(&uri);
    return self;
}
