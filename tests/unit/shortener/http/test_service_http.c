/* service_http: starting the HTTP glue on descriptors at the edges (0,
 * the last one a process may open) and failing to start it. Whatever
 * fails, service_http_start returns NULL with the listening socket closed
 * and nothing else left open or allocated (LeakSanitizer reads the rest
 * at exit). The requests themselves are tested over real HTTP in
 * tests/cli/shortener/shortener_http.bats. */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <dirent.h>
#include <netinet/in.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include "tests/unit/unit.h"

/* As in service_http.c: Debian's libh2o-evloop is built for epoll. */
#define H2O_USE_EPOLL 1
#include <h2o.h>

#include "shortener/http/service_http.h"
#include "shortener/service/service.h"
#include "shortener/store/links.h"
#include "tests/unit/listener.h"
#include "tests/unit/shortener/service_fixture.h"

/* A loop array for 2^31 threads is refused: let the sanitizer's
 * allocator return NULL for it instead of aborting. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
    return "allocator_may_return_null=1";
}

/* The next calloc fails when armed (the first one service_http_start
 * makes is its own state's). */
static int calloc_fail_next;
static void *(*next_calloc)(size_t, size_t);

void *calloc(size_t n, size_t size)
{
    if (!next_calloc) {
        /* dlsym may itself ask for zeroed memory: none is needed yet. */
        static int resolving;
        if (resolving)
            return NULL;
        resolving = 1;
        *(void **)&next_calloc = dlsym(RTLD_NEXT, "calloc");
        resolving = 0;
    }
    if (calloc_fail_next) {
        calloc_fail_next = 0;
        errno = ENOMEM;
        return NULL;
    }
    return next_calloc(n, size);
}

/* Open descriptors but epoll's: h2o 2.2.5's h2o_evloop_destroy keeps
 * its epoll descriptor (one per loop, once per server: left alone). */
static int open_fds(void)
{
    int n = 0;
    DIR *d = opendir("/proc/self/fd");
    assert_non_null(d);
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        char p[300], to[64] = "";
        snprintf(p, sizeof p, "/proc/self/fd/%s", e->d_name);
        ssize_t l = readlink(p, to, sizeof to - 1);
        n += e->d_name[0] != '.' && l > 0 && strncmp(to, "anon_inode:[eventpoll]", 22) != 0;
    }
    closedir(d);
    return n - 1;   /* the directory's own */
}

static int is_open(int fd)
{
    return fcntl(fd, F_GETFD) != -1 || errno != EBADF;
}

/* GET /heart-beat over a new connection: the status line. */
static void heart_beat(int port, char *line, size_t cap)
{
    int c = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    assert_true(c >= 0);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(connect(c, (struct sockaddr *)&a, sizeof a), 0);
    static const char req[] = "GET /heart-beat HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";
    assert_int_equal(write(c, req, sizeof req - 1), (ssize_t)(sizeof req - 1));
    char buf[1024];
    size_t got = 0;
    for (ssize_t r; got < sizeof buf - 1 && (r = read(c, buf + got, sizeof buf - 1 - got)) > 0;)
        got += (size_t)r;
    close(c);
    buf[got] = '\0';
    snprintf(line, cap, "%.*s", (int)strcspn(buf, "\r\n"), buf);
}

static struct service_http_opts opts(unsigned threads)
{
    return (struct service_http_opts){.threads = threads, .conn_limit = 64, .header_s = 5,
                                      .idle_s = 5};
}

/* A listening socket that is descriptor 0 (a server started with its
 * standard input closed) is served like any other, by one loop and by
 * two (the first of which gets a copy). */
static void test_descriptor_zero(void **st)
{
    struct fixture *fx = *st;
    struct service *s = fixture_service(fx, 3);   /* 1 + 2 loops */
    int saved = dup(0);
    assert_true(saved > 0);
    for (unsigned threads = 1; threads <= 2; threads++) {
        close(0);
        int port;
        int lfd = unit_listener(&port);
        assert_int_equal(lfd, 0);
        struct service_http_opts o = opts(threads);
        struct service_http *h = service_http_start(s, lfd, &o);
        assert_non_null(h);
        char line[128];
        heart_beat(port, line, sizeof line);
        service_http_stop(h);
        assert_string_equal(line, "HTTP/1.1 200 OK");
        assert_false(is_open(0));   /* the stop closed it */
    }
    assert_int_equal(dup2(saved, 0), 0);
    close(saved);
    service_free(s);
}

