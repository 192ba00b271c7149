/* load_tls: the load engine's TLS client (see load_tls.h). */
#include "load/load_tls.h"

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include "base/errbuf.h"
#include "load/load_vu.h"

/* OpenSSL's reason for the last failure, the queue emptied so the next
 * connection starts clean. */
static void reason(char *buf, size_t cap, const char *fallback)
{
    unsigned long e = ERR_peek_last_error();
    const char *r = e ? ERR_reason_error_string(e) : NULL;
    snprintf(buf, cap, "%s", r ? r : fallback);
    ERR_clear_error();
}

/* A new session from the server (TLS 1.3 sends it after the handshake, as
 * a ticket): kept by the connection, to resume when it is opened again.
 * Returning 1 keeps our reference. */
static int on_new_session(SSL *ssl, SSL_SESSION *sess)
{
    struct load_vu *v = SSL_get_app_data(ssl);
    if (!v)
        return 0;
    SSL_SESSION_free(v->sess);
    v->sess = sess;
    return 1;
}

struct ssl_ctx_st *load_tls_ctx_new(const char *cacert, int insecure, int http2, char *err,
                                    size_t errcap)
{
    char why[160];
    if (cacert) {
        FILE *f = fopen(cacert, "r");
        if (!f) {
            errbuf_say(err, errcap, "--cacert %s: %s", cacert, strerror(errno));
            return NULL;
        }
        fclose(f);
    }
    SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
    if (!ctx) {
        reason(why, sizeof why, "unknown error");
        errbuf_say(err, errcap, "cannot make a TLS context: %s", why);
        return NULL;
    }
    SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
    /* A server that closes a keep-alive connection without close_notify
     * (most do) is a close, as over plain TCP, not a TLS error. */
    SSL_CTX_set_options(ctx, SSL_OP_IGNORE_UNEXPECTED_EOF);
    /* Writes behave as send(): part of a request may go, and the rest is
     * offered again from a buffer that may have moved (load_vu.c). */
    SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
    /* One recv() takes what the socket has, many records, not a record's
     * 5-byte header and then its body: a server that writes a record per
     * HTTP/2 frame (nginx) cost two system calls a frame. What is read
     * ahead is invisible to epoll: load_tls_pending says so. */
    SSL_CTX_set_read_ahead(ctx, 1);
    /* Sessions live in their connection (on_new_session), not in a cache
     * shared by the worker threads. */
    SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_CLIENT | SSL_SESS_CACHE_NO_INTERNAL_STORE);
    SSL_CTX_sess_set_new_cb(ctx, on_new_session);
    static const unsigned char h1[] = "\x08http/1.1", h2[] = "\x02h2";
    if (http2)
        SSL_CTX_set_alpn_protos(ctx, h2, sizeof h2 - 1);
    else
        SSL_CTX_set_alpn_protos(ctx, h1, sizeof h1 - 1);
    if (!insecure) {
        SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
        int ok = cacert ? SSL_CTX_load_verify_locations(ctx, cacert, NULL)
                        : SSL_CTX_set_default_verify_paths(ctx);
        if (ok != 1) {
            reason(why, sizeof why, "unknown error");
            if (cacert)
                errbuf_say(err, errcap, "--cacert %s: not a PEM file of certificates (%s)",
                           cacert, why);
            else
                errbuf_say(err, errcap, "cannot read the system's CA certificates (%s)", why);
            SSL_CTX_free(ctx);
            return NULL;
        }
    }
    return ctx;
}

void load_tls_ctx_free(struct ssl_ctx_st *ctx)
{
    SSL_CTX_free(ctx);
}

/* A new SSL on v's socket: SNI for a host name (RFC 6066 leaves addresses
 * out), the certificate checked against the host, name or address, and
 * the connection's last session offered. 0, or -1 with why. */
static int start(struct load_vu *v, char *why, size_t whycap)
{
    const struct load_url *u = v->w->s->o->url;
    SSL *ssl = SSL_new(v->w->s->o->tls);
    if (!ssl || SSL_set_fd(ssl, v->fd) != 1) {
        reason(why, whycap, "out of memory");
        SSL_free(ssl);
        return -1;
    }
    unsigned char a[16];
    int is_ip = inet_pton(AF_INET, u->host, a) == 1 || inet_pton(AF_INET6, u->host, a) == 1;
    int ok = is_ip ? X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), u->host)
                   : SSL_set_tlsext_host_name(ssl, u->host) == 1 && SSL_set1_host(ssl, u->host);
    if (!ok) {
        reason(why, whycap, "cannot set the host to verify");
        SSL_free(ssl);
        return -1;
    }
    SSL_set_app_data(ssl, v);
    if (v->sess && !v->w->s->o->no_resume)
        SSL_set_session(ssl, v->sess);
    v->ssl = ssl;
    return 0;
}

