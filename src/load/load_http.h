/* load_http: the HTTP/1.1 client side of the load engine, kept apart from
 * the event loop so it can be unit-tested without sockets: the target URL,
 * and answers parsed with the http_parser library, the parser wrk uses, one
 * parser per connection reused across its keep-alive requests, answers
 * taken one at a time off a stream that may hold several (pipelining). (Requests
 * are the scenario's to build, see load_scenario.h.) */
#ifndef KVTEST_LOAD_HTTP_H
#define KVTEST_LOAD_HTTP_H
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <http_parser.h>

/* http[s]://HOST[:PORT][/PATH] split into what a socket and a request need. */
struct load_url {
    int tls;              /* https: TLS on every connection (load_tls.h) */
    char host[256];       /* for getaddrinfo: IPv6 without brackets */
    char port[8];         /* "80" (https: "443") unless given */
    char hostport[300];   /* the Host header value, as written in the URL */
    char path[512];       /* prefix of every request's path: "" or "/x/y" (no trailing '/') */
};

/* Parse url (http:// or https://; trailing '/' removed by the caller).
 * 0 ok; -1 with a short reason in err. */
int load_url_parse(const char *url, struct load_url *u, char *err, size_t errcap);

#define LOAD_BODY_MAX (64 * 1024)   /* a longer body is a bad_body failure */

/* One connection's answer parser and the body of its current answer. */
struct load_resp {
    http_parser p;
    char *body;
    size_t len, cap;
    int overflow;      /* body over LOAD_BODY_MAX (or out of memory) */
    int complete;      /* a full answer has been parsed */
    int keep_alive;    /* the connection may carry the next request */
    int status;
    size_t seen;       /* bytes of the current answer parsed so far */
};

/* n bytes at at onto an answer's body (len of cap bytes so far, grown as
 * needed); past LOAD_BODY_MAX, or out of memory, *overflow is set and the
 * rest is dropped. */
void load_body_append(char **body, size_t *len, size_t *cap, int *overflow, const char *at,
                      size_t n);

/* 0 ok, -1 out of memory. */
int load_resp_init(struct load_resp *r);
void load_resp_free(struct load_resp *r);
/* A new connection: parser state from scratch. */
void load_resp_reset_conn(struct load_resp *r);
/* Before each answer on the connection (after the previous one). */
void load_resp_begin(struct load_resp *r);
/* Parse up to n received bytes, stopping after the end of the current
 * answer: returns how many were taken (the rest belong to the next answer
 * on the connection, after load_resp_begin), r->complete saying whether
 * the answer is whole; n == 0: the server closed. -1: not a valid HTTP
 * answer (a status outside 100..599 included), reason in why. (The count is returned rather than stored
 * through a pointer: this runs once per answer.) */
ssize_t load_resp_take(struct load_resp *r, const char *buf, size_t n, char *why, size_t whycap);
/* Feed n received bytes; n == 0 means the server closed the connection.
 * 0: fine so far (r->complete says whether the answer is whole); -1: not
 * a valid HTTP answer, reason in why. Bytes after a complete answer (none
 * were asked for) end keep-alive on that connection. */
int load_resp_feed(struct load_resp *r, const char *buf, size_t n, char *why, size_t whycap);

#endif
