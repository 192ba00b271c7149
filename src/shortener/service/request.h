/* request: the pure part of the shortener's HTTP API — routing, URL
 * validation, parsing the create body (id validation is linkid.h). No I/O,
 * no globals, so unit tests and the fuzz target can call it directly. */
#ifndef KVTEST_SHORTENER_REQUEST_H
#define KVTEST_SHORTENER_REQUEST_H
#include <stddef.h>

#include "shortener/store/links.h"

#define REQUEST_BODY_MAX 65536   /* bytes; larger bodies get 413 */

enum request_route {
    ROUTE_HEARTBEAT,   /* /heart-beat */
    ROUTE_CREATE,      /* /link */
    ROUTE_RESOLVE,     /* /link/<anything> */
    ROUTE_STATS,       /* /stats */
    ROUTE_UNKNOWN,     /* anything else: 404 */
    ROUTE_COUNT
};

struct request_match {
    enum request_route route;
    int method_ok;       /* 0: answer 405 with Allow: allow */
    const char *allow;   /* the methods the route accepts */
    const char *id;      /* ROUTE_RESOLVE: the text after "/link/" */
    size_t idlen;
};

/* Route method + path (path without the query string). HEAD is accepted
 * wherever GET is. */
void request_match(const char *method, const char *path, struct request_match *m);

/* The path of a request target (len bytes) as request_match() takes it:
 * cut at the first '?', percent-decoded as libmicrohttpd did ("%41" is
 * 'A', either case of hex digit; a '%' without two hex digits after it
 * stays; a decoded "%00" ends the string). out needs len + 1 bytes; it
 * may be path itself (each byte is written at or before where it was read). */
void request_decode_path(const char *path, size_t len, char *out);

/* 0 if url (len bytes) is acceptable for storage: 1..LINKS_URL_MAX bytes,
 * well-formed UTF-8 without controls (C0, C1, DEL) or spaces, a URI by RFC
 * 3986 once each byte above 0x7f is written %XX (WHATWG's way for a path,
 * a query and a fragment), scheme http or https (any case), no user or
 * password, a host that is an IPv4 or IPv6 address or a name of letters,
 * digits, '-', '_' and '.' (an IDN as punycode), and a port, if one is
 * written, in 1..65535 (an empty one is the default). Otherwise -1 with
 * *why set to a static message, or -2 ("out of memory") when the parser
 * could not allocate: a 503, not the URL's fault. */
int request_check_url(const char *url, size_t len, const char **why);

/* 1 when url (accepted by request_check_url) leads back to this service's
 * /link/ path, where its redirect would loop: its host is the host of
 * authority (the request's Host, "host[:port]", any case; NULL or empty:
 * never), its port the same (an absent one is the scheme's default: 80
 * for http, 443 for https, and 80 for a Host without one), and its path,
 * percent-decoded as request paths are, starts with "/link/". Another name
 * for the same server (localhost for 127.0.0.1) is not seen. -1 when the
 * parser could not allocate. */
int request_is_self_link(const char *url, size_t len, const char *authority);

/* Parse a create body: a JSON object with a string member "url" that
 * passes request_check_url. Whatever the Content-Type. On success returns
 * 0 and copies the URL NUL-terminated into url (cap > LINKS_URL_MAX);
 * otherwise -1 with *why set to a static message (the 400 body), or -2
 * when the JSON or URL parser could not allocate (*why "out of memory",
 * a 503; told apart for cJSON only after json_alloc_init). */
int request_parse_create(const char *body, size_t len, char *url, size_t cap,
                         size_t *urllen, const char **why);

/* Label of a route for counters and /stats ("GET /link/<id>"). */
const char *request_route_name(enum request_route r);

#endif