/* More loops than the service has workers: the second loop cannot
 * claim one. The first loop was set up already; it is taken down from
 * the calling thread, which also frees the socket buffers h2o keeps for
 * reuse in that thread. */
static void test_more_loops_than_workers(void **st)
{
    struct fixture *fx = *st;
    struct service *s = fixture_service(fx, 1);
    /* Buffers for h2o's per-thread reuse list, as a loop that read
     * requests in this thread would leave them. */
    h2o_mem_recycle_t *rc = &h2o_socket_buffer_prototype.allocator;
    h2o_buffer_t *b[3];
    for (int i = 0; i < 3; i++) {
        h2o_buffer_init(&b[i], &h2o_socket_buffer_prototype);
        h2o_buffer_reserve(&b[i], 1);
    }
    for (int i = 0; i < 3; i++)
        h2o_buffer_dispose(&b[i]);
    assert_true(rc->cnt >= 2);
    int before = open_fds(), port;
    int lfd = unit_listener(&port);
    struct service_http_opts o = opts(2);
    assert_null(service_http_start(s, lfd, &o));
    assert_false(is_open(lfd));
    assert_int_equal(open_fds(), before);
    assert_int_equal(rc->cnt, 0);
    service_free(s);
}

/* The first loop cannot get its copy of the socket (no descriptor left
 * under RLIMIT_NOFILE): the socket is closed, nothing is left open. */
static void test_no_descriptor_for_a_copy(void **st)
{
    struct fixture *fx = *st;
    struct service *s = fixture_service(fx, 3);
    int port;
    int lfd = unit_listener(&port);
    /* Fill every free descriptor below lfd, then forbid any above it. */
    int fill[64], nfill = 0;
    while (nfill < 64 && (fill[nfill] = dup(lfd)) < lfd)
        nfill++;
    assert_true(nfill < 64);
    close(fill[nfill]);   /* the copy that landed above lfd */
    int before = open_fds();
    struct rlimit old, lim;
    assert_int_equal(getrlimit(RLIMIT_NOFILE, &old), 0);
    lim = old;
    lim.rlim_cur = (rlim_t)lfd + 1;
    assert_int_equal(setrlimit(RLIMIT_NOFILE, &lim), 0);
    struct service_http_opts o = opts(3);
    struct service_http *h = service_http_start(s, lfd, &o);
    int after = open_fds();
    assert_int_equal(setrlimit(RLIMIT_NOFILE, &old), 0);
    assert_null(h);
    assert_false(is_open(lfd));
    assert_int_equal(after, before - 1);
    for (int i = 0; i < nfill; i++)
        close(fill[i]);
    service_free(s);
}

/* No memory for the loops (2^31 of them), or for the server's own state:
 * NULL, the socket closed, nothing leaked (LeakSanitizer). */
static void test_no_memory(void **st)
{
    struct fixture *fx = *st;
    struct service *s = fixture_service(fx, 1);
    int before = open_fds(), port;
    int lfd = unit_listener(&port);
    struct service_http_opts o = opts(1u << 31);
    assert_null(service_http_start(s, lfd, &o));
    assert_false(is_open(lfd));
    assert_int_equal(open_fds(), before);

    lfd = unit_listener(&port);
    o = opts(1);
    calloc_fail_next = 1;
    struct service_http *h = service_http_start(s, lfd, &o);
    int armed = calloc_fail_next;
    calloc_fail_next = 0;
    assert_int_equal(armed, 0);
    assert_null(h);
    assert_false(is_open(lfd));
    assert_int_equal(open_fds(), before);
    service_free(s);
}

UNIT_MAIN(NULL, NULL,
    cmocka_unit_test_setup_teardown(test_descriptor_zero, fixture_dir_setup,
                                    fixture_teardown),
    cmocka_unit_test_setup_teardown(test_more_loops_than_workers, fixture_dir_setup,
                                    fixture_teardown),
    cmocka_unit_test_setup_teardown(test_no_descriptor_for_a_copy, fixture_dir_setup,
                                    fixture_teardown),
    cmocka_unit_test_setup_teardown(test_no_memory, fixture_dir_setup, fixture_teardown))
