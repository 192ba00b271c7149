/* load_vu: a worker of the load engine and its connections (virtual
 * users), the state every part of the engine reads: load_engine.c (set-up,
 * threads, progress), load_conn.c (one worker's epoll loop), load_fill.c
 * (what a connection sends next), load_finish.c (how a request ends),
 * load_wait.c (the loop's sleep). load_vu.c: the connection's socket below
 * the state machine: writing its ring of requests, watching for room to
 * write, closing. Not for other modules. */
#ifndef KVTEST_LOAD_VU_H
#define KVTEST_LOAD_VU_H
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "load/load_engine.h"
#include "load/load_http.h"

struct load_shared {
    const struct load_opts *o;
    const struct load_scenario *sc;
    struct sockaddr_storage addr;
    socklen_t addrlen;
    char resolve_err[300];     /* non-empty: every connect fails with this */
    uint64_t t_start, t_end_ns;     /* t_end_ns: duration deadline */
    atomic_int workers_done;
};

enum load_vu_state {
    LOAD_VU_IDLE,        /* between requests (connection open or not) */
    LOAD_VU_CONNECTING,
    LOAD_VU_HANDSHAKE,   /* https: TCP connected, TLS handshake under way */
    LOAD_VU_WRITING,
    LOAD_VU_READING,
    LOAD_VU_WAITING,     /* --rate: request ready, waiting for its send time */
    LOAD_VU_PENDING,     /* request ready, sent at the end of this loop turn */
    LOAD_VU_DONE,
};

struct load_worker;
struct ssl_st;
struct ssl_session_st;
struct nghttp2_session;
struct load_h2_ans;
struct load_h2_last;

/* One request of a connection's queue (--pipeline of them at most). */
struct load_req {
    int kind;                  /* the scenario's */
    int retried;
    uint64_t t_sched;          /* --rate: when the request was due; else 0 */
    uint64_t t_sent, deadline;
    size_t len;
    uint32_t h2_body, h2_bodylen, h2_bodyoff;   /* --http2: its body in buf, sent so far */
    char buf[LOAD_REQ_MAX];    /* built by the scenario */
};

/* A connection's requests are a FIFO ring q[qcap]: from the head, qsent
 * written whole (in flight, answered in this order), then the ones still
 * to write (off bytes of the first of them written); with --rate the last
 * one may be `staged`, built but not due yet. */
struct load_vu {
    struct load_worker *w;
    void *sc;                  /* the scenario's state of this connection */
    int fd;
    struct ssl_st *ssl;        /* https: the connection's TLS (load_tls.c); else NULL */
    struct ssl_session_st *sess;   /* https: the last session, to resume */
    uint64_t t_hs;             /* https: when the handshake began (TCP connected) */
    struct nghttp2_session *h2s;   /* --http2: the connection's session (load_h2.c) */
    struct load_h2_ans *h2a;   /* --http2: the answers, one per ring slot */
    struct load_h2_last *h2last;   /* --http2: the last request read back as HTTP/2
                                * headers, for the next one with the same bytes */
    char *h2_broken;           /* --http2: why the session ended the connection over a
                                * protocol error of the server's (load_h2.c), or NULL */
    char *h2buf;               /* --http2: frames gathered for one write (LOAD_WBUF) */
    size_t h2len, h2off;       /* bytes in h2buf, and written of them */
    const uint8_t *h2rest;     /* what nghttp2 gave that did not fit in h2buf yet */
    size_t h2restlen;
    enum load_vu_state st;
    uint64_t index, nsent;
    int reused, out_armed;
    struct load_req *q;
    int qcap, qhead, qn, qsent, staged, no_more;
    size_t off;
    struct load_resp resp;
    struct load_vu *next;           /* in the worker's list of requests to send */
};

struct load_worker {
    struct load_shared *s;
    void *sc;                  /* the scenario's state of this worker */
    int index;
    pthread_t thread;
    int ep;
    struct load_vu *vus;
    int64_t nvu, active;
    struct load_vu *pend_head, **pend_tail;
    uint64_t next_wake;        /* --rate: earliest send time of a waiting VU */
    uint64_t next_scan;        /* next look for expired requests */
    int no_pwait2;             /* the kernel has no epoll_pwait2 */
    char *rbuf;                /* receive buffer, shared by the worker's VUs */
    char *wbuf;                /* https and --pipeline: requests gathered for one write */
    char tls_why[160];         /* the reason of the last TLS error (load_tls.c) */
    struct load_counts c;
    atomic_llong tasks_done, requests_done;
    /* Read once per request, so kept here rather than behind w->s (set by
     * load_worker_main): the scenario's ops, --timeout in ns, --rate > 0. */
    const struct load_scenario_ops *ops;
    uint64_t timeout_ns;
    int rated;
};

#define LOAD_RBUF 65536
#define LOAD_WBUF 16384   /* one TLS record */

/* The ring's head: the oldest request (no wrap to compute). */
static inline struct load_req *load_vu_head(const struct load_vu *v) { return &v->q[v->qhead]; }

/* The i-th request of v's ring from its head. (Depth 1 has one slot: no
 * index to compute, several times per request.) */
static inline struct load_req *load_vu_req(const struct load_vu *v, int i)
{
    if (v->qcap == 1)
        return v->q;
    int k = v->qhead + i;
    return &v->q[k >= v->qcap ? k - v->qcap : k];
}

/* The states in which a VU with requests to write goes on the pending
 * list, as a mask: one test per request instead of three. */
#define LOAD_VU_SENDABLE \
    ((1u << LOAD_VU_IDLE) | (1u << LOAD_VU_READING) | (1u << LOAD_VU_WAITING))

/* Put v on w's list of VUs whose requests are sent at the end of the loop
 * turn (inline: once per request). */
static inline void load_pend_push(struct load_worker *w, struct load_vu *v)
{
    v->st = LOAD_VU_PENDING;
    v->next = NULL;
    *w->pend_tail = v;
    w->pend_tail = &v->next;
}

/* Close v's connection (the next request reconnects); watch it for room
 * to write or not. */
void load_vu_close(struct load_vu *v);
void load_vu_arm_out(struct load_vu *v, int on);

/* n more bytes of v's requests written (whole ones move into flight);
 * write nw of them (the first from v->off) in one call, send()'s result. */
void load_vu_wrote(struct load_vu *v, size_t n);
ssize_t load_vu_send_some(struct load_vu *v, int nw);

#endif
