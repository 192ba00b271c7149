/* serve_open: what a serving process opens, for one process (serve.c)
 * and for each of --processes (serve_procs.c) alike: the service of the
 * options, its cache pinged, and the listening socket (serve_int.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "base/cli.h"
#include "shortener/cli/serve_int.h"
#include "shortener/service/service.h"

#define CMD SERVE_CMD

struct service *serve_open(const struct serve_opts *o, int workers, int ping, char *err,
                           size_t errcap)
{
    int use_cache = o->ca.on;
    struct service_opts so = {workers, use_cache ? &o->ca.cc : NULL};
    struct service *s = service_new(&o->sa.st, &so, err, errcap);
    char why[512];
    int rc = s && ping && use_cache
                 ? cache_ping(service_worker_cache(service_worker_at(s, 0)), why, sizeof why)
                 : 0;
    if (rc == -2) {   /* a password or an ACL rule: no reconnect mends it */
        snprintf(err, errcap, "cache %s: %s", o->ca.url, why);
        service_free(s);
        return NULL;
    }
    if (rc != 0)
        cli_warn(CMD, "cache %s not answering (%s); serving from %s until it does",
                 o->ca.url, why, o->sa.st.kind == LINKS_KIND_POSTGRES ? "PostgreSQL" : "SQLite");
    return s;
}

int serve_socket(const char *bind_addr, int port, int reuseport, int listen_too,
                 int *out_port)
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
        cli_usage(CMD, "--bind: '%s' is not a numeric IPv4 or IPv6 address", bind_addr);
        return -2;
    }
    int fd = socket(ss.ss_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) {
        cli_fail(CMD, "socket: %s", strerror(errno));
        return -1;
    }
    int one = 1;
    setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    /* Set here: the HTTP glue (h2o) is handed this socket, it opens none. */
    if (reuseport && setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one) != 0) {
        cli_fail(CMD, "SO_REUSEPORT: %s", strerror(errno));
        close(fd);
        return -1;
    }
    if (bind(fd, (struct sockaddr *)&ss, sl) != 0 || (listen_too && listen(fd, 1024) != 0)) {
        cli_fail(CMD, "%s port %d: %s", bind_addr, port, strerror(errno));
        close(fd);
        return -1;
    }
    if (getsockname(fd, (struct sockaddr *)&ss, &sl) == 0)
        *out_port = ntohs(ss.ss_family == AF_INET ? a4->sin_port : a6->sin6_port);
    return fd;
}
