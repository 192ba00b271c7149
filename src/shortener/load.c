/* load: "kvtest shortener load URL", an HTTP load generator for the
 * shortener service that times every request.
 *
 * --threads N are virtual users (VUs), not OS threads: each VU is one
 * libcurl easy handle with its own little state machine, and one or a few
 * worker threads (--workers) drive all of them through curl's multi
 * interface on epoll. Blocking one OS thread per user in curl_easy_perform
 * reached only about a third of wrk's rate on this 2-core machine; an event
 * loop reaches most of it, so the client is not what gets measured.
 *
 * A request is timed from curl's prerequest callback (connection ready,
 * request about to be written) to the return of the
 * curl_multi_socket_action() call that completed it: one request's
 * send-to-full-response time, as wrk measures it, never time spent waiting
 * for a turn or since the task began (the classic script's mistake).
 * Like wrk, the loop reads every ready answer of an epoll batch before it
 * sends the next requests in one go; sending each one at once made the
 * client and the server ping-pong on the CPUs and halved the rate.
 *
 * --json prints one object (scripts/tables.sh reads it; add fields, never
 * rename them):
 *   {"command": "shortener load", "cmdline", "env",
 *    "options": {"url", "mode": "tasks"|"duration", "tasks", "threads", "gets",
 *                "duration", "keys", "zipf", "create_ratio", "timeout_ms",
 *                "workers", "seed", "allow_failures"},
 *    "result": {"tasks", "successful", "failed", "seconds", "tasks_per_s",
 *               "requests", "requests_failed", "requests_per_s",
 *               "failures": {"connect", "timeout", "io", "http_status", "bad_body"},
 *               "by_type": {"post"|"get"|"all": {"requests", "successful",
 *                           "failed", "requests_per_s", "failures": {...},
 *                           "latency": report_hist_json() in us}},
 *               "errors": ["first five messages, oldest first"]}} */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <curl/curl.h>

#include "base/cli.h"
#include "measure/clock.h"
#include "measure/hist.h"
#include "measure/report.h"
#include "base/units.h"
#include "shortener/loadmix.h"
#include "shortener/shortener_cmds.h"

#define CMD "shortener load"
#define BODY_MAX (64 * 1024)   /* the service never answers more than this */
#define NERR_KEEP 5
#define POOL_MAX 100000        /* ids created in --duration mode without --keys */

const char help_shortener_load[] =
    "Usage: kvtest shortener load URL [options]\n"
    "\n"
    "Drive a running shortener service (URL such as http://127.0.0.1:5000) and\n"
    "time every request from send to full response.\n"
    "\n"
    "Task mode (default), the classic stress test: each task POSTs a new link,\n"
    "then GETs it --gets times; --threads virtual users run tasks concurrently.\n"
    "  --tasks N          tasks to run (default 100)\n"
    "  --threads N        concurrent virtual users, one keep-alive connection\n"
    "                     and one request in flight each (default 30)\n"
    "  --gets N           GETs per task (default 80)\n"
    "\n"
    "Duration mode: a steady mix for S seconds; every request is one task.\n"
    "  --duration S       seconds (also 500ms, 2m)\n"
    "  --keys FILE        existing link ids, one per line (kvtest shortener keys\n"
    "                     DBFILE > FILE); without it, GETs pick among the links\n"
    "                     this run created\n"
    "  --create-ratio P   share of requests that are POSTs (default\n"
    "                     1/(1 + --gets), the classic task's share)\n"
    "  --zipf S           pick --keys ids with Zipf exponent S (default uniform)\n"
    "\n"
    "Both modes:\n"
    "  --timeout MS       per-request timeout, connect included (default 5000)\n"
    "  --workers N        OS threads driving the virtual users (default 2, or 1\n"
    "                     on a single CPU)\n"
    "  --seed N           seed for URLs and key picks (default 1)\n"
    "  --allow-failures   exit 0 even if requests failed\n"
    "  --progress         progress on stderr even when it is not a terminal\n"
    "  --json             one JSON object with options, environment and results\n"
    "\n"
    "Every answer is checked: POST must give 201 {\"short_link\": id}, GET 200\n"
    "{\"link\": url} with the url that was created. Failures are counted by\n"
    "kind: connect, timeout, io (connection lost mid-request), http_status,\n"
    "bad_body. Latency percentiles cover requests that got an HTTP answer.\n"
    "Exit status 1 if any request failed, unless --allow-failures. Ctrl-C (or\n"
    "SIGTERM) ends the run early and prints the results so far (exit 1).\n";

struct load_opts {
    const char *base;          /* URL without trailing '/' */
    int64_t tasks, threads, gets, timeout_ms, workers, seed;
    double duration;           /* 0: task mode */
    double zipf, create_ratio;
    const char *keys_path;
    int json, allow_failures, progress;
};

/* Set by the first SIGINT/SIGTERM: VUs stop starting requests, the run
 * ends when those in flight are done, and the results so far are printed.
 * (A signal flag is the one process-wide mutable state here.) */
static volatile sig_atomic_t load_interrupted;

static void on_interrupt(int sig)
{
    (void)sig;
    load_interrupted = 1;
}

struct pool_entry {
    char id[65];
    char *url;
};

struct load_err {
    uint64_t t;                /* when it happened, to merge workers in order */
    char msg[1024];
};

struct load_shared {
    const struct load_opts *o;
    struct loadkeys keys;
    struct loadpick pick;
    struct curl_slist *post_headers;
    uint64_t t_start, t_end_ns;     /* t_end_ns: duration deadline */
    atomic_llong tasks_claimed;
    atomic_llong tasks_done;
    atomic_llong requests_done;
    atomic_int workers_done;
};

struct worker;

