/* serve: "kvtest shortener serve DBFILE", the service over HTTP. Parses
 * the options, sizes the descriptor limits, opens the listener and runs
 * service_http until SIGINT/SIGTERM, then prints the counters. */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/cli.h"
#include "base/errbuf.h"
#include "base/memlimit.h"
#include "base/net.h"
#include "measure/coldcache.h"
#include "measure/report.h"
#ifdef KVTEST_INJECT
#include "measure/inject.h"
#endif
#include "shortener/service/service.h"
#include "shortener/http/service_http.h"
#include "shortener/http/service_tls.h"
#include "shortener/cli/shortener_cmds.h"
#include "shortener/cli/serve_int.h"
#include "shortener/cli/serve_procs.h"
#include "shortener/cli/store_arg.h"

#define CMD SERVE_CMD
/* Descriptors that are not client connections: per thread SQLite's db,
 * -wal and -shm, a Valkey socket, h2o's epoll descriptor, wake-up pipe and
 * listener copy (8 leaves room); plus the listener, stdio and libraries' own (64). */
#define FD_RESERVED_BASE 64
#define FD_RESERVED_PER_THREAD 8
#define FD_LIMIT_CAP 1048576   /* when the hard limit is "unlimited" */

const char help_shortener_serve[] =
    "Usage: kvtest shortener serve DBFILE|--store URL [options]\n"
    "\n"
    "Run the URL-shortener REST service over HTTP/1.1 (keep-alive), or over\n"
    "HTTPS with HTTP/2 and HTTP/1.1 (--tls-cert), on the links database\n"
    "DBFILE (create it with: kvtest shortener init DBFILE).\n"
    "\n"
    "  --store URL          the links store instead of DBFILE: sqlite:PATH, or\n"
    "                       postgres://USER@HOST:PORT/DB (libpq URI), the\n"
    "                       primary: every worker thread opens its own\n"
    "                       connection with prepared statements\n"
    "  --replicas URL[,URL...]  PostgreSQL read replicas (at most 8; streaming\n"
    "                       replicas of the primary): lookups go round-robin to\n"
    "                       them, creates to the primary. An id a replica does\n"
    "                       not have (yet: it may lag) is looked up on the\n"
    "                       primary, so a link is found right after its create;\n"
    "                       a replica that fails passes its lookups on\n"
    "  --store-timeout MS   PostgreSQL connect and query timeout (default 5000)\n"
    "  --bind ADDR          listen address (default 127.0.0.1; IPv4 or IPv6)\n"
    "  --port N             TCP port (default 5000; 0 = any free port)\n"
    "  --threads N          worker threads, each with its own SQLite and\n"
    "                       Valkey connection (default 8)\n"
    "  --processes N        service processes on the one port (default 1, at\n"
    "                       most 256), each with --threads workers and its own\n"
    "                       SQLite and Valkey connections on the one WAL\n"
    "                       database; the kernel spreads connections over them\n"
    "                       (SO_REUSEPORT). /stats adds \"process\", \"pid\" and\n"
    "                       \"all\" (the sum over processes, kept across\n"
    "                       restarts). A process that dies is restarted; more\n"
    "                       than 5 restarts within 10 s: exit 1.\n"
    "                       On C cores: processes x threads up to C share the\n"
    "                       request-handling CPU (threads alone reach every core\n"
    "                       already: a process adds fault isolation, not cores);\n"
    "                       SQLite writes stay serialized by its single writer\n"
    "  --cache none|valkey://HOST:PORT[/DB]|valkey+track://HOST:PORT[/DB]\n"
    "                       Valkey cache-aside for lookups (default none);\n"
    "                       valkey+track adds client-side caching: the\n"
    "                       threads share one map of hot links, dropped\n"
    "                       when Valkey reports a change, expiry or eviction\n"
    "                       (CLIENT TRACKING with REDIRECT to a connection\n"
    "                       subscribed to __redis__:invalidate) and all dropped\n"
    "                       when that channel is lost\n"
    "  --cache valkey-cluster://HOST:PORT[,HOST:PORT...]\n"
    "                       a Valkey Cluster (or valkey-cluster+track://, one\n"
    "                       invalidation channel per node): seed nodes, the\n"
    "                       rest is discovered; keys go to the primary of their\n"
    "                       hash slot, MOVED and ASK redirects are followed, a\n"
    "                       node that is down sends its keys to SQLite until\n"
    "                       the slot map names a new primary\n"
    "                       Every form takes credentials before the host:\n"
    "                       USER:PASSWORD@ (an ACL user) or :PASSWORD@\n"
    "                       (requirepass), percent-encoded; never printed\n"
    "  --track-size N       links kept in memory with valkey+track, shared by\n"
    "                       the threads of a process (default 524288)\n"
    "  --cache-ttl S        expiry of cached links in seconds (default 0: none)\n"
    "  --cache-timeout MS   Valkey connect and command timeout (default 50)\n"
    "  --sqlite-cache on|off  off applies PRAGMA cache_size=0 and\n"
    "                       temp_store=0 on every connection (default on)\n"
    "  --sqlite-exclusive   this process alone opens DBFILE (SQLite's unix-excl\n"
    "                       VFS: its WAL index in the process's memory, no file\n"
    "                       locks per lookup) and keeps a frame in the WAL (a\n"
    "                       lookup then need not size the file): fewer system\n"
    "                       calls per GET. Any other process that opens DBFILE\n"
    "                       meanwhile (sqlite3, kvtest) gets \"database is\n"
    "                       locked\"; not with --processes N\n"
    "  --idle-timeout S     close connections idle this long (default 30)\n"
    "  --header-timeout S   close a new connection whose request headers are\n"
    "                       not complete after S seconds without progress\n"
    "                       (default 5); a client that stalls mid-request\n"
    "                       cannot hold a descriptor for the idle timeout\n"
    "  --mem-limit SIZE     run in a memory cgroup of its own limited to SIZE\n"
    "                       (4MiB at least; 32M = 32,000,000 bytes, 32MiB),\n"
    "                       which counts the page cache of DBFILE too: a\n"
    "                       database larger than SIZE is read from storage.\n"
    "                       DBFILE is evicted from the page cache once at start.\n"
    "                       Linux, root only; --processes share the one limit;\n"
    "                       Valkey, a process of its own, stays outside it. The\n"
    "                       group is removed at exit\n"
    "  --tls-cert FILE      serve HTTPS: the certificate chain (PEM, the server's\n"
    "                       first), with --tls-key FILE its private key (PEM,\n"
    "                       unencrypted). TLS 1.2 or later; ALPN offers h2 and\n"
    "                       http/1.1, so a client that asks gets HTTP/2. A\n"
    "                       missing, unreadable or mismatched file: exit 1\n"
    "                       before anything listens\n"
    "  --json               print the shutdown counters as one JSON line\n"
    "  --csv                the --json counters as CSV, one row\n"
    "\n"
    "API (JSON bodies; the body is parsed whatever its Content-Type):\n"
    "  GET  /heart-beat   200 {\"OK\": true}\n"
    "  POST /link         {\"url\": \"https://...\"} -> 201 {\"short_link\": \"<id>\"}\n"
    "  GET  /link/<id>    200 {\"link\": \"<url>\"} or 404 {\"error\": ...}\n"
    "  GET  /stats        request, cache and store counters (with PostgreSQL,\n"
    "                     \"store\": reads per primary and replicas, fallbacks,\n"
    "                     failovers, reconnects, unavailable)\n"
    "Errors are {\"error\": \"...\"}: 400 bad JSON, missing/empty/non-string url,\n"
    "scheme not http(s), URL over 2048 bytes or with spaces/control characters,\n"
    "id not 1-64 of [A-Za-z0-9]; 413 body over 64 KiB; 405 wrong method (with\n"
    "Allow); 404 unknown path or link; 503 the PostgreSQL primary (for a create)\n"
    "or every server (for a lookup) cannot be reached: nothing was stored, try\n"
    "again (a connection that failed is retried after 100 ms, doubling to 2 s).\n"
    "A 201 means the link is committed (SQLite: WAL, synchronous=NORMAL: it\n"
    "survives a crash or kill -9 of the server; PostgreSQL: the server's\n"
    "synchronous_commit, on by default).\n"
    "\n"
    "Valkey failures never fail a request: lookups fall back to SQLite, the\n"
    "failure is counted and the connection is retried with backoff.\n"
    "Limits (printed at start): the soft open-file limit is raised to the hard\n"
    "limit; connections are capped below it, at the limit minus 64 + 8 per\n"
    "thread (descriptors for SQLite, Valkey and the server's own), so a flood\n"
    "of idle connections never leaves the process unable to accept or to open\n"
    "its database files.\n"
    "SIGINT/SIGTERM: stop accepting, finish in-flight requests (up to 5 s),\n"
    "print the counters to stdout, exit 0 (with --processes: every process\n"
    "stops, and the counters are the sum of all).\n";

