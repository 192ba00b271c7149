/* service: request handling and the HTTP server of "kvtest shortener serve".
 *
 * Threads: libmicrohttpd's internal thread pool (epoll), --threads workers.
 * Each pool thread claims one worker (links + cache connection) on its first
 * request and keeps it, so a connection to SQLite or Valkey is only ever
 * used by one thread. A pool beats thread-per-connection here: slow or idle
 * keep-alive clients cost no thread, and a worker count independent of the
 * client count keeps SQLite's writer contention bounded. */
#include "shortener/service.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cjson/cJSON.h>
#include <microhttpd.h>

#include "measure/clock.h"
#include "base/cli.h"
#include "shortener/request.h"
#include "shortener/shortener_cmds.h"

static const int statuses[] = {200, 201, 400, 404, 405, 413, 500};
#define NSTATUS ((int)(sizeof statuses / sizeof statuses[0]) + 1)   /* + other */

struct service_worker {
    struct links *links;
    struct cache *cache;
    /* Single writer (the worker's thread); /stats reads them relaxed. */
    _Atomic uint64_t req[ROUTE_COUNT][NSTATUS];
    _Atomic uint64_t sqlite_errors;
};

struct service {
    int nworkers;
    int has_cache;
    struct service_worker *w;
    atomic_int next_worker;   /* next unclaimed worker */
    atomic_long inflight;     /* requests begun and not completed */
    uint64_t started_ns;
    int nobody_marker;        /* req_cls of requests without a body */
};

static void bump(_Atomic uint64_t *v)
{
    atomic_store_explicit(v, atomic_load_explicit(v, memory_order_relaxed) + 1,
                          memory_order_relaxed);
}

static uint64_t get(_Atomic uint64_t *v)
{
    return atomic_load_explicit(v, memory_order_relaxed);
}

static int status_index(int status)
{
    for (int i = 0; i < NSTATUS - 1; i++)
        if (statuses[i] == status)
            return i;
    return NSTATUS - 1;
}

struct service *service_new(const char *dbpath, const struct service_opts *o,
                            char *err, size_t errcap)
{
    struct service *s = calloc(1, sizeof *s);
    if (!s || !(s->w = calloc((size_t)o->workers, sizeof *s->w))) {
        free(s);
        snprintf(err, errcap, "out of memory");
        return NULL;
    }
    s->nworkers = o->workers;
    s->has_cache = o->cache != NULL;
    s->started_ns = clock_now_ns();
    for (int i = 0; i < o->workers; i++) {
        s->w[i].links = links_open(dbpath, o->sqlite_cache, err, errcap);
        if (!s->w[i].links) {
            service_free(s);
            return NULL;
        }
        if (o->cache && !(s->w[i].cache = cache_open(o->cache))) {
            snprintf(err, errcap, "out of memory");
            service_free(s);
            return NULL;
        }
    }
    return s;
}

void service_free(struct service *s)
{
    if (!s)
        return;
    for (int i = 0; s->w && i < s->nworkers; i++) {
        links_close(s->w[i].links);
        cache_close(s->w[i].cache);
    }
    free(s->w);
    free(s);
}

int service_workers(const struct service *s) { return s->nworkers; }
struct service_worker *service_worker_at(struct service *s, int i) { return &s->w[i]; }
struct cache *service_worker_cache(struct service_worker *w) { return w->cache; }

static void reply_json(struct service_reply *r, int status, cJSON *obj)
{
    r->status = status;
    r->body = obj ? cJSON_PrintUnformatted(obj) : NULL;
    cJSON_Delete(obj);
    if (!r->body) {   /* out of memory: still a valid reply */
        r->status = 500;
        r->body = NULL;
        r->len = 0;
        return;
    }
    r->len = strlen(r->body);
}

static void reply_error(struct service_reply *r, int status, const char *msg)
{
    cJSON *o = cJSON_CreateObject();
    if (o && !cJSON_AddStringToObject(o, "error", msg)) {
        cJSON_Delete(o);
        o = NULL;
    }
    reply_json(r, status, o);
}

static void reply_string(struct service_reply *r, int status, const char *key,
                         const char *val)
{
    cJSON *o = cJSON_CreateObject();
    if (o && !cJSON_AddStringToObject(o, key, val)) {
        cJSON_Delete(o);
        o = NULL;
    }
    reply_json(r, status, o);
}