struct vu {
    struct worker *w;
    CURL *h;
    uint64_t index, seq;
    enum load_req req;
    int in_task;
    int64_t step;
    const char *expect;        /* URL a GET must return; NULL: any http(s) URL */
    char id[65];
    char url[256];             /* the URL this VU created last */
    char want[256];            /* the URL a GET of a pooled id must return */
    char post[320];
    char target[512];
    char *body;
    size_t len, cap;
    int overflow;
    uint64_t t0;
    char errbuf[CURL_ERROR_SIZE];
};

struct worker {
    struct load_shared *s;
    int index;
    pthread_t thread;
    CURLM *multi;
    int ep;
    int timer_on;
    uint64_t timer_at;
    int pending;               /* handles added since the last kick */
    uint32_t *reg;             /* epoll state per descriptor, REG_* */
    size_t nreg;
    struct vu *vus;
    int64_t nvu, active;
    rng_t rng;
    struct hist *h[LOAD_NREQ];
    uint64_t ok[LOAD_NREQ], fail[LOAD_NREQ][LOAD_NFAIL];
    uint64_t tasks_ok, tasks_failed;
    struct load_err err[NERR_KEEP];
    int nerr;
    struct pool_entry *pool;
    size_t npool;
    int setup_failed;
};

/* ---- curl callbacks ---------------------------------------------------- */

static size_t on_body(char *ptr, size_t size, size_t nmemb, void *userp)
{
    struct vu *v = userp;
    size_t n = size * nmemb;
    if (v->len + n > BODY_MAX) {
        v->overflow = 1;
        return n;   /* keep reading so the connection stays usable */
    }
    if (v->len + n > v->cap) {
        /* Answers are a few dozen bytes; grow only for the odd big one, so
         * thousands of VUs do not each hold 64 KiB. */
        size_t ncap = v->cap * 2;
        while (ncap < v->len + n)
            ncap *= 2;
        if (ncap > BODY_MAX)
            ncap = BODY_MAX;
        char *nb = realloc(v->body, ncap);
        if (!nb) {
            v->overflow = 1;
            return n;
        }
        v->body = nb;
        v->cap = ncap;
    }
    memcpy(v->body + v->len, ptr, n);
    v->len += n;
    return n;
}

/* Per-descriptor epoll state, so a keep-alive connection that curl drops
 * from its interest between two requests and takes back for the next one
 * costs no epoll_ctl at all (curl does that for every single request). */
#define REG_IN_EPOLL 0x80000000u   /* registered with the epoll set */
#define REG_WANTED 0x40000000u     /* curl currently wants events on it */

static uint32_t *reg_slot(struct worker *w, curl_socket_t fd)
{
    if (fd < 0)
        return NULL;
    if ((size_t)fd >= w->nreg) {
        size_t n = w->nreg ? w->nreg : 256;
        while (n <= (size_t)fd)
            n *= 2;
        uint32_t *r = realloc(w->reg, n * sizeof(*r));
        if (!r)
            return NULL;
        memset(r + w->nreg, 0, (n - w->nreg) * sizeof(*r));
        w->reg = r;
        w->nreg = n;
    }
    return &w->reg[fd];
}

static void reg_ctl(struct worker *w, curl_socket_t fd, uint32_t *slot, uint32_t events)
{
    struct epoll_event ev;
    memset(&ev, 0, sizeof(ev));
    ev.events = events;
    ev.data.fd = fd;
    int op = (*slot & REG_IN_EPOLL) ? EPOLL_CTL_MOD : EPOLL_CTL_ADD;
    if (epoll_ctl(w->ep, op, fd, &ev) != 0) {
        /* Our record was stale (a descriptor closed behind our back). */
        op = op == EPOLL_CTL_MOD ? EPOLL_CTL_ADD : EPOLL_CTL_MOD;
        epoll_ctl(w->ep, op, fd, &ev);
    }
    *slot = REG_IN_EPOLL | REG_WANTED | events;
}

static int on_socket(CURL *e, curl_socket_t fd, int what, void *userp, void *sockp)
{
    (void)e;
    (void)sockp;
    struct worker *w = userp;
    uint32_t *slot = reg_slot(w, fd);
    if (what == CURL_POLL_REMOVE) {
        if (slot)
            *slot &= ~REG_WANTED;   /* stays registered; see worker_main */
        else
            epoll_ctl(w->ep, EPOLL_CTL_DEL, fd, NULL);
        return 0;
    }
    uint32_t events = ((what & CURL_POLL_IN) ? EPOLLIN : 0u) | ((what & CURL_POLL_OUT) ? EPOLLOUT : 0u);
    if (!slot) {   /* out of memory: plain calls */
        struct epoll_event ev;
        memset(&ev, 0, sizeof(ev));
        ev.events = events;
        ev.data.fd = fd;
        if (epoll_ctl(w->ep, EPOLL_CTL_MOD, fd, &ev) != 0)
            epoll_ctl(w->ep, EPOLL_CTL_ADD, fd, &ev);
        return 0;
    }
    if ((*slot & REG_IN_EPOLL) && (*slot & ~(REG_IN_EPOLL | REG_WANTED)) == events)
        *slot |= REG_WANTED;
    else
        reg_ctl(w, fd, slot, events);
    return 0;
}

/* curl closes a socket: closing drops it from the epoll set, so forget it. */
static int on_close(void *userp, curl_socket_t fd)
{
    struct worker *w = userp;
    if (fd >= 0 && (size_t)fd < w->nreg)
        w->reg[fd] = 0;
    return close(fd);
}