/* Options into *o; 0, or the exit status of a misuse. */
static int serve_parse(int argc, char **argv, struct serve_opts *o)
{
    const struct cli_opt opts[] = {
        STORE_ARG_STORE_OPT(&o->sa),
        STORE_ARG_REPLICAS_OPT(&o->sa),
        STORE_ARG_TIMEOUT_OPT(&o->sa),
        CLI_STR_OPT("bind", &o->bind_addr),
        CLI_INT_OPT("port", &o->port, 0, 65535),
        CLI_INT_OPT("threads", &o->threads, 1, 256),
        CLI_INT_OPT("processes", &o->processes, 1, SERVE_PROCS_MAX),
        CACHE_ARG_URL_OPT(&o->ca),
        CACHE_ARG_TTL_OPT(&o->ca),
        CACHE_ARG_TIMEOUT_OPT(&o->ca),
        CACHE_ARG_TRACK_SIZE_OPT(&o->ca),
        STORE_ARG_SQLITE_CACHE_OPT(&o->sa),
        STORE_ARG_SQLITE_EXCLUSIVE_OPT(&o->sa),
        CLI_INT_OPT("idle-timeout", &o->idle, 1, 86400),
        CLI_INT_OPT("header-timeout", &o->header, 1, 86400),
        CLI_INT_OPT("mem-limit", &o->mem_limit, MEMLIMIT_MIN, INT64_MAX),
        CLI_PATH_OPT("tls-cert", &o->tls_cert),
        CLI_PATH_OPT("tls-key", &o->tls_key),
        REPORT_OUT_OPTS(&o->out),
    };
    int rc = store_arg_parse(CMD, argc, argv, opts, CLI_COUNT(opts), &o->sa,
                             "kvtest shortener serve DBFILE [options]");
    char err[512];
    if (rc != 0 || (rc = cli_status(CMD, report_out_begin(&o->out, NULL, err, sizeof err), err)) != 0)
        return rc;
    /* serve's own options that one store kind alone can honour */
    const struct store_rule only[] = {
        {"mem-limit", LINKS_KIND_SQLITE, o->mem_limit != 0,
         "--mem-limit counts the page cache of an SQLite DBFILE; a PostgreSQL store's "
         "memory is its server's"},
    };
    if ((rc = store_arg_check(CMD, &o->sa, only, CLI_COUNT(only))) != 0)
        return rc;
    if (o->sa.sqlite_exclusive && o->processes > 1)
        return cli_usage(CMD, "--sqlite-exclusive lets one process open the database; not "
                         "with --processes %d", (int)o->processes);
    if (!o->tls_cert != !o->tls_key)
        return cli_usage(CMD, "%s needs %s too", o->tls_cert ? "--tls-cert" : "--tls-key",
                         o->tls_cert ? "--tls-key" : "--tls-cert");
    if (o->mem_limit && (rc = memlimit_check(err, sizeof err)) != 0)
        return rc == ERRBUF_MISUSE ? cli_usage(CMD, "%s", err) : cli_fail(CMD, "%s", err);
    return cache_arg_config(CMD, &o->ca);
}