void service_reply_free(struct service_reply *r)
{
    cJSON_free(r->body);
    r->body = NULL;
}

void service_handle(struct service *s, struct service_worker *w,
                    const char *method, const char *path,
                    const char *body, size_t bodylen, int body_too_large,
                    struct service_reply *r)
{
    struct request_match m;
    const char *why = NULL;
    char url[LINKS_URL_MAX + 1];
    size_t urllen = 0;

    memset(r, 0, sizeof *r);
    request_match(method, path, &m);
    if (m.route == ROUTE_UNKNOWN) {
        reply_error(r, 404, "not found");
    } else if (!m.method_ok) {
        reply_error(r, 405, "method not allowed");
        r->allow = m.allow;
    } else if (m.route == ROUTE_HEARTBEAT) {
        cJSON *o = cJSON_CreateObject();
        if (o && !cJSON_AddTrueToObject(o, "OK")) {
            cJSON_Delete(o);
            o = NULL;
        }
        reply_json(r, 200, o);
    } else if (m.route == ROUTE_STATS) {
        r->body = service_stats_json(s);
        r->status = r->body ? 200 : 500;
        r->len = r->body ? strlen(r->body) : 0;
    } else if (m.route == ROUTE_CREATE) {
        char id[LINKS_ID_LEN + 1];
        if (body_too_large)
            reply_error(r, 413, "body larger than 65536 bytes");
        else if (request_parse_create(body, bodylen, url, sizeof url, &urllen, &why) != 0)
            reply_error(r, 400, why);
        else if (links_create(w->links, url, urllen, id) != LINKS_OK) {
            bump(&w->sqlite_errors);
            reply_error(r, 500, "storage error");
        } else
            reply_string(r, 201, "short_link", id);
    } else {   /* ROUTE_RESOLVE */
        if (!request_valid_id(m.id, m.idlen)) {
            reply_error(r, 400, "invalid id: expected 1-64 characters of [A-Za-z0-9]");
        } else {
            switch (cache_lookup(w->cache, w->links, m.id, m.idlen, url, sizeof url, &urllen)) {
            case LINKS_OK:
                reply_string(r, 200, "link", url);
                break;
            case LINKS_NOTFOUND:
                reply_error(r, 404, "no such link");
                break;
            default:
                bump(&w->sqlite_errors);
                reply_error(r, 500, "storage error");
            }
        }
    }
    bump(&w->req[m.route][status_index(r->status)]);
}

static void sum_counters(struct service *s, uint64_t req[ROUTE_COUNT][NSTATUS],
                         uint64_t *sqlite_errors, struct cache_stats *cs)
{
    memset(req, 0, sizeof(uint64_t) * ROUTE_COUNT * NSTATUS);
    memset(cs, 0, sizeof *cs);
    *sqlite_errors = 0;
    for (int i = 0; i < s->nworkers; i++) {
        struct service_worker *w = &s->w[i];
        for (int r = 0; r < ROUTE_COUNT; r++)
            for (int k = 0; k < NSTATUS; k++)
                req[r][k] += get(&w->req[r][k]);
        *sqlite_errors += get(&w->sqlite_errors);
        struct cache_stats c;
        cache_stats(w->cache, &c);
        cs->hits += c.hits;
        cs->misses += c.misses;
        cs->errors += c.errors;
        cs->skipped += c.skipped;
        cs->sets += c.sets;
        cs->connects += c.connects;
    }
}

static void status_label(int k, char *buf, size_t cap)
{
    if (k < NSTATUS - 1)
        snprintf(buf, cap, "%d", statuses[k]);
    else
        snprintf(buf, cap, "other");
}

