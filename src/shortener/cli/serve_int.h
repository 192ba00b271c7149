/* serve_int.h: what serve.c (one process, the options) shares with
 * serve_procs.c (--processes N: the parent and its children): the options,
 * and what both open (serve_open.c) and print (serve_print.c). */
#ifndef KVTEST_SHORTENER_SERVE_INT_H
#define KVTEST_SHORTENER_SERVE_INT_H
#include <stdint.h>

#include "measure/report.h"
#include "shortener/cli/cache_arg.h"
#include "shortener/cli/store_arg.h"

struct ssl_ctx_st;

#define SERVE_CMD "shortener serve"
#define SERVE_PROCS_MAX 256
   /* --processes; SERVICE_SHARE_PROCS_MAX too */

struct serve_opts {
    struct store_arg sa;        /* DBFILE or --store and the store options:
                                   sa.st is the store, parsed once */
    struct cache_arg ca;        /* --cache and its options; ca.cc when ca.on */
    const char *bind_addr;
    int64_t port, threads, idle, header, processes;
    int64_t mem_limit;       /* --mem-limit bytes; 0: none */
    struct report_out out;   /* --json, --csv: the counters at exit */
    const char *tls_cert, *tls_key;   /* --tls-cert, --tls-key; NULL: plain HTTP */
    struct ssl_ctx_st *tls;  /* their context, made before anything listens */
};

struct fd_limits {
    uint64_t nofile;       /* soft open-file limit we run with */
    uint64_t nofile_was;   /* soft limit we found */
    unsigned conn_limit;
};

/* serve_open.c: a TCP socket bound to bind_addr:port (SO_REUSEADDR; with reuseport
 * SO_REUSEPORT too), listening when listen_too. The bound port in
 * *out_port. The fd, or -1 after printing a runtime failure, or -2 after
 * printing a misuse (an address that is not numeric). */
int serve_socket(const char *bind_addr, int port, int reuseport, int listen_too,
                 int *out_port);
/* serve_open.c: the service of o with workers workers: the one place that opens it, for
 * one process and for each of --processes. With ping, a cache that does
 * not answer is warned about (the service still starts: lookups go to the
 * store until it answers). NULL with the reason in err. */
struct service *serve_open(const struct serve_opts *o, int workers, int ping, char *err,
                           size_t errcap);
/* serve_print.c: the start lines on stderr (address, threads, cache,
 * store; the descriptor limits). */
void serve_print_start(const struct serve_opts *o, int port, const struct fd_limits *lim);
/* serve_print.c: the shutdown counters, a cJSON-printed object (taken; NULL prints
 * nothing), as JSON or as CSV. */
void serve_print_json(char *txt, int csv);

#endif
