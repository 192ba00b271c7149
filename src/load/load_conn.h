/* load_conn: the inside of the load engine shared by its two halves:
 * load_engine.c (set-up, threads, progress) and load_conn.c (one worker's
 * epoll loop and the connections' state machine). Not for other modules. */
#ifndef KVTEST_LOAD_CONN_H
#define KVTEST_LOAD_CONN_H
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/socket.h>

#include "load/load_engine.h"
#include "load/load_http.h"

#define LOAD_POOL_MAX 100000   /* ids created in --duration mode without --keys */
#define LOAD_REQ_MAX 2048      /* the largest request: headers + a 255-byte URL */

struct load_shared {
    const struct load_opts *o;
    const struct loadkeys *keys;
    const struct loadpick *pick;
    struct load_url url;
    struct load_reqfmt fmt;
    struct sockaddr_storage addr;
    socklen_t addrlen;
    char resolve_err[300];     /* non-empty: every connect fails with this */
    uint64_t t_start, t_end_ns;     /* t_end_ns: duration deadline */
    atomic_llong tasks_claimed;
    atomic_int workers_done;
};

enum vu_state {
    VU_IDLE,        /* between requests (connection open or not) */
    VU_CONNECTING,
    VU_WRITING,
    VU_READING,
    VU_WAITING,     /* --rate: request ready, waiting for its send time */
    VU_PENDING,     /* request ready, sent at the end of this loop turn */
    VU_DONE,
};

struct pool_entry {
    char id[65];
    char *url;
};

struct worker;

struct vu {
    struct worker *w;
    int fd;
    enum vu_state st;
    uint64_t index, seq, nsent;
    enum load_req req;
    int in_task, reused, retried, out_armed;
    int64_t step;
    const char *expect;        /* URL a GET must return; NULL: any http(s) URL */
    char id[65];
    char url[256];             /* the URL this VU created last */
    char want[256];            /* the URL a GET of a pooled id must return */
    char buf[LOAD_REQ_MAX];    /* the request being sent */
    size_t len, off;
    uint64_t t_sched;          /* --rate: when the request was due; else 0 */
    uint64_t t_sent, deadline;
    struct load_resp resp;
    struct vu *next;           /* in the worker's list of requests to send */
};

struct worker {
    struct load_shared *s;
    int index;
    pthread_t thread;
    int ep;
    struct vu *vus;
    int64_t nvu, active;
    struct vu *pend_head, **pend_tail;
    uint64_t next_wake;        /* --rate: earliest send time of a waiting VU */
    uint64_t next_scan;        /* next look for expired requests */
    char *rbuf;                /* receive buffer, shared by the worker's VUs */
    rng_t rng;
    struct load_counts c;
    atomic_llong tasks_done, requests_done;
    struct pool_entry *pool;
    size_t npool;
};

#define LOAD_RBUF 65536

/* load_conn.c: the worker's thread body. */
void *load_worker_main(void *arg);

#endif
