/* request: routing and validation of the shortener API. See request.h. */
#include "shortener/service/request.h"

#include <string.h>
#include <strings.h>

#include <cjson/cJSON.h>

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
        if (u[i] <= 0x20 || u[i] == 0x7f) {
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
    return 0;
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
        *why = "invalid JSON";
        return -1;
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
        if (request_check_url(u->valuestring, n, why) == 0) {
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