char *service_stats_json(struct service *s)
{
    uint64_t req[ROUTE_COUNT][NSTATUS], sqlite_errors, total = 0;
    struct cache_stats cs;
    sum_counters(s, req, &sqlite_errors, &cs);
    cJSON *o = cJSON_CreateObject();
    cJSON *routes = cJSON_CreateObject();
    cJSON *cache = cJSON_CreateObject();
    cJSON *sq = cJSON_CreateObject();
    if (!o || !routes || !cache || !sq) {
        cJSON_Delete(o);
        cJSON_Delete(routes);
        cJSON_Delete(cache);
        cJSON_Delete(sq);
        return NULL;
    }
    for (int r = 0; r < ROUTE_COUNT; r++) {
        cJSON *byst = cJSON_CreateObject();
        for (int k = 0; k < NSTATUS; k++) {
            if (!req[r][k])
                continue;
            char lab[16];
            status_label(k, lab, sizeof lab);
            cJSON_AddNumberToObject(byst, lab, (double)req[r][k]);
            total += req[r][k];
        }
        cJSON_AddItemToObject(routes, request_route_name((enum request_route)r), byst);
    }
    cJSON_AddNumberToObject(o, "uptime_s", (double)(clock_now_ns() - s->started_ns) / 1e9);
    cJSON_AddNumberToObject(o, "requests", (double)total);
    cJSON_AddItemToObject(o, "routes", routes);
    cJSON_AddBoolToObject(cache, "enabled", s->has_cache);
    cJSON_AddNumberToObject(cache, "hits", (double)cs.hits);
    cJSON_AddNumberToObject(cache, "misses", (double)cs.misses);
    cJSON_AddNumberToObject(cache, "errors", (double)cs.errors);
    cJSON_AddNumberToObject(cache, "skipped", (double)cs.skipped);
    cJSON_AddNumberToObject(cache, "sets", (double)cs.sets);
    cJSON_AddNumberToObject(cache, "connects", (double)cs.connects);
    cJSON_AddItemToObject(o, "cache", cache);
    cJSON_AddNumberToObject(sq, "errors", (double)sqlite_errors);
    cJSON_AddItemToObject(o, "sqlite", sq);
    char *txt = cJSON_PrintUnformatted(o);
    cJSON_Delete(o);
    return txt;
}

void service_stats_print(struct service *s, void *fpv)
{
    FILE *fp = fpv;
    uint64_t req[ROUTE_COUNT][NSTATUS], sqlite_errors, total = 0;
    struct cache_stats cs;
    sum_counters(s, req, &sqlite_errors, &cs);
    for (int r = 0; r < ROUTE_COUNT; r++)
        for (int k = 0; k < NSTATUS; k++)
            total += req[r][k];
    fprintf(fp, "Requests: %llu\n", (unsigned long long)total);
    for (int r = 0; r < ROUTE_COUNT; r++) {
        uint64_t sum = 0;
        for (int k = 0; k < NSTATUS; k++)
            sum += req[r][k];
        if (!sum)
            continue;
        fprintf(fp, "  %-16s", request_route_name((enum request_route)r));
        for (int k = 0; k < NSTATUS; k++) {
            if (!req[r][k])
                continue;
            char lab[16];
            status_label(k, lab, sizeof lab);
            fprintf(fp, " %s: %llu", lab, (unsigned long long)req[r][k]);
        }
        fputc('\n', fp);
    }
    if (s->has_cache)
        fprintf(fp, "Cache: hits %llu, misses %llu, errors %llu, skipped %llu, "
                    "sets %llu, connects %llu\n",
                (unsigned long long)cs.hits, (unsigned long long)cs.misses,
                (unsigned long long)cs.errors, (unsigned long long)cs.skipped,
                (unsigned long long)cs.sets, (unsigned long long)cs.connects);
    else
        fprintf(fp, "Cache: none\n");
    fprintf(fp, "SQLite errors: %llu\n", (unsigned long long)sqlite_errors);
}

/* ---- HTTP glue (libmicrohttpd) --------------------------------------- */

/* Per-request upload state for POST /link. */
#define DRAIN_MAX (16u << 20)   /* bytes of an oversized body we drain */

struct upload {
    size_t len;
    size_t drained;   /* bytes discarded past the limit */
    int too_large;
    char buf[REQUEST_BODY_MAX];
};

/* The worker this pool thread claimed. Per-thread by design; tagged with
 * the service so a second service in one process never shares it. */
static _Thread_local struct {
    struct service *s;
    struct service_worker *w;
} tl_worker;

static struct service_worker *thread_worker(struct service *s)
{
    if (tl_worker.s == s)
        return tl_worker.w;
    int i = atomic_fetch_add(&s->next_worker, 1);
    if (i >= s->nworkers)
        return NULL;   /* more pool threads than workers: cannot happen */
    tl_worker.s = s;
    tl_worker.w = &s->w[i];
    return tl_worker.w;
}