int load_tls_handshake(struct load_vu *v, char *why, size_t whycap)
{
    if (!v->ssl && start(v, why, whycap) != 0)
        return -1;
    ERR_clear_error();
    int rc = SSL_connect(v->ssl);
    if (rc == 1) {
        if (v->out_armed)
            load_vu_arm_out(v, 0);
        return 1;
    }
    int e = SSL_get_error(v->ssl, rc);
    if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
        if (v->out_armed != (e == SSL_ERROR_WANT_WRITE))
            load_vu_arm_out(v, e == SSL_ERROR_WANT_WRITE);
        return 0;
    }
    long vr = SSL_get_verify_result(v->ssl);
    if (vr != X509_V_OK) {
        snprintf(why, whycap, "certificate verify failed: %s (--cacert FILE to trust its "
                 "CA, --insecure to skip the check)", X509_verify_cert_error_string(vr));
        ERR_clear_error();
    } else if ((e == SSL_ERROR_SYSCALL || e == SSL_ERROR_ZERO_RETURN) &&
               ERR_peek_last_error() == 0) {
        /* (With SSL_OP_IGNORE_UNEXPECTED_EOF an EOF is a zero return.) */
        snprintf(why, whycap, "handshake: %s", e == SSL_ERROR_SYSCALL && errno
                 ? strerror(errno) : "the server closed the connection");
    } else {
        char r[160];
        reason(r, sizeof r, "unknown error");
        snprintf(why, whycap, "handshake: %s", r);
    }
    return -1;
}

int load_tls_resumed(const struct load_vu *v)
{
    return v->ssl && SSL_session_reused(v->ssl);
}

int load_tls_alpn_h2(const struct load_vu *v)
{
    const unsigned char *p = NULL;
    unsigned int n = 0;
    SSL_get0_alpn_selected(v->ssl, &p, &n);
    return n == 2 && memcmp(p, "h2", 2) == 0;
}

/* SSL_read's or SSL_write's result as recv()'s or send()'s. */
static ssize_t as_socket(struct load_vu *v, int rc)
{
    int e = SSL_get_error(v->ssl, rc);
    switch (e) {
    case SSL_ERROR_WANT_READ:
    case SSL_ERROR_WANT_WRITE:
        errno = EAGAIN;
        return -1;
    case SSL_ERROR_ZERO_RETURN:   /* close_notify */
        return 0;
    case SSL_ERROR_SYSCALL:
        if (ERR_peek_last_error() == 0) {
            if (errno == 0)
                return 0;   /* EOF (SSL_OP_IGNORE_UNEXPECTED_EOF makes it rare) */
            return -1;      /* errno is the socket's */
        }
        break;   /* OpenSSL has a reason */
    default:
        break;
    }
    reason(v->w->tls_why, sizeof v->w->tls_why, "TLS error");
    errno = EPROTO;
    return -1;
}

ssize_t load_tls_recv(struct load_vu *v, void *buf, size_t n)
{
    ERR_clear_error();
    errno = 0;
    int rc = SSL_read(v->ssl, buf, n > (size_t)INT32_MAX ? INT32_MAX : (int)n);
    return rc > 0 ? rc : as_socket(v, rc);
}

ssize_t load_tls_send(struct load_vu *v, const void *buf, size_t n)
{
    ERR_clear_error();
    errno = 0;
    int rc = SSL_write(v->ssl, buf, n > (size_t)INT32_MAX ? INT32_MAX : (int)n);
    return rc > 0 ? rc : as_socket(v, rc);
}

int load_tls_pending(const struct load_vu *v)
{
    return SSL_has_pending(v->ssl);
}

void load_tls_close(struct load_vu *v)
{
    if (!v->ssl)
        return;
    /* One close_notify, not waited for: OpenSSL keeps a session of a
     * connection closed without one out of resumption. Refused after a
     * fatal error, as it should be. */
    ERR_clear_error();
    SSL_shutdown(v->ssl);
    ERR_clear_error();
    SSL_free(v->ssl);
    v->ssl = NULL;
}

void load_tls_forget(struct load_vu *v)
{
    SSL_SESSION_free(v->sess);
    v->sess = NULL;
}