/* Raise the soft open-file limit to the hard one: each client connection
 * is a descriptor, and the default soft limit (often 1024) is reached by a
 * few hundred idle clients. Then cap connections below it. 0, or -1 when
 * the limit leaves no room for a single connection. */
static int fd_limits_setup(int64_t threads, struct fd_limits *lim)
{
    struct net_fdlimit l;
    if (net_fd_limit_raise(FD_LIMIT_CAP, &l) != 0)
        return -1;
    if (l.err)
        cli_warn(CMD, "cannot raise the open-file limit to %llu: %s",
                 (unsigned long long)l.tried, strerror(l.err));
    lim->nofile_was = l.was;
    lim->nofile = l.now == UINT64_MAX ? FD_LIMIT_CAP : l.now;
    uint64_t reserved = FD_RESERVED_BASE + FD_RESERVED_PER_THREAD * (uint64_t)threads;
    if (lim->nofile <= reserved)
        return -1;
    lim->conn_limit = (unsigned)(lim->nofile - reserved);
    return 0;
}

static void print_counters(struct service *s, int json, int csv)
{
    if (json) {
        serve_print_json(service_stats_json(s), csv);
    } else {
        service_stats_print(s, stdout);
    }
    fflush(stdout);
}

/* Serve until SIGINT/SIGTERM. Takes lfd. Returns the exit status. */
static int serve_run(const struct serve_opts *o, struct service *s, int lfd, int port,
                     const struct fd_limits *lim)
{
    /* Block the stop signals before the HTTP glue starts its threads, which inherit
     * the mask: only sigwait() below ever sees them. */
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop, NULL);
    struct service_http_opts ho = {(unsigned)o->threads, lim->conn_limit,
                                   (unsigned)o->header, (unsigned)o->idle, o->tls};
    struct service_http *h = service_http_start(s, lfd, &ho);
    if (!h) {
        pthread_sigmask(SIG_UNBLOCK, &stop, NULL);
        return cli_fail(CMD, "cannot start the HTTP server on %s port %d", o->bind_addr, port);
    }
    serve_print_start(o, port, lim);
    int sig = 0;
    sigwait(&stop, &sig);
    /* The stop has begun: a second SIGINT or SIGTERM is dropped, not left
     * pending to kill us with 143 at the unblock, before the counters. */
    signal(SIGINT, SIG_IGN);
    signal(SIGTERM, SIG_IGN);
    service_http_stop(h);
    pthread_sigmask(SIG_UNBLOCK, &stop, NULL);
    print_counters(s, o->out.json, o->out.csv);
    return 0;
}