static enum MHD_Result send_reply(struct MHD_Connection *conn, struct service_reply *r)
{
    struct MHD_Response *resp;
    if (r->body) {
        resp = MHD_create_response_from_buffer(r->len, r->body, MHD_RESPMEM_MUST_FREE);
        if (resp)
            r->body = NULL;   /* MHD frees it now (cJSON uses malloc) */
    } else {
        static const char oom[] = "{\"error\":\"out of memory\"}";
        resp = MHD_create_response_from_buffer(sizeof oom - 1, (void *)oom,
                                               MHD_RESPMEM_PERSISTENT);
    }
    service_reply_free(r);
    if (!resp)
        return MHD_NO;
    MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, "application/json");
    if (r->allow)
        MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, r->allow);
    enum MHD_Result ret = MHD_queue_response(conn, (unsigned int)r->status, resp);
    MHD_destroy_response(resp);
    return ret;
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *conn,
                                  const char *url, const char *method,
                                  const char *version, const char *upload_data,
                                  size_t *upload_data_size, void **req_cls)
{
    (void)version;
    struct service *s = cls;
    struct service_reply r;
    struct service_worker *w = thread_worker(s);

    if (*req_cls == NULL) {   /* headers received, body (if any) not yet */
        atomic_fetch_add(&s->inflight, 1);
        *req_cls = &s->nobody_marker;
        if (!w)
            return MHD_NO;
        struct request_match m;
        request_match(method, url, &m);
        if (m.route != ROUTE_CREATE || !m.method_ok)
            /* No body wanted. Answer on the next call: a response queued
             * this early makes MHD close the connection, which would cost
             * keep-alive clients a reconnect per request. */
            return MHD_YES;
        const char *cl = MHD_lookup_connection_value(conn, MHD_HEADER_KIND,
                                                     MHD_HTTP_HEADER_CONTENT_LENGTH);
        if (cl) {
            char *end;
            errno = 0;
            unsigned long long n = strtoull(cl, &end, 10);
            if (errno == ERANGE || n > REQUEST_BODY_MAX) {
                /* Refuse before reading (and close): a 1 GB upload costs
                 * us nothing. */
                service_handle(s, w, method, url, NULL, 0, 1, &r);
                return send_reply(conn, &r);
            }
        }
        struct upload *up = malloc(sizeof *up);
        if (!up)
            return MHD_NO;
        up->len = 0;
        up->drained = 0;
        up->too_large = 0;
        *req_cls = up;
        return MHD_YES;
    }
    if (*req_cls == &s->nobody_marker) {
        if (*upload_data_size > 0)   /* a stray body: discard it */
            return (*upload_data_size = 0, MHD_YES);
        service_handle(s, w, method, url, NULL, 0, 0, &r);
        return send_reply(conn, &r);
    }

    struct upload *up = *req_cls;
    if (*upload_data_size > 0) {
        size_t n = *upload_data_size;
        *upload_data_size = 0;
        if (!up->too_large && n <= REQUEST_BODY_MAX - up->len) {
            memcpy(up->buf + up->len, upload_data, n);
            up->len += n;
            return MHD_YES;
        }
        /* A chunked body past the limit. Drain it and answer 413 at the
         * end (replying early makes the client see a reset instead of the
         * 413), but cut a connection that streams on past DRAIN_MAX. */
        up->too_large = 1;
        up->drained += n;
        if (up->drained > DRAIN_MAX) {
            service_handle(s, w, method, url, NULL, 0, 1, &r);   /* count it */
            service_reply_free(&r);
            return MHD_NO;
        }
        return MHD_YES;
    }
    service_handle(s, w, method, url, up->buf, up->len, up->too_large, &r);
    return send_reply(conn, &r);
}

static void on_completed(void *cls, struct MHD_Connection *conn, void **req_cls,
                         enum MHD_RequestTerminationCode toe)
{
    (void)conn;
    (void)toe;
    struct service *s = cls;
    if (*req_cls == NULL)
        return;
    if (*req_cls != &s->nobody_marker)
        free(*req_cls);
    *req_cls = NULL;
    atomic_fetch_sub(&s->inflight, 1);
}

/* ---- the serve subcommand -------------------------------------------- */