/* The request is about to be written: start its clock. */
static int on_prereq(void *userp, char *conn_primary_ip, char *conn_local_ip,
                     int conn_primary_port, int conn_local_port)
{
    (void)conn_primary_ip;
    (void)conn_local_ip;
    (void)conn_primary_port;
    (void)conn_local_port;
    struct vu *v = userp;
    v->t0 = clock_now_ns();
    return CURL_PREREQFUNC_OK;
}

static int on_timer(CURLM *m, long ms, void *userp)
{
    (void)m;
    struct worker *w = userp;
    if (ms < 0) {
        w->timer_on = 0;
    } else {
        w->timer_on = 1;
        w->timer_at = clock_now_ns() + (uint64_t)ms * 1000000u;
    }
    return 0;
}

/* ---- the virtual user's state machine ---------------------------------- */

static void note_error(struct worker *w, struct vu *v, enum load_fail f, const char *why)
{
    if (w->nerr >= NERR_KEEP)
        return;
    struct load_err *e = &w->err[w->nerr++];
    e->t = clock_now_ns();
    snprintf(e->msg, sizeof(e->msg), "%s %s: %s: %s", loadmix_req_name(v->req), v->target,
             loadmix_fail_name(f), why);
}

static void pool_add(struct worker *w, const char *id, const char *url)
{
    size_t slot = w->npool;
    if (slot >= POOL_MAX) {
        slot = (size_t)rng_below(&w->rng, POOL_MAX);
        free(w->pool[slot].url);
    } else {
        w->npool++;
    }
    snprintf(w->pool[slot].id, sizeof(w->pool[slot].id), "%s", id);
    w->pool[slot].url = strdup(url);
}

/* Choose the VU's next request and fill its target; 0 if the VU is done. */
static int vu_choose(struct vu *v)
{
    struct worker *w = v->w;
    struct load_shared *s = w->s;
    const struct load_opts *o = s->o;
    const char *id = NULL;

    if (load_interrupted)
        return 0;
    if (o->duration > 0) {
        if (clock_now_ns() >= s->t_end_ns)
            return 0;
        int have = s->keys.n > 0 || w->npool > 0;
        v->req = loadmix_pick(o->create_ratio, have, &w->rng);
        if (v->req == LOAD_GET) {
            if (s->keys.n > 0) {
                id = s->keys.id[loadpick_next(&s->pick, &w->rng)];
                v->expect = NULL;
            } else {
                /* Copied: the pool may replace the entry while this
                 * request is in flight. */
                struct pool_entry *p = &w->pool[rng_below(&w->rng, w->npool)];
                snprintf(v->want, sizeof(v->want), "%s", p->url ? p->url : "");
                id = p->id;
                v->expect = p->url ? v->want : NULL;
            }
        }
    } else {
        if (!v->in_task) {
            if (atomic_fetch_add(&s->tasks_claimed, 1) >= o->tasks)
                return 0;
            v->in_task = 1;
            v->step = 0;
        }
        v->req = (enum load_req)loadmix_task_step(v->step, o->gets);
        id = v->id;
        v->expect = v->url;
    }

    if (v->req == LOAD_POST) {
        loadmix_make_url(v->url, sizeof(v->url), &w->rng, v->index, v->seq++);
        snprintf(v->post, sizeof(v->post), "{\"url\": \"%s\"}", v->url);
        snprintf(v->target, sizeof(v->target), "%s/link", o->base);
        curl_easy_setopt(v->h, CURLOPT_HTTPHEADER, s->post_headers);
        curl_easy_setopt(v->h, CURLOPT_POSTFIELDS, v->post);
        curl_easy_setopt(v->h, CURLOPT_POSTFIELDSIZE, (long)strlen(v->post));
    } else {
        snprintf(v->target, sizeof(v->target), "%s/link/%s", o->base, id);
        curl_easy_setopt(v->h, CURLOPT_HTTPHEADER, (struct curl_slist *)NULL);
        curl_easy_setopt(v->h, CURLOPT_HTTPGET, 1L);
    }
    curl_easy_setopt(v->h, CURLOPT_URL, v->target);
    return 1;
}

static void vu_start(struct vu *v)
{
    struct worker *w = v->w;
    if (!vu_choose(v)) {
        w->active--;
        return;
    }
    v->len = 0;
    v->overflow = 0;
    v->errbuf[0] = '\0';
    v->t0 = 0;   /* set by on_prereq when the request is written */
    curl_multi_add_handle(w->multi, v->h);
    w->pending = 1;
}

static void vu_done(struct vu *v, CURLcode rc, uint64_t t1)
{
    struct worker *w = v->w;
    struct load_shared *s = w->s;
    curl_multi_remove_handle(w->multi, v->h);

    enum load_fail f = loadmix_transport((int)rc);
    char why[CURL_ERROR_SIZE + 64];
    why[0] = '\0';
    long status = 0;
    if (f == LOAD_OK) {
        curl_easy_getinfo(v->h, CURLINFO_RESPONSE_CODE, &status);
        if (v->t0 && t1 >= v->t0)
            hist_record(w->h[v->req], t1 - v->t0);
        if (v->overflow) {
            f = LOAD_FAIL_BODY;
            snprintf(why, sizeof(why), "HTTP %ld with a body over %d bytes (or out of memory)",
                     status, BODY_MAX);
        } else if (v->req == LOAD_POST) {
            f = loadmix_check_post(status, v->body, v->len, v->id, sizeof(v->id), why,
                                   sizeof(why));
        } else {
            f = loadmix_check_get(status, v->body, v->len, v->expect, why, sizeof(why));
        }
    } else {
        snprintf(why, sizeof(why), "%s", v->errbuf[0] ? v->errbuf : curl_easy_strerror(rc));
    }
    atomic_fetch_add(&s->requests_done, 1);
    if (f == LOAD_OK) {
        w->ok[v->req]++;
    } else {
        w->fail[v->req][f]++;
        note_error(w, v, f, why);
    }

    if (s->o->duration > 0) {
        if (f == LOAD_OK)
            w->tasks_ok++;
        else
            w->tasks_failed++;
        atomic_fetch_add(&s->tasks_done, 1);
        if (f == LOAD_OK && v->req == LOAD_POST && s->keys.n == 0)
            pool_add(w, v->id, v->url);
    } else {
        /* The classic task stops at its first failure: with no link, or a
         * wrong one, its remaining GETs would only repeat the failure. */
        v->step++;
        if (f != LOAD_OK || v->step > s->o->gets) {
            if (f == LOAD_OK)
                w->tasks_ok++;
            else
                w->tasks_failed++;
            v->in_task = 0;
            atomic_fetch_add(&s->tasks_done, 1);
        }
    }
    vu_start(v);
}

