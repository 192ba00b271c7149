/* load_tls: TLS under the load engine's connections (https:// URLs),
 * through OpenSSL: the client context (certificate verification against
 * the system's CAs or --cacert, or none with --insecure), and per
 * connection the handshake (SNI and the name checked against the URL's
 * host), session resumption when a connection is opened again, and
 * recv/send-like reads and writes on a non-blocking socket. The engine's
 * event loop (load_conn.c) drives it; not for other modules. */
#ifndef KVTEST_LOAD_TLS_H
#define KVTEST_LOAD_TLS_H
#include <stddef.h>
#include <sys/types.h>

struct ssl_ctx_st;
struct load_vu;

/* The context every connection of a run shares. cacert: a PEM file of
 * CAs to trust instead of the system's (NULL: the system's); insecure:
 * no verification at all; http2: ALPN offers h2 alone, else http/1.1.
 * NULL with the reason in err. */
struct ssl_ctx_st *load_tls_ctx_new(const char *cacert, int insecure, int http2, char *err,
                                    size_t errcap);
void load_tls_ctx_free(struct ssl_ctx_st *ctx);

/* Start or go on with the handshake on v's connected socket: 1 done, 0
 * waiting for the socket (output interest set as OpenSSL needs), -1
 * failed with the reason in why. */
int load_tls_handshake(struct load_vu *v, char *why, size_t whycap);
/* Whether the finished handshake resumed a session of an earlier
 * connection; whether ALPN chose h2. */
int load_tls_resumed(const struct load_vu *v);
int load_tls_alpn_h2(const struct load_vu *v);

/* As recv() and send() on the socket, for the bytes inside TLS: n > 0
 * bytes, 0 the server closed, -1 with errno (EAGAIN: wait for the
 * socket; EPROTO: a TLS error, its reason in v->w->tls_why). */
ssize_t load_tls_recv(struct load_vu *v, void *buf, size_t n);
ssize_t load_tls_send(struct load_vu *v, const void *buf, size_t n);
/* Whether bytes wait inside OpenSSL, decrypted or read ahead (epoll
 * cannot see them): read again before waiting for the socket. */
int load_tls_pending(const struct load_vu *v);

/* End v's TLS state (close_notify when the connection is sound, so its
 * session stays resumable); the socket is the caller's to close. */
void load_tls_close(struct load_vu *v);
/* The session kept for resumption, freed at the end of the run. */
void load_tls_forget(struct load_vu *v);

#endif
