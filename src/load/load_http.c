/* load_http: URL parsing, preformatted requests and the answer parser of
 * "kvtest shortener load" (see load_http.h). */
#include "load/load_http.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void say(char *why, size_t cap, const char *msg)
{
    if (why && cap)
        snprintf(why, cap, "%s", msg);
}

int load_url_parse(const char *url, struct load_url *u, char *err, size_t errcap)
{
    memset(u, 0, sizeof(*u));
    if (strncmp(url, "http://", 7) != 0) {
        say(err, errcap, "only http:// URLs are supported");
        return -1;
    }
    const char *a = url + 7;
    size_t alen = strcspn(a, "/?#");
    const char *rest = a + alen;
    if (alen == 0 || alen >= sizeof(u->hostport)) {
        say(err, errcap, alen ? "host too long" : "no host");
        return -1;
    }
    if (memchr(a, '@', alen)) {
        say(err, errcap, "user names in the URL are not supported");
        return -1;
    }
    memcpy(u->hostport, a, alen);
    const char *hend, *port = NULL;
    const char *h = a;
    if (*a == '[') {   /* [IPv6]:port */
        hend = memchr(a, ']', alen);
        if (!hend) {
            say(err, errcap, "unclosed '[' in the host");
            return -1;
        }
        h = a + 1;
        if (hend + 1 < a + alen) {
            if (hend[1] != ':') {
                say(err, errcap, "junk after ']' in the host");
                return -1;
            }
            port = hend + 2;
        }
    } else {
        hend = memchr(a, ':', alen);
        if (hend)
            port = hend + 1;
        else
            hend = a + alen;
    }
    size_t hlen = (size_t)(hend - h);
    if (hlen == 0 || hlen >= sizeof(u->host)) {
        say(err, errcap, "no host");
        return -1;
    }
    memcpy(u->host, h, hlen);
    size_t plen = port ? (size_t)(a + alen - port) : 0;
    if (port && (plen == 0 || plen > 5 || strspn(port, "0123456789") < plen)) {
        say(err, errcap, "invalid port");
        return -1;
    }
    if (port)
        memcpy(u->port, port, plen);
    else
        strcpy(u->port, "80");
    if (port && (atoi(u->port) < 1 || atoi(u->port) > 65535)) {
        say(err, errcap, "invalid port");
        return -1;
    }
    if (strpbrk(rest, "?#")) {
        say(err, errcap, "a query or fragment in the base URL is not supported");
        return -1;
    }
    size_t rlen = strlen(rest);
    while (rlen > 0 && rest[rlen - 1] == '/')
        rlen--;
    if (rlen >= sizeof(u->path)) {
        say(err, errcap, "path too long");
        return -1;
    }
    memcpy(u->path, rest, rlen);
    return 0;
}

void load_reqfmt_init(struct load_reqfmt *f, const struct load_url *u)
{
    int n = snprintf(f->get_pre, sizeof(f->get_pre), "GET %s/link/", u->path);
    f->get_pre_len = (size_t)n;
    n = snprintf(f->tail, sizeof(f->tail), " HTTP/1.1\r\nHost: %s\r\n\r\n", u->hostport);
    f->tail_len = (size_t)n;
    n = snprintf(f->post_pre, sizeof(f->post_pre),
                 "POST %s/link HTTP/1.1\r\nHost: %s\r\n"
                 "Content-Type: application/json\r\nContent-Length: ",
                 u->path, u->hostport);
    f->post_pre_len = (size_t)n;
}

size_t load_reqfmt_get(const struct load_reqfmt *f, char *buf, size_t cap, const char *id)
{
    size_t idlen = strlen(id);
    size_t len = f->get_pre_len + idlen + f->tail_len;
    if (len > cap)
        return 0;
    char *p = buf;
    memcpy(p, f->get_pre, f->get_pre_len);
    p += f->get_pre_len;
    memcpy(p, id, idlen);
    p += idlen;
    memcpy(p, f->tail, f->tail_len);
    return len;
}