static void drain(struct worker *w, uint64_t t1)
{
    CURLMsg *m;
    int left;
    while ((m = curl_multi_info_read(w->multi, &left))) {
        if (m->msg != CURLMSG_DONE)
            continue;
        struct vu *v;
        curl_easy_getinfo(m->easy_handle, CURLINFO_PRIVATE, (char **)&v);
        vu_done(v, m->data.result, t1);
    }
}

/* ---- worker thread ------------------------------------------------------ */

static int worker_setup(struct worker *w, uint64_t first_vu)
{
    const struct load_opts *o = w->s->o;
    w->ep = epoll_create1(EPOLL_CLOEXEC);
    w->multi = curl_multi_init();
    for (int r = 0; r < LOAD_NREQ; r++)
        w->h[r] = hist_new();
    w->vus = calloc((size_t)w->nvu, sizeof(*w->vus));
    if (o->duration > 0 && o->keys_path == NULL)
        w->pool = calloc(POOL_MAX, sizeof(*w->pool));
    if (w->ep < 0 || !w->multi || !w->h[LOAD_POST] || !w->h[LOAD_GET] || !w->vus ||
        (o->duration > 0 && o->keys_path == NULL && !w->pool))
        return -1;
    rng_seed(&w->rng, rng_mix((uint64_t)o->seed, (uint64_t)w->index + 1));
    curl_multi_setopt(w->multi, CURLMOPT_SOCKETFUNCTION, on_socket);
    curl_multi_setopt(w->multi, CURLMOPT_SOCKETDATA, w);
    curl_multi_setopt(w->multi, CURLMOPT_TIMERFUNCTION, on_timer);
    curl_multi_setopt(w->multi, CURLMOPT_TIMERDATA, w);
    /* One connection per VU, kept alive across its requests. */
    curl_multi_setopt(w->multi, CURLMOPT_MAXCONNECTS, (long)w->nvu);
    for (int64_t i = 0; i < w->nvu; i++) {
        struct vu *v = &w->vus[i];
        v->w = w;
        v->index = first_vu + (uint64_t)i;
        v->cap = 1024;
        v->body = malloc(v->cap);
        v->h = curl_easy_init();
        if (!v->body || !v->h)
            return -1;
        curl_easy_setopt(v->h, CURLOPT_PRIVATE, (char *)v);
        curl_easy_setopt(v->h, CURLOPT_WRITEFUNCTION, on_body);
        curl_easy_setopt(v->h, CURLOPT_WRITEDATA, v);
        curl_easy_setopt(v->h, CURLOPT_ERRORBUFFER, v->errbuf);
        curl_easy_setopt(v->h, CURLOPT_PREREQFUNCTION, on_prereq);
        curl_easy_setopt(v->h, CURLOPT_PREREQDATA, v);
        curl_easy_setopt(v->h, CURLOPT_CLOSESOCKETFUNCTION, on_close);
        curl_easy_setopt(v->h, CURLOPT_CLOSESOCKETDATA, w);
        curl_easy_setopt(v->h, CURLOPT_TIMEOUT_MS, (long)o->timeout_ms);
        curl_easy_setopt(v->h, CURLOPT_CONNECTTIMEOUT_MS, (long)o->timeout_ms);
        curl_easy_setopt(v->h, CURLOPT_NOSIGNAL, 1L);
        curl_easy_setopt(v->h, CURLOPT_TCP_NODELAY, 1L);
        /* A benchmark of a named server never goes through a proxy from the
         * environment. */
        curl_easy_setopt(v->h, CURLOPT_PROXY, "");
    }
    return 0;
}

static void worker_cleanup(struct worker *w)
{
    for (int64_t i = 0; w->vus && i < w->nvu; i++) {
        if (w->vus[i].h)
            curl_easy_cleanup(w->vus[i].h);
        free(w->vus[i].body);
    }
    free(w->vus);
    if (w->multi)
        curl_multi_cleanup(w->multi);
    if (w->ep >= 0)
        close(w->ep);
    for (size_t i = 0; i < w->npool; i++)
        free(w->pool[i].url);
    free(w->pool);
    free(w->reg);
    for (int r = 0; r < LOAD_NREQ; r++)
        hist_free(w->h[r]);
}

