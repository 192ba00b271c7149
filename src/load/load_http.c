/* load_http: URL parsing and the answer parser of the load engine (see
 * load_http.h). */
#include "load/load_http.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/errbuf.h"
#include "base/net.h"

int load_url_parse(const char *url, struct load_url *u, char *err, size_t errcap)
{
    memset(u, 0, sizeof(*u));
    if (strncmp(url, "https://", 8) == 0) {
        u->tls = 1;
    } else if (strncmp(url, "http://", 7) != 0) {
        errbuf_say(err, errcap, "only http:// and https:// URLs are supported");
        return -1;
    }
    const char *a = url + 7 + u->tls;
    size_t alen = strcspn(a, "/?#");
    const char *rest = a + alen;
    if (alen == 0 || alen >= sizeof(u->hostport)) {
        errbuf_say(err, errcap, alen ? "host too long" : "no host");
        return -1;
    }
    if (memchr(a, '@', alen)) {
        errbuf_say(err, errcap, "user names in the URL are not supported");
        return -1;
    }
    memcpy(u->hostport, a, alen);
    struct net_hostport hp;
    if (net_hostport_split(a, alen, &hp, err, errcap) != 0)
        return -1;
    if (hp.hlen == 0 || hp.hlen >= sizeof(u->host)) {
        errbuf_say(err, errcap, "no host");
        return -1;
    }
    memcpy(u->host, hp.host, hp.hlen);
    long port = u->tls ? 443 : 80;
    if (hp.port && net_parse_num(hp.port, hp.plen, 1, 65535, &port) != 0) {
        errbuf_say(err, errcap, "invalid port");
        return -1;
    }
    snprintf(u->port, sizeof(u->port), "%ld", port);
    if (strpbrk(rest, "?#")) {
        errbuf_say(err, errcap, "a query or fragment in the base URL is not supported");
        return -1;
    }
    size_t rlen = strlen(rest);
    while (rlen > 0 && rest[rlen - 1] == '/')
        rlen--;
    if (rlen >= sizeof(u->path)) {
        errbuf_say(err, errcap, "path too long");
        return -1;
    }
    memcpy(u->path, rest, rlen);
    return 0;
}

/* ---- answers --------------------------------------------------------------- */

static int on_begin(http_parser *p)
{
    struct load_resp *r = p->data;
    r->len = 0;
    r->overflow = 0;
    return 0;
}

void load_body_append(char **body, size_t *len, size_t *cap, int *overflow, const char *at,
                      size_t n)
{
    if (*overflow)
        return;
    if (*len + n > LOAD_BODY_MAX) {
        *overflow = 1;   /* keep parsing so the connection stays usable */
        return;
    }
    if (*len + n > *cap) {
        /* Answers are a few dozen bytes; grow only for the odd big one, so
         * thousands of connections do not each hold 64 KiB. */
        size_t ncap = *cap ? *cap * 2 : 1024;
        while (ncap < *len + n)
            ncap *= 2;
        char *nb = realloc(*body, ncap);
        if (!nb) {
            *overflow = 1;
            return;
        }
        *body = nb;
        *cap = ncap;
    }
    memcpy(*body + *len, at, n);
    *len += n;
}

static int on_body(http_parser *p, const char *at, size_t n)
{
    struct load_resp *r = p->data;
    load_body_append(&r->body, &r->len, &r->cap, &r->overflow, at, n);
    return 0;
}

static int on_complete(http_parser *p)
{
    struct load_resp *r = p->data;
    r->complete = 1;
    r->status = (int)p->status_code;
    r->keep_alive = http_should_keep_alive(p);
    /* Stop here: the engine handles this answer before the parser goes on
     * (load_resp_begin) with the next one's bytes, or calls them
     * unsolicited when nothing else is in flight. */
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

ssize_t load_resp_take(struct load_resp *r, const char *buf, size_t n, char *why, size_t whycap)
{
    size_t u = http_parser_execute(&r->p, &resp_settings, buf, n);
    enum http_errno e = HTTP_PARSER_ERRNO(&r->p);
    r->seen += r->complete ? u : n;   /* bytes of a bad answer count as seen */
    /* http_parser takes any three digits: "HTTP/1.1 002 OK" is no answer */
    if (r->complete && (r->status < 100 || r->status > 599)) {
        errbuf_say(why, whycap, "invalid HTTP answer (status %d, not 100..599)", r->status);
        return -1;
    }
    if (r->complete)
        return (ssize_t)u;   /* the rest is the next answer's */
    if (n == 0) {
        errbuf_say(why, whycap, "connection closed before a full answer");
        return -1;
    }
    if (e != HPE_OK || u != n) {
        errbuf_say(why, whycap, "invalid HTTP answer (%s)", http_errno_description(e));
        return -1;
    }
    return (ssize_t)u;
}

int load_resp_feed(struct load_resp *r, const char *buf, size_t n, char *why, size_t whycap)
{
    if (r->complete) {   /* bytes nobody asked for */
        r->keep_alive = 0;
        return 0;
    }
    ssize_t used = load_resp_take(r, buf, n, why, whycap);
    if (used < 0)
        return -1;
    if (r->complete && (size_t)used < n)
        r->keep_alive = 0;
    return 0;
}