size_t load_reqfmt_post(const struct load_reqfmt *f, char *buf, size_t cap, const char *url)
{
    static const char open[] = "{\"url\": \"", close[] = "\"}";
    size_t ulen = strlen(url);
    size_t blen = sizeof(open) - 1 + ulen + sizeof(close) - 1;
    char num[24];
    int nlen = snprintf(num, sizeof(num), "%zu\r\n\r\n", blen);
    size_t len = f->post_pre_len + (size_t)nlen + blen;
    if (len > cap)
        return 0;
    char *p = buf;
    memcpy(p, f->post_pre, f->post_pre_len);
    p += f->post_pre_len;
    memcpy(p, num, (size_t)nlen);
    p += nlen;
    memcpy(p, open, sizeof(open) - 1);
    p += sizeof(open) - 1;
    memcpy(p, url, ulen);
    p += ulen;
    memcpy(p, close, sizeof(close) - 1);
    return len;
}

/* ---- answers --------------------------------------------------------------- */

static int on_begin(http_parser *p)
{
    struct load_resp *r = p->data;
    r->len = 0;
    r->overflow = 0;
    return 0;
}

static int on_body(http_parser *p, const char *at, size_t n)
{
    struct load_resp *r = p->data;
    if (r->overflow)
        return 0;
    if (r->len + n > LOAD_BODY_MAX) {
        r->overflow = 1;   /* keep parsing so the connection stays usable */
        return 0;
    }
    if (r->len + n > r->cap) {
        /* Answers are a few dozen bytes; grow only for the odd big one, so
         * thousands of connections do not each hold 64 KiB. */
        size_t ncap = r->cap ? r->cap * 2 : 1024;
        while (ncap < r->len + n)
            ncap *= 2;
        char *nb = realloc(r->body, ncap);
        if (!nb) {
            r->overflow = 1;
            return 0;
        }
        r->body = nb;
        r->cap = ncap;
    }
    memcpy(r->body + r->len, at, n);
    r->len += n;
    return 0;
}

static int on_complete(http_parser *p)
{
    struct load_resp *r = p->data;
    r->complete = 1;
    r->status = (int)p->status_code;
    r->keep_alive = http_should_keep_alive(p);
    /* One request in flight: stop here, so anything after this answer is
     * seen as unsolicited rather than parsed as the next one. */
    http_parser_pause(p, 1);
    return 0;
}

static const http_parser_settings resp_settings = {
    .on_message_begin = on_begin,
    .on_body = on_body,
    .on_message_complete = on_complete,
};

int load_resp_init(struct load_resp *r)
{
    memset(r, 0, sizeof(*r));
    r->cap = 1024;
    r->body = malloc(r->cap);
    load_resp_reset_conn(r);
    return r->body ? 0 : -1;
}

void load_resp_free(struct load_resp *r)
{
    free(r->body);
    r->body = NULL;
}

void load_resp_reset_conn(struct load_resp *r)
{
    http_parser_init(&r->p, HTTP_RESPONSE);
    r->p.data = r;
    load_resp_begin(r);
}

void load_resp_begin(struct load_resp *r)
{
    if (HTTP_PARSER_ERRNO(&r->p) == HPE_PAUSED)
        http_parser_pause(&r->p, 0);
    r->complete = 0;
    r->keep_alive = 0;
    r->status = 0;
    r->len = 0;
    r->overflow = 0;
    r->seen = 0;
}

int load_resp_feed(struct load_resp *r, const char *buf, size_t n, char *why, size_t whycap)
{
    if (r->complete) {   /* bytes nobody asked for */
        r->keep_alive = 0;
        return 0;
    }
    r->seen += n;
    size_t used = http_parser_execute(&r->p, &resp_settings, buf, n);
    enum http_errno e = HTTP_PARSER_ERRNO(&r->p);
    if (r->complete) {
        if (used < n)
            r->keep_alive = 0;
        return 0;
    }
    if (n == 0) {
        say(why, whycap, "connection closed before a full answer");
        return -1;
    }
    if (e != HPE_OK || used != n) {
        if (why && whycap)
            snprintf(why, whycap, "invalid HTTP answer (%s)", http_errno_description(e));
        return -1;
    }
    return 0;
}