static void *worker_main(void *arg)
{
    struct worker *w = arg;
    w->active = w->nvu;
    for (int64_t i = 0; i < w->nvu; i++)
        vu_start(&w->vus[i]);
    struct epoll_event ev[64];
    int running;
    while (w->active > 0) {
        int wait_ms = 1000;
        if (w->pending) {
            wait_ms = 0;
        } else if (w->timer_on) {
            uint64_t now = clock_now_ns();
            wait_ms = w->timer_at <= now ? 0 : (int)((w->timer_at - now + 999999) / 1000000);
            if (wait_ms > 1000)
                wait_ms = 1000;
        }
        int n = epoll_wait(w->ep, ev, 64, wait_ms);
        if (n < 0 && errno != EINTR)
            break;
        for (int i = 0; i < n; i++) {
            int fd = ev[i].data.fd;
            if (fd >= 0 && (size_t)fd < w->nreg && (w->reg[fd] & REG_IN_EPOLL) &&
                !(w->reg[fd] & REG_WANTED)) {
                /* An idle keep-alive connection curl is not watching (the
                 * server closed it): stop watching it too; curl notices
                 * when it next tries to reuse it. */
                epoll_ctl(w->ep, EPOLL_CTL_DEL, fd, NULL);
                w->reg[fd] = 0;
                continue;
            }
            int flags = 0;
            if (ev[i].events & (EPOLLIN | EPOLLHUP))
                flags |= CURL_CSELECT_IN;
            if (ev[i].events & EPOLLOUT)
                flags |= CURL_CSELECT_OUT;
            if (ev[i].events & EPOLLERR)
                flags |= CURL_CSELECT_ERR;
            curl_multi_socket_action(w->multi, fd, flags, &running);
            drain(w, clock_now_ns());
        }
        /* Send the requests of VUs whose answers this batch completed, and
         * let curl handle its own timeouts. */
        int expired = w->timer_on && clock_now_ns() >= w->timer_at;
        if (w->pending || expired) {
            /* Forget only a timer that expired: curl re-arms through
             * on_timer only when its next deadline changes. */
            w->pending = 0;
            if (expired)
                w->timer_on = 0;
            curl_multi_socket_action(w->multi, CURL_SOCKET_TIMEOUT, 0, &running);
            drain(w, clock_now_ns());
        }
    }
    atomic_fetch_add(&w->s->workers_done, 1);
    return NULL;
}

/* ---- output ------------------------------------------------------------- */

static double ms(uint64_t ns) { return (double)ns / 1e6; }

static void print_latency_row(const char *label, uint64_t req, uint64_t failed, double secs,
                              const struct hist *h)
{
    printf("  %-5s %9llu %8llu %10.1f", label, (unsigned long long)req,
           (unsigned long long)failed, secs > 0 ? (double)req / secs : 0.0);
    if (h->count == 0) {
        printf("         -\n");
        return;
    }
    printf(" %8.3f %8.3f %8.3f %8.3f %8.3f %8.3f %8.3f\n", ms(hist_percentile(h, 0)),
           ms(hist_percentile(h, 50)), hist_mean(h) / 1e6, ms(hist_percentile(h, 90)),
           ms(hist_percentile(h, 99)), ms(hist_percentile(h, 99.9)),
           ms(hist_percentile(h, 100)));
}

struct totals {
    struct hist *h[LOAD_NREQ], *all;
    uint64_t ok[LOAD_NREQ], fail[LOAD_NREQ][LOAD_NFAIL];
    uint64_t failed_req[LOAD_NREQ], requests[LOAD_NREQ];
    uint64_t tasks_ok, tasks_failed;
    struct load_err err[NERR_KEEP];
    int nerr;
    double secs;
};

static int cmp_err(const void *a, const void *b)
{
    const struct load_err *x = a, *y = b;
    return (x->t > y->t) - (x->t < y->t);
}

static void print_text(const struct load_opts *o, const struct totals *t)
{
    uint64_t tasks = t->tasks_ok + t->tasks_failed;
    uint64_t nreq = t->requests[LOAD_POST] + t->requests[LOAD_GET];
    uint64_t nfail = t->failed_req[LOAD_POST] + t->failed_req[LOAD_GET];
    const struct hist *a = t->all;
    printf("\n==================================================\n");
    printf("STRESS TEST RESULTS\n");
    printf("==================================================\n");
    printf("Total tasks: %llu\n", (unsigned long long)tasks);
    printf("Successful: %llu\n", (unsigned long long)t->tasks_ok);
    printf("Failed: %llu\n", (unsigned long long)t->tasks_failed);
    printf("Total time: %.2f seconds\n", t->secs);
    printf("Tasks/second: %.2f\n", t->secs > 0 ? (double)tasks / t->secs : 0.0);
    printf("\nResponse times:\n");
    printf("  Min: %.2f ms\n", ms(hist_percentile(a, 0)));
    printf("  Max: %.2f ms\n", ms(hist_percentile(a, 100)));
    printf("  Mean: %.2f ms\n", hist_mean(a) / 1e6);
    printf("  Median: %.2f ms\n", ms(hist_percentile(a, 50)));
    printf("\nErrors (first 5):\n");
    if (t->nerr == 0)
        printf("  (none)\n");
    for (int i = 0; i < t->nerr; i++)
        printf("  %s\n", t->err[i].msg);

    printf("\nRequests: %llu (%llu POST, %llu GET), %llu failed\n", (unsigned long long)nreq,
           (unsigned long long)t->requests[LOAD_POST], (unsigned long long)t->requests[LOAD_GET],
           (unsigned long long)nfail);
    printf("Requests/second: %.1f\n", t->secs > 0 ? (double)nreq / t->secs : 0.0);
    printf("Failures by kind:");
    for (int f = 1; f < LOAD_NFAIL; f++)
        printf(" %s %llu", loadmix_fail_name((enum load_fail)f),
               (unsigned long long)(t->fail[LOAD_POST][f] + t->fail[LOAD_GET][f]));
    printf("\n\nLatency (ms, requests with an HTTP answer):\n");
    printf("  %-5s %9s %8s %10s %8s %8s %8s %8s %8s %8s %8s\n", "type", "requests", "failed",
           "req/s", "min", "p50", "mean", "p90", "p99", "p99.9", "max");
    print_latency_row("POST", t->requests[LOAD_POST], t->failed_req[LOAD_POST], t->secs,
                      t->h[LOAD_POST]);
    print_latency_row("GET", t->requests[LOAD_GET], t->failed_req[LOAD_GET], t->secs,
                      t->h[LOAD_GET]);
    print_latency_row("all", nreq, nfail, t->secs, a);
    (void)o;
}