const char help_shortener_serve[] =
    "Usage: kvtest shortener serve DBFILE [options]\n"
    "\n"
    "Run the URL-shortener REST service over HTTP/1.1 (keep-alive) on the\n"
    "links database DBFILE (create it with: kvtest shortener init DBFILE).\n"
    "\n"
    "  --bind ADDR          listen address (default 127.0.0.1; IPv4 or IPv6)\n"
    "  --port N             TCP port (default 5000; 0 = any free port)\n"
    "  --threads N          worker threads, each with its own SQLite and\n"
    "                       Valkey connection (default 8)\n"
    "  --cache none|valkey://HOST:PORT[/DB]\n"
    "                       Valkey cache-aside for lookups (default none)\n"
    "  --cache-ttl S        expiry of cached links in seconds (default 0: none)\n"
    "  --cache-timeout MS   Valkey connect and command timeout (default 50)\n"
    "  --sqlite-cache on|off  off applies PRAGMA cache_size=0 and\n"
    "                       temp_store=0 on every connection (default on)\n"
    "  --idle-timeout S     close connections idle this long (default 30)\n"
    "  --json               print the shutdown counters as one JSON line\n"
    "\n"
    "API (JSON bodies; the body is parsed whatever its Content-Type):\n"
    "  GET  /heart-beat   200 {\"OK\": true}\n"
    "  POST /link         {\"url\": \"https://...\"} -> 201 {\"short_link\": \"<id>\"}\n"
    "  GET  /link/<id>    200 {\"link\": \"<url>\"} or 404 {\"error\": ...}\n"
    "  GET  /stats        request, cache and SQLite counters\n"
    "Errors are {\"error\": \"...\"}: 400 bad JSON, missing/empty/non-string url,\n"
    "scheme not http(s), URL over 2048 bytes or with spaces/control characters,\n"
    "id not 1-64 of [A-Za-z0-9]; 413 body over 64 KiB; 405 wrong method (with\n"
    "Allow); 404 unknown path or link. A 201 means the link is committed (WAL,\n"
    "synchronous=NORMAL: it survives a crash or kill -9 of the server).\n"
    "\n"
    "Valkey failures never fail a request: lookups fall back to SQLite, the\n"
    "failure is counted and the connection is retried with backoff.\n"
    "SIGINT/SIGTERM: stop accepting, finish in-flight requests (up to 5 s),\n"
    "print the counters to stdout, exit 0.\n";

static int open_listener(const char *cmd, const char *bind_addr, int port, int *out_port)
{
    struct sockaddr_storage ss;
    socklen_t sl;
    memset(&ss, 0, sizeof ss);
    struct sockaddr_in *a4 = (struct sockaddr_in *)&ss;
    struct sockaddr_in6 *a6 = (struct sockaddr_in6 *)&ss;
    if (inet_pton(AF_INET, bind_addr, &a4->sin_addr) == 1) {
        a4->sin_family = AF_INET;
        a4->sin_port = htons((uint16_t)port);
        sl = sizeof *a4;
    } else if (inet_pton(AF_INET6, bind_addr, &a6->sin6_addr) == 1) {
        a6->sin6_family = AF_INET6;
        a6->sin6_port = htons((uint16_t)port);
        sl = sizeof *a6;
    } else {
        cli_usage(cmd, "--bind: '%s' is not a numeric IPv4 or IPv6 address", bind_addr);
        return -2;
    }
    int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        cli_fail(cmd, "socket: %s", strerror(errno));
        return -1;
    }
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (bind(fd, (struct sockaddr *)&ss, sl) != 0 || listen(fd, 1024) != 0) {
        cli_fail(cmd, "%s port %d: %s", bind_addr, port, strerror(errno));
        close(fd);
        return -1;
    }
    if (getsockname(fd, (struct sockaddr *)&ss, &sl) == 0)
        *out_port = ntohs(ss.ss_family == AF_INET ? a4->sin_port : a6->sin6_port);
    return fd;
}

