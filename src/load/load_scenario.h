/* load_scenario: what the load engine sends, decided outside the engine.
 *
 * The engine (load_engine.h) owns sockets, the schedule, timing and HTTP
 * parsing; it knows nothing of the service it drives. As wrk's script does,
 * a scenario decides each request: it builds the request bytes into the
 * engine's buffer, names the kind of request (the engine keeps one latency
 * histogram and one row of counters per kind), judges each answer and
 * hears when a request is over (to keep its own state, and to say when a
 * "task", its unit of work, ends). Two scenarios exist: the shortener's mix
 * (src/shortener/mix/) and plain GETs of given paths (scenario_get.h).
 *
 * Threads: `state` is shared by every worker (read-only, or atomics); a
 * worker's state and its connections' states are used by that worker's
 * thread only, so the hot path takes no lock. */
#ifndef KVTEST_LOAD_SCENARIO_H
#define KVTEST_LOAD_SCENARIO_H
#include <stddef.h>
#include <stdint.h>

#define LOAD_KINDS_MAX 8   /* request kinds a scenario may name */
#define LOAD_REQ_MAX 2048  /* the largest request a scenario may build */

/* How a request ended, in the order failures are reported. The engine
 * decides the transport ones; a scenario's check returns LOAD_OK,
 * LOAD_FAIL_STATUS or LOAD_FAIL_BODY. */
enum load_fail {
    LOAD_OK = 0,
    LOAD_FAIL_CONNECT,   /* could not connect or resolve */
    LOAD_FAIL_TIMEOUT,   /* --timeout expired */
    LOAD_FAIL_IO,        /* connection dropped mid-request, other transport error */
    LOAD_FAIL_STATUS,    /* HTTP status other than the expected one */
    LOAD_FAIL_BODY,      /* expected status, but not the expected body */
    LOAD_FAIL_TLS,       /* https: the handshake failed (a certificate that does not
                          * verify included), or a TLS error on the connection */
    LOAD_FAIL_H2_REFUSED,   /* --http2: the stream refused, not processed (GOAWAY) */
    LOAD_FAIL_H2_RESET,     /* --http2: the stream reset by the server (RST_STREAM) */
    LOAD_FAIL_H2_PROTOCOL,  /* --http2: the server broke the protocol, or ALPN did
                             * not choose h2 */
    LOAD_NFAIL
};

const char *load_fail_name(enum load_fail f);   /* "ok", "connect", "timeout", ... */

#define LOAD_NEXT_DONE (-1)   /* next(): this connection sends nothing more */
#define LOAD_NEXT_WAIT (-2)   /* next(): nothing to send until an answer is in */

/* --pipeline N: requests a connection keeps in flight (HTTP/1.1
 * pipelining). The bound keeps a connection's queue of built requests
 * (N * LOAD_REQ_MAX bytes) within 256 KiB. */
#define LOAD_PIPELINE_MAX 128
/* --streams N: HTTP/2 streams a connection keeps open, the same ring. */
#define LOAD_STREAMS_MAX LOAD_PIPELINE_MAX

struct load_scenario_ops;

/* One scenario of a run: what it is called, the kinds of request it sends,
 * its shared state, and its operations (one static table per scenario). */
struct load_scenario {
    const char *name;                        /* "shortener", "get" */
    const char *kinds[LOAD_KINDS_MAX];       /* "POST", "GET": text rows, JSON keys */
    int nkinds;                              /* 1..LOAD_KINDS_MAX */
    void *state;                             /* the scenario's, shared */
    const struct load_scenario_ops *ops;
};

struct load_scenario_ops {
    /* Worker `index`'s state (seed: the run's --seed); NULL: out of memory. */
    void *(*worker_new)(void *state, int index, uint64_t seed);
    void (*worker_free)(void *wstate);
    /* Connection `vu` (0..connections, unique over workers); NULL: out of
     * memory. */
    void *(*conn_new)(void *wstate, uint64_t vu);
    void (*conn_free)(void *conn);

    /* The connection's next request at time now (ns, clock_now_ns): its
     * bytes into buf[cap] (cap >= LOAD_REQ_MAX), length in *len; returns
     * its kind (0..nkinds), or LOAD_NEXT_DONE. With --pipeline N > 1 the
     * engine asks while up to N-1 requests are in flight; a request that
     * needs an earlier one's answer (a GET of the id a POST creates)
     * returns LOAD_NEXT_WAIT, and the engine asks again after each answer.
     * WAIT with nothing in flight would wait for ever: it ends the
     * connection as DONE does. check() and finished() come for the
     * requests in the order next() built them, one finished() each (a
     * request the engine sends again is not rebuilt). */
    int (*next)(void *conn, uint64_t now, char *buf, size_t cap, size_t *len);
    /* Judge a complete answer to the connection's request of this kind:
     * status, body[0..len) (not NUL-terminated). LOAD_OK, or the failure
     * with a short reason in why[whycap]. */
    enum load_fail (*check)(void *conn, int kind, int status, const char *body, size_t len,
                            char *why, size_t whycap);
    /* The request is over (f: LOAD_OK or any failure, transport ones
     * included). Returns 1 when this ends a task (counted ok when f is). */
    int (*finished)(void *conn, int kind, enum load_fail f);

    /* Its options for the --json "options" object (a cJSON *), written in
     * two places so that each scenario's keys keep their order among the
     * engine's: part 0 after "threads", part 1 after "duration". May be
     * NULL. */
    void (*options_json)(const void *state, void *options, int part);
};

#endif
