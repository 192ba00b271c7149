/* load_h2: HTTP/2 under the load engine's connections (--http2), through
 * libnghttp2: h2 chosen by ALPN over TLS, or h2c with prior knowledge over
 * plain TCP. A connection's ring of requests (load_vu.h) becomes up to
 * --streams concurrent streams; the scenario's HTTP/1.1 request bytes are
 * read back (http_parser, request mode) into HTTP/2 headers and body.
 *
 * Streams end in any order; each answer is timed when its stream closes,
 * kept beside its ring slot, and handed to the engine (load_finish.c) in
 * the order the requests were built, which the scenarios rely on (a task's
 * GETs after its POST). A stream the server resets, one refused by a
 * GOAWAY, and a connection that breaks the protocol are failures of their
 * own kinds. The engine's event loop (load_conn.c) drives it; not for
 * other modules. */
#ifndef KVTEST_LOAD_H2_H
#define KVTEST_LOAD_H2_H
#include <stddef.h>
#include <stdint.h>

struct load_vu;

/* A stream's answer, beside ring slot k of its connection. */
struct load_h2_ans {
    int32_t stream;            /* on the connection's session; 0: not sent on it */
    int done;                  /* the stream is over: answered or failed */
    int status;                /* :status, 0 until seen */
    int fail;                  /* an enum load_fail, LOAD_OK if answered */
    int overflow;              /* body over LOAD_BODY_MAX (or out of memory) */
    uint64_t t1;               /* when the stream closed */
    char *body;
    size_t len, cap;
    char why[96];              /* the failure's reason */
};

/* The connection's answers, one per ring slot (qcap); 0 or -1 (out of
 * memory). Freed with load_h2_free. */
int load_h2_init(struct load_vu *v);
void load_h2_free(struct load_vu *v);

/* A session on v's connected socket (TLS done, h2 agreed, or plain h2c):
 * the client preface and settings queued. 0, or -1 with why. */
int load_h2_open(struct load_vu *v, char *why, size_t whycap);
/* The session ends with the connection; streams not done are unsent. */
void load_h2_close(struct load_vu *v);

/* Submit the ring's requests not sent on this session (qsent..qn-staged,
 * answered ones skipped) and write what the session has to write. 0: all
 * written; 1: the socket is full (wait for room); -1: failed, the kind
 * into *f and the reason into why. */
int load_h2_write(struct load_vu *v, int *f, char *why, size_t whycap);
/* n bytes read from the server into the session. 0, or -1 (a protocol
 * error: kind and reason as above). */
int load_h2_read(struct load_vu *v, const char *buf, size_t n, int *f, char *why,
                 size_t whycap);
/* Whether the session would still read or write (not after a GOAWAY
 * once its streams are over). */
int load_h2_alive(const struct load_vu *v);

/* Hand the answered requests at the head of the ring to the engine, in
 * order, as long as the head is done. */
void load_h2_drain(struct load_vu *v);

#endif