int shortener_serve(int argc, char **argv)
{
    static const char cmd[] = "shortener serve";
    const char *bind_addr = "127.0.0.1", *cache_url = "none", *sqlite_cache = "on";
    int64_t port = 5000, threads = 8, ttl = 0, idle = 30, cache_timeout = CACHE_TIMEOUT_MS;
    int json = 0;
    const struct cli_opt opts[] = {
        {"bind", CLI_STR, &bind_addr, 0, 0, 0, 0},
        {"port", CLI_INT, &port, 0, 65535, 0, 0},
        {"threads", CLI_INT, &threads, 1, 256, 0, 0},
        {"cache", CLI_STR, &cache_url, 0, 0, 0, 0},
        {"cache-ttl", CLI_INT, &ttl, 0, 100000000, 0, 0},
        {"cache-timeout", CLI_INT, &cache_timeout, 1, 60000, 0, 0},
        {"sqlite-cache", CLI_STR, &sqlite_cache, 0, 0, 0, 0},
        {"idle-timeout", CLI_INT, &idle, 1, 86400, 0, 0},
        {"json", CLI_FLAG, &json, 0, 0, 0, 0},
    };
    const char *pos[1];
    int npos = 0;
    int rc = cli_parse(cmd, argc, argv, opts, (int)(sizeof opts / sizeof opts[0]),
                       pos, 1, &npos);
    if (rc != 0)
        return rc;
    if (npos != 1)
        return cli_usage(cmd, "missing DBFILE (usage: kvtest shortener serve DBFILE [options])");
    int sc;
    if (strcmp(sqlite_cache, "on") == 0)
        sc = 1;
    else if (strcmp(sqlite_cache, "off") == 0)
        sc = 0;
    else
        return cli_usage(cmd, "--sqlite-cache must be on or off, not '%s'", sqlite_cache);

    struct cache_config cc;
    char err[512];
    int use_cache = strcmp(cache_url, "none") != 0;
    if (use_cache) {
        if (cache_parse_url(cache_url, &cc, err, sizeof err) != 0)
            return cli_usage(cmd, "--cache: %s", err);
        cc.ttl_s = ttl;
        cc.connect_timeout_ms = (int)cache_timeout;
        cc.command_timeout_ms = (int)cache_timeout;
    }

    /* A client or Valkey that goes away must produce an error, not kill us. */
    signal(SIGPIPE, SIG_IGN);

    struct service_opts so = {(int)threads, sc, use_cache ? &cc : NULL};
    struct service *s = service_new(pos[0], &so, err, sizeof err);
    if (!s)
        return cli_fail(cmd, "%s", err);
    if (use_cache && cache_ping(service_worker_cache(service_worker_at(s, 0)),
                                err, sizeof err) != 0)
        cli_warn(cmd, "cache %s not answering (%s); serving from SQLite until it does",
                 cache_url, err);

    int real_port = (int)port;
    int lfd = open_listener(cmd, bind_addr, (int)port, &real_port);
    if (lfd < 0) {
        service_free(s);
        return lfd == -1 ? 1 : 2;
    }

    /* Block the stop signals before MHD starts its threads, which inherit
     * the mask: only sigwait() below ever sees them. */
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop, NULL);

    unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_USE_ITC;
    struct MHD_Daemon *d = MHD_start_daemon(
        flags, 0, NULL, NULL, on_request, s,
        MHD_OPTION_LISTEN_SOCKET, (MHD_socket)lfd,
        MHD_OPTION_THREAD_POOL_SIZE, (unsigned int)threads,
        MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)idle,
        MHD_OPTION_NOTIFY_COMPLETED, on_completed, s,
        MHD_OPTION_END);
    if (!d) {
        close(lfd);
        service_free(s);
        pthread_sigmask(SIG_UNBLOCK, &stop, NULL);
        return cli_fail(cmd, "cannot start the HTTP server on %s port %d", bind_addr, real_port);
    }
    fprintf(stderr, "kvtest shortener serve: listening on http://%s%s%s:%d/ "
            "(threads %d, cache %s, sqlite-cache %s)\n",
            strchr(bind_addr, ':') ? "[" : "", bind_addr, strchr(bind_addr, ':') ? "]" : "",
            real_port, (int)threads, cache_url, sqlite_cache);

    int sig = 0;
    sigwait(&stop, &sig);

    /* Stop accepting, give in-flight requests up to 5 s, then stop. */
    MHD_socket q = MHD_quiesce_daemon(d);
    if (q != MHD_INVALID_SOCKET)
        close(q);
    uint64_t deadline = clock_now_ns() + 5000000000ull;
    while (atomic_load(&s->inflight) > 0 && clock_now_ns() < deadline) {
        struct timespec ts = {0, 5000000};
        nanosleep(&ts, NULL);
    }
    MHD_stop_daemon(d);
    pthread_sigmask(SIG_UNBLOCK, &stop, NULL);

    if (json) {
        char *txt = service_stats_json(s);
        if (txt)
            printf("%s\n", txt);
        cJSON_free(txt);
    } else {
        service_stats_print(s, stdout);
    }
    fflush(stdout);
    service_free(s);
    return 0;
}
