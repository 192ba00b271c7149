/* service_tls: the service's TLS context (serve --tls-cert, --tls-key):
 * OpenSSL 3, TLS 1.2 or later, ALPN offering h2 then http/1.1, so that h2o
 * speaks HTTP/2 to a client that asks for it and HTTP/1.1 to the rest.
 * Made once, before anything listens, so a bad certificate or key is one
 * line and exit 1 with no port taken; the processes of --processes N
 * inherit it. */
#ifndef KVTEST_SHORTENER_SERVICE_TLS_H
#define KVTEST_SHORTENER_SERVICE_TLS_H

#include <stddef.h>

struct ssl_ctx_st;

/* The context for the PEM certificate chain in cert and the private key in
 * key, the key checked against the certificate. NULL with one line in err
 * naming the file and what is wrong with it. */
struct ssl_ctx_st *service_tls_new(const char *cert, const char *key, char *err,
                                   size_t errcap);
void service_tls_free(struct ssl_ctx_st *ctx);

#endif
