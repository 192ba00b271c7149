/* service_tls: the TLS context of serve. See service_tls.h. */
#include "shortener/http/service_tls.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#define H2O_USE_EPOLL 1   /* as in service_http.c: Debian's h2o is built for epoll */
#include <h2o.h>

#include "base/errbuf.h"

/* What h2o_accept() reads after the handshake: "h2" makes the connection
 * HTTP/2, anything else (http/1.1, or no ALPN at all) HTTP/1.1. Static:
 * h2o keeps the pointer. */
static const h2o_iovec_t alpn[] = {{H2O_STRLIT("h2")}, {H2O_STRLIT("http/1.1")}, {NULL, 0}};

/* An encrypted key would make OpenSSL ask for its passphrase on the
 * terminal: a service started by a script must fail instead. */
static int no_passphrase(char *buf, int size, int rwflag, void *u)
{
    (void)buf, (void)size, (void)rwflag, (void)u;
    return -1;
}

/* OpenSSL's reason for the last failure ("no start line"), and the queue
 * emptied so the next call starts clean. */
static const char *ssl_reason(char *buf, size_t cap)
{
    unsigned long e = ERR_peek_last_error();
    const char *r = e ? ERR_reason_error_string(e) : NULL;
    snprintf(buf, cap, "%s", r ? r : "unknown error");
    ERR_clear_error();
    return buf;
}

/* The file can be read: "cannot open" with errno's words is clearer than
 * OpenSSL's "system lib". */
static int readable(const char *opt, const char *path, char *err, size_t errcap)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        errbuf_say(err, errcap, "%s %s: %s", opt, path, strerror(errno));
        return -1;
    }
    fclose(f);
    return 0;
}

struct ssl_ctx_st *service_tls_new(const char *cert, const char *key, char *err,
                                   size_t errcap)
{
    char why[160];
    if (readable("--tls-cert", cert, err, errcap) != 0 ||
        readable("--tls-key", key, err, errcap) != 0)
        return NULL;
    SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());
    if (!ctx) {
        errbuf_say(err, errcap, "cannot make a TLS context: %s", ssl_reason(why, sizeof why));
        return NULL;
    }
    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
    SSL_CTX_set_default_passwd_cb(ctx, no_passphrase);
    if (SSL_CTX_use_certificate_chain_file(ctx, cert) != 1) {
        errbuf_say(err, errcap, "--tls-cert %s: not a PEM certificate (%s)", cert,
                   ssl_reason(why, sizeof why));
    } else if (SSL_CTX_use_PrivateKey_file(ctx, key, SSL_FILETYPE_PEM) != 1) {
        int mismatch = ERR_GET_REASON(ERR_peek_last_error()) == X509_R_KEY_VALUES_MISMATCH;
        ssl_reason(why, sizeof why);
        if (mismatch)
            errbuf_say(err, errcap, "--tls-key %s is not the key of the certificate in %s",
                       key, cert);
        else
            errbuf_say(err, errcap, "--tls-key %s: not an unencrypted PEM private key (%s)",
                       key, why);
    } else if (SSL_CTX_check_private_key(ctx) != 1) {
        errbuf_say(err, errcap, "--tls-key %s is not the key of the certificate in %s (%s)",
                   key, cert, ssl_reason(why, sizeof why));
    } else {
        h2o_ssl_register_alpn_protocols(ctx, alpn);
        return ctx;
    }
    SSL_CTX_free(ctx);
    return NULL;
}

void service_tls_free(struct ssl_ctx_st *ctx)
{
    SSL_CTX_free(ctx);
}