static cJSON *type_json(uint64_t req, uint64_t ok, const uint64_t *fail, double secs,
                        const struct hist *h)
{
    cJSON *o = cJSON_CreateObject();
    cJSON_AddNumberToObject(o, "requests", (double)req);
    cJSON_AddNumberToObject(o, "successful", (double)ok);
    cJSON_AddNumberToObject(o, "failed", (double)(req - ok));
    cJSON_AddNumberToObject(o, "requests_per_s", secs > 0 ? (double)req / secs : 0.0);
    cJSON *fo = cJSON_AddObjectToObject(o, "failures");
    for (int f = 1; f < LOAD_NFAIL; f++)
        cJSON_AddNumberToObject(fo, loadmix_fail_name((enum load_fail)f), (double)fail[f]);
    cJSON *lat = report_hist_json(h);
    if (lat)
        cJSON_AddItemToObject(o, "latency", lat);
    return o;
}

static void print_json(const struct load_opts *o, const struct totals *t, const char *url)
{
    cJSON *root = report_json_new(CMD, NULL);
    if (!root)
        return;
    cJSON *op = cJSON_AddObjectToObject(root, "options");
    cJSON_AddStringToObject(op, "url", url);
    cJSON_AddStringToObject(op, "mode", o->duration > 0 ? "duration" : "tasks");
    cJSON_AddNumberToObject(op, "tasks", (double)o->tasks);
    cJSON_AddNumberToObject(op, "threads", (double)o->threads);
    cJSON_AddNumberToObject(op, "gets", (double)o->gets);
    cJSON_AddNumberToObject(op, "duration", o->duration);
    if (o->keys_path)
        cJSON_AddStringToObject(op, "keys", o->keys_path);
    else
        cJSON_AddNullToObject(op, "keys");
    cJSON_AddNumberToObject(op, "zipf", o->zipf);
    cJSON_AddNumberToObject(op, "create_ratio", o->create_ratio);
    cJSON_AddNumberToObject(op, "timeout_ms", (double)o->timeout_ms);
    cJSON_AddNumberToObject(op, "workers", (double)o->workers);
    cJSON_AddNumberToObject(op, "seed", (double)o->seed);
    cJSON_AddBoolToObject(op, "allow_failures", o->allow_failures);

    uint64_t tasks = t->tasks_ok + t->tasks_failed;
    uint64_t nreq = t->requests[LOAD_POST] + t->requests[LOAD_GET];
    uint64_t fall[LOAD_NFAIL];
    for (int f = 0; f < LOAD_NFAIL; f++)
        fall[f] = t->fail[LOAD_POST][f] + t->fail[LOAD_GET][f];
    cJSON *r = cJSON_AddObjectToObject(root, "result");
    cJSON_AddNumberToObject(r, "tasks", (double)tasks);
    cJSON_AddNumberToObject(r, "successful", (double)t->tasks_ok);
    cJSON_AddNumberToObject(r, "failed", (double)t->tasks_failed);
    cJSON_AddNumberToObject(r, "seconds", t->secs);
    cJSON_AddNumberToObject(r, "tasks_per_s", t->secs > 0 ? (double)tasks / t->secs : 0.0);
    cJSON_AddNumberToObject(r, "requests", (double)nreq);
    cJSON_AddNumberToObject(r, "requests_failed",
                            (double)(t->failed_req[LOAD_POST] + t->failed_req[LOAD_GET]));
    cJSON_AddNumberToObject(r, "requests_per_s", t->secs > 0 ? (double)nreq / t->secs : 0.0);
    cJSON *fo = cJSON_AddObjectToObject(r, "failures");
    for (int f = 1; f < LOAD_NFAIL; f++)
        cJSON_AddNumberToObject(fo, loadmix_fail_name((enum load_fail)f), (double)fall[f]);
    cJSON *by = cJSON_AddObjectToObject(r, "by_type");
    cJSON_AddItemToObject(by, "post",
                          type_json(t->requests[LOAD_POST], t->ok[LOAD_POST], t->fail[LOAD_POST],
                                    t->secs, t->h[LOAD_POST]));
    cJSON_AddItemToObject(by, "get",
                          type_json(t->requests[LOAD_GET], t->ok[LOAD_GET], t->fail[LOAD_GET],
                                    t->secs, t->h[LOAD_GET]));
    cJSON_AddItemToObject(by, "all",
                          type_json(nreq, t->ok[LOAD_POST] + t->ok[LOAD_GET], fall, t->secs,
                                    t->all));
    cJSON *errs = cJSON_AddArrayToObject(r, "errors");
    for (int i = 0; i < t->nerr; i++)
        cJSON_AddItemToArray(errs, cJSON_CreateString(t->err[i].msg));
    report_json_print(root);
}

/* ---- the command --------------------------------------------------------- */

static void progress(const struct load_shared *s, int force)
{
    const struct load_opts *o = s->o;
    long long done = atomic_load(&s->tasks_done);
    if (o->duration > 0) {
        double el = (double)(clock_now_ns() - s->t_start) / 1e9;
        fprintf(stderr, "Completed: %lld tasks in %.0f/%g s (%lld requests)\n", done,
                el < o->duration ? el : o->duration, o->duration,
                (long long)atomic_load(&s->requests_done));
    } else if (force || done > 0) {
        fprintf(stderr, "Completed: %lld/%lld\n", done, (long long)o->tasks);
    }
}


