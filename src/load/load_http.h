/* load_http: the HTTP/1.1 client side of "kvtest shortener load", kept
 * apart from the event loop so it can be unit-tested without sockets.
 *
 * Requests are written from preformatted buffers (the fixed parts built
 * once per run, only the id or the JSON body copied in per request), and
 * answers are parsed with the http_parser library, the parser wrk uses, one
 * parser per connection reused across its keep-alive requests. */
#ifndef KVTEST_LOAD_HTTP_H
#define KVTEST_LOAD_HTTP_H
#include <stddef.h>
#include <stdint.h>

#include <http_parser.h>

/* http://HOST[:PORT][/PATH] split into what a socket and a request need. */
struct load_url {
    char host[256];       /* for getaddrinfo: IPv6 without brackets */
    char port[8];         /* "80" unless given */
    char hostport[300];   /* the Host header value, as written in the URL */
    char path[512];       /* prefix before /link, "" or "/x/y" (no trailing '/') */
};

/* Parse url (must start with http://; trailing '/' removed by the caller).
 * 0 ok; -1 with a short reason in err. */
int load_url_parse(const char *url, struct load_url *u, char *err, size_t errcap);

/* The fixed parts of the two requests the load generator sends. */
struct load_reqfmt {
    char get_pre[600];    /* "GET PATH/link/" */
    size_t get_pre_len;
    char tail[400];       /* " HTTP/1.1\r\nHost: H\r\n\r\n" */
    size_t tail_len;
    char post_pre[1024];  /* "POST PATH/link HTTP/1.1\r\nHost: H\r\n...Content-Length: " */
    size_t post_pre_len;
};

void load_reqfmt_init(struct load_reqfmt *f, const struct load_url *u);
/* Build a request into buf[cap]; its length, or 0 when it does not fit. */
size_t load_reqfmt_get(const struct load_reqfmt *f, char *buf, size_t cap, const char *id);
size_t load_reqfmt_post(const struct load_reqfmt *f, char *buf, size_t cap, const char *url);

#define LOAD_BODY_MAX (64 * 1024)   /* the service never answers more than this */

/* One connection's answer parser and the body of its current answer. */
struct load_resp {
    http_parser p;
    char *body;
    size_t len, cap;
    int overflow;      /* body over LOAD_BODY_MAX (or out of memory) */
    int complete;      /* a full answer has been parsed */
    int keep_alive;    /* the connection may carry the next request */
    int status;
    size_t seen;       /* bytes of the current answer fed so far */
};

/* 0 ok, -1 out of memory. */
int load_resp_init(struct load_resp *r);
void load_resp_free(struct load_resp *r);
/* A new connection: parser state from scratch. */
void load_resp_reset_conn(struct load_resp *r);
/* Before each request on the connection. */
void load_resp_begin(struct load_resp *r);
/* Feed n received bytes; n == 0 means the server closed the connection.
 * 0: fine so far (r->complete says whether the answer is whole); -1: not
 * a valid HTTP answer, reason in why. Bytes after a complete answer (none
 * were asked for) end keep-alive on that connection. */
int load_resp_feed(struct load_resp *r, const char *buf, size_t n, char *why, size_t whycap);

#endif