/* --mem-limit: into a group of its own before the database is opened.
 * The stop signals are blocked from here on (serve_run and serve_procs
 * block them too), so one that comes early waits for the orderly stop that
 * removes the group. 0 or the exit status. */
static int serve_mem_enter(const struct serve_opts *o)
{
    if (!o->mem_limit)
        return 0;
    sigset_t stop;
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop, NULL);
    char err[512];
    int rc = memlimit_enter(o->mem_limit, err, sizeof err);
    if (rc)
        return rc == ERRBUF_MISUSE ? cli_usage(CMD, "%s", err) : cli_fail(CMD, "%s", err);
    /* Pages cached before the move stay charged to the old group and
     * readable for free: out with them, so every page a lookup needs is
     * read into this group's budget. */
    struct coldcache_set cset = {.path = o->sa.st.sqlite_file, .is_db = 1};
    struct coldcache_stat cs;
    if (coldcache_evict(&cset, &cs, err, sizeof err) != 0) {
        memlimit_leave(err, sizeof err);
        return cli_fail(CMD, "--mem-limit: cannot evict %s from the page cache",
                        o->sa.st.sqlite_file);
    }
    struct memlimit_info mi;
    if (memlimit_info(&mi) == 0)
        fprintf(stderr, "kvtest %s: memory limit %lld bytes: cgroup v%d %s\n", CMD,
                (long long)mi.limit, mi.version, mi.dir);
    return 0;
}

/* Out of the group (after every child process has stopped). */
static int serve_mem_leave(const struct serve_opts *o, int rc)
{
    char err[512];
    if (o->mem_limit && memlimit_leave(err, sizeof err) != 0 && rc == 0)
        rc = cli_fail(CMD, "%s", err);
    return rc;
}

static int serve_main(struct serve_opts *o, const struct fd_limits *lim);

int shortener_serve(int argc, char **argv)
{
    struct serve_opts o = {
        .bind_addr = "127.0.0.1",
        .port = 5000, .threads = 8, .idle = 30, .header = 5,
        .processes = 1,
    };
    store_arg_init(&o.sa);
    cache_arg_init(&o.ca);
    int rc = serve_parse(argc, argv, &o);
    if (rc != 0)
        return rc;
#ifdef KVTEST_INJECT
    inject_arm("http");
#endif
    struct fd_limits lim = {0, 0, 0};
    if (fd_limits_setup(o.threads, &lim) != 0)
        return cli_fail(CMD, "the open-file limit (%llu) leaves no room for connections "
                        "with %d threads", (unsigned long long)lim.nofile, (int)o.threads);

    /* Before anything listens: a bad certificate or key takes no port. */
    char err[512];
    if (o.tls_cert && !(o.tls = service_tls_new(o.tls_cert, o.tls_key, err, sizeof err)))
        return cli_fail(CMD, "%s", err);
    /* A client or Valkey that goes away must produce an error, not kill us. */
    signal(SIGPIPE, SIG_IGN);
    if ((rc = serve_mem_enter(&o)) == 0)
        rc = serve_mem_leave(&o, serve_main(&o, &lim));
    service_tls_free(o.tls);
    return rc;
}

/* After the options: serve until stopped. The exit status. */
static int serve_main(struct serve_opts *o, const struct fd_limits *lim)
{
    if (o->processes > 1)   /* a parent that supervises the processes */
        return serve_procs(o, lim);

    char err[512];
    struct service *s = serve_open(o, (int)o->threads, 1, err, sizeof err);
    if (!s)
        return cli_fail(CMD, "%s", err);

    int real_port = (int)o->port;
    int lfd = serve_socket(o->bind_addr, (int)o->port, 0, 1, &real_port);
    if (lfd < 0) {
        service_free(s);
        return lfd == -1 ? 1 : 2;
    }
    int rc = serve_run(o, s, lfd, real_port, lim);
    service_free(s);
    return rc;
}