int shortener_load(int argc, char **argv)
{
    struct load_opts o = {
        .tasks = 100, .threads = 30, .gets = 80, .timeout_ms = 5000, .workers = 0,
        .seed = 1, .create_ratio = -1,
    };
    const char *duration_s = NULL;
    const struct cli_opt opts[] = {
        {"tasks", CLI_INT, &o.tasks, 1, 1000000000, 0, 0},
        {"threads", CLI_INT, &o.threads, 1, 10000, 0, 0},
        {"gets", CLI_INT, &o.gets, 0, 1000000000, 0, 0},
        {"duration", CLI_STR, &duration_s, 0, 0, 0, 0},
        {"keys", CLI_STR, &o.keys_path, 0, 0, 0, 0},
        {"zipf", CLI_DOUBLE, &o.zipf, 0, 0, 0, 100},
        {"create-ratio", CLI_DOUBLE, &o.create_ratio, 0, 0, 0, 1},
        {"timeout", CLI_INT, &o.timeout_ms, 1, 3600000, 0, 0},
        {"workers", CLI_INT, &o.workers, 1, 64, 0, 0},
        {"seed", CLI_INT, &o.seed, 0, INT64_MAX, 0, 0},
        {"allow-failures", CLI_FLAG, &o.allow_failures, 0, 0, 0, 0},
        {"progress", CLI_FLAG, &o.progress, 0, 0, 0, 0},
        {"json", CLI_FLAG, &o.json, 0, 0, 0, 0},
    };
    const char *pos[1];
    int npos;
    int rc = cli_parse(CMD, argc, argv, opts, (int)(sizeof(opts) / sizeof(opts[0])), pos, 1,
                       &npos);
    if (rc)
        return rc;
    if (npos != 1)
        return cli_usage(CMD, "missing URL (for example http://127.0.0.1:5000)");
    const char *url = pos[0];
    if (strncmp(url, "http://", 7) != 0 && strncmp(url, "https://", 8) != 0)
        return cli_usage(CMD, "URL must start with http:// or https://, got '%s'", url);
    const char *host = strstr(url, "://") + 3;
    if (*host == '\0' || *host == '/')
        return cli_usage(CMD, "URL '%s' names no host", url);
    size_t ulen = strlen(url);
    while (ulen > 0 && url[ulen - 1] == '/')
        ulen--;
    if (ulen > 400)
        return cli_usage(CMD, "URL too long (at most 400 characters)");
    char base[401];
    memcpy(base, url, ulen);
    base[ulen] = '\0';
    o.base = base;
    if (duration_s) {
        if (units_parse_duration(duration_s, &o.duration) != 0 || o.duration <= 0 ||
            o.duration > 86400 * 7)
            return cli_usage(CMD, "invalid --duration '%s' (seconds, or with ms/s/m/h)",
                             duration_s);
    } else if (o.keys_path || o.create_ratio >= 0) {
        return cli_usage(CMD, "--keys and --create-ratio need --duration");
    }
    if (o.zipf > 0 && !o.keys_path)
        return cli_usage(CMD, "--zipf needs --keys (ids to pick from)");
    if (o.create_ratio < 0)
        o.create_ratio = 1.0 / (1.0 + (double)o.gets);
    if (o.keys_path == NULL && o.duration > 0 && o.create_ratio == 0)
        return cli_usage(CMD, "--create-ratio 0 needs --keys (no link to GET otherwise)");
    /* libcurl spends several times wrk's CPU per request; on the 2-core
     * machine this was tuned on, a second event loop raised the rate by a
     * third and shortened the tail (see the README's figures). */
    if (o.workers == 0)
        o.workers = sysconf(_SC_NPROCESSORS_ONLN) > 1 ? 2 : 1;
    if (o.workers > o.threads)
        o.workers = o.threads;
    if (!o.progress)
        o.progress = isatty(STDERR_FILENO);

    struct load_shared s;
    memset(&s, 0, sizeof(s));
    s.o = &o;
    if (o.keys_path) {
        char err[512];
        if (loadkeys_read(&s.keys, o.keys_path, err, sizeof(err)) != 0)
            return cli_fail(CMD, "%s", err);
        if (loadpick_init(&s.pick, s.keys.n, o.zipf) != 0) {
            loadkeys_free(&s.keys);
            return cli_usage(CMD, "invalid --zipf %g", o.zipf);
        }
    }
    /* One descriptor per VU plus curl's and ours: raise the soft limit
     * toward the hard one rather than fail connects with EMFILE later. */
    struct rlimit rl;
    rlim_t need = (rlim_t)o.threads + 64;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < need) {
        rl.rlim_cur = (rl.rlim_max == RLIM_INFINITY || rl.rlim_max >= need) ? need : rl.rlim_max;
        if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
            getrlimit(RLIMIT_NOFILE, &rl);
        if (rl.rlim_cur < need) {
            loadkeys_free(&s.keys);
            return cli_fail(CMD, "--threads %lld needs %llu file descriptors; the limit is %llu "
                            "(ulimit -n)", (long long)o.threads, (unsigned long long)need,
                            (unsigned long long)rl.rlim_cur);
        }
    }

    if (curl_global_init(CURL_GLOBAL_DEFAULT) != 0) {
        loadkeys_free(&s.keys);
        return cli_fail(CMD, "libcurl initialisation failed");
    }
    s.post_headers = curl_slist_append(NULL, "Content-Type: application/json");
    s.post_headers = curl_slist_append(s.post_headers, "Expect:");

    struct worker *w = calloc((size_t)o.workers, sizeof(*w));
    rc = 0;
    if (!w || !s.post_headers) {
        rc = cli_fail(CMD, "out of memory");
        goto out;
    }
    uint64_t first = 0;
    for (int64_t i = 0; i < o.workers; i++) {
        w[i].s = &s;
        w[i].index = (int)i;
        w[i].ep = -1;
        w[i].nvu = o.threads / o.workers + (i < o.threads % o.workers ? 1 : 0);
        if (worker_setup(&w[i], first) != 0) {
            rc = cli_fail(CMD, "cannot set up %lld connections: out of memory or file descriptors",
                          (long long)o.threads);
            goto out;
        }
        first += (uint64_t)w[i].nvu;
    }

    /* The second signal kills as usual (SA_RESETHAND). */
    struct sigaction sa, old_int, old_term;
    memset(&sa, 0, sizeof(sa));
    sa.sa_handler = on_interrupt;
    sa.sa_flags = SA_RESETHAND;
    sigemptyset(&sa.sa_mask);
    load_interrupted = 0;
    sigaction(SIGINT, &sa, &old_int);
    sigaction(SIGTERM, &sa, &old_term);

    s.t_start = clock_now_ns();
    s.t_end_ns = s.t_start + (uint64_t)(o.duration * 1e9);
    int64_t started = 0;
    for (; started < o.workers; started++)
        if (pthread_create(&w[started].thread, NULL, worker_main, &w[started]) != 0)
            break;
    if (started < o.workers) {
        /* Stop the ones that did start by ending their work early. */
        atomic_store(&s.tasks_claimed, (long long)o.tasks);
        s.t_end_ns = s.t_start;
        rc = cli_fail(CMD, "cannot start worker thread");
    }

    /* Progress: every 10% of tasks, or every second with --duration. */
    long long next_mark = o.tasks / 10 > 0 ? o.tasks / 10 : 1, printed = -1;
    uint64_t next_tick = s.t_start + 1000000000u;
    for (;;) {
        long long done = atomic_load(&s.tasks_done);
        int finished = atomic_load(&s.workers_done) >= started;
        if (o.progress && rc == 0) {
            if (o.duration > 0 && clock_now_ns() >= next_tick && clock_now_ns() < s.t_end_ns) {
                progress(&s, 0);
                next_tick += 1000000000u;
            } else if (o.duration == 0 && done >= next_mark) {
                progress(&s, 0);
                printed = done;
                while (next_mark <= done)
                    next_mark += o.tasks / 10 > 0 ? o.tasks / 10 : 1;
            }
        }
        if (finished || rc)
            break;
        usleep(20000);
    }
    for (int64_t i = 0; i < started; i++)
        pthread_join(w[i].thread, NULL);
    uint64_t t_stop = clock_now_ns();
    sigaction(SIGINT, &old_int, NULL);
    sigaction(SIGTERM, &old_term, NULL);
    if (rc)
        goto out;

    struct totals t;
    memset(&t, 0, sizeof(t));
    t.secs = (double)(t_stop - s.t_start) / 1e9;
    t.all = hist_new();
    t.h[LOAD_POST] = hist_new();
    t.h[LOAD_GET] = hist_new();
    if (!t.all || !t.h[LOAD_POST] || !t.h[LOAD_GET]) {
        rc = cli_fail(CMD, "out of memory");
        hist_free(t.all);
        hist_free(t.h[LOAD_POST]);
        hist_free(t.h[LOAD_GET]);
        goto out;
    }
    for (int64_t i = 0; i < o.workers; i++) {
        for (int r = 0; r < LOAD_NREQ; r++) {
            hist_merge(t.h[r], w[i].h[r]);
            hist_merge(t.all, w[i].h[r]);
            t.ok[r] += w[i].ok[r];
            for (int f = 0; f < LOAD_NFAIL; f++)
                t.fail[r][f] += w[i].fail[r][f];
        }
        t.tasks_ok += w[i].tasks_ok;
        t.tasks_failed += w[i].tasks_failed;
        /* The first five over all workers, by time. */
        for (int e = 0; e < w[i].nerr; e++) {
            if (t.nerr < NERR_KEEP)
                t.err[t.nerr++] = w[i].err[e];
            else if (w[i].err[e].t < t.err[NERR_KEEP - 1].t)
                t.err[NERR_KEEP - 1] = w[i].err[e];
            qsort(t.err, (size_t)t.nerr, sizeof(t.err[0]), cmp_err);
        }
    }
    for (int r = 0; r < LOAD_NREQ; r++) {
        for (int f = 1; f < LOAD_NFAIL; f++)
            t.failed_req[r] += t.fail[r][f];
        t.requests[r] = t.ok[r] + t.failed_req[r];
    }
    if (o.progress && o.duration == 0 && (long long)(t.tasks_ok + t.tasks_failed) != printed)
        progress(&s, 1);

    if (o.json)
        print_json(&o, &t, base);
    else
        print_text(&o, &t);
    fflush(stdout);

    uint64_t nfail = t.failed_req[LOAD_POST] + t.failed_req[LOAD_GET];
    uint64_t nreq = t.requests[LOAD_POST] + t.requests[LOAD_GET];
    if (load_interrupted)
        rc = cli_fail(CMD, "interrupted after %.1f s; results above cover the requests done",
                      t.secs);
    else if (nfail > 0 && !o.allow_failures)
        rc = cli_fail(CMD, "%llu of %llu requests failed (first: %s)",
                      (unsigned long long)nfail, (unsigned long long)nreq,
                      t.nerr ? t.err[0].msg : "?");
    hist_free(t.all);
    hist_free(t.h[LOAD_POST]);
    hist_free(t.h[LOAD_GET]);
out:
    for (int64_t i = 0; w && i < o.workers; i++)
        worker_cleanup(&w[i]);
    free(w);
    curl_slist_free_all(s.post_headers);
    curl_global_cleanup();
    loadkeys_free(&s.keys);
    return rc;
}
