/* build: -lhttp_parser -lpthread */
/*
 * fixedcap: an HTTP server whose capacity is known, to check a capacity
 * search against (tests/cli/load/capacity.bats).
 *
 * Every request holds one of W service slots for exactly D microseconds
 * (see serve_one), and slots are handed out first come, first served. That
 * is a queue with W servers and a fixed service time: below W/D requests
 * per second nothing waits, above it the queue grows without bound, so
 * the highest rate that keeps any latency bound of at least a few D is
 * W/D -- a figure the search must find without knowing it. Connections
 * get a thread each (the load generator keeps a few dozen open), so the
 * slots and nothing else limit the rate. Requests are parsed with
 * http_parser; every answer is "200 ok".
 *
 * Build:  make build/fixedcap
 * Usage:  build/fixedcap --workers W --service-us D [--seconds T]
 *         prints "http://127.0.0.1:PORT" on stdout once it listens on a
 *         free loopback port, and exits after T seconds (default 300) or
 *         on SIGTERM/SIGINT. Bad arguments: one line on stderr, exit 2.
 */
#include <errno.h>
#include <http_parser.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static long workers;
static long long service_ns;
static long long *slot_free;   /* when each slot is next free, CLOCK_MONOTONIC ns */

static long long now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (long long)t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* Serve one request: it takes the slot free soonest, in arrival order, and
 * holds it for exactly D on the slot's own timeline (start = when the slot
 * frees or now, whichever is later), so a late wake-up delays an answer
 * but never takes capacity away: the server is exactly W/D. */
static void serve_one(void)
{
    pthread_mutex_lock(&mu);
    long best = 0;
    for (long i = 1; i < workers; i++)
        if (slot_free[i] < slot_free[best])
            best = i;
    long long start = now_ns();
    if (slot_free[best] > start)
        start = slot_free[best];
    long long end = start + service_ns;
    slot_free[best] = end;
    pthread_mutex_unlock(&mu);
    struct timespec t = {.tv_sec = end / 1000000000LL, .tv_nsec = end % 1000000000LL};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL) == EINTR)
        ;
}

struct conn {
    int fd;
    int done;       /* requests completed in this read, to answer */
};

static int on_complete(http_parser *p)
{
    ((struct conn *)p->data)->done++;
    return 0;
}

static int write_all(int fd, const char *s, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, s, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            return -1;
        s += w;
        n -= (size_t)w;
    }
    return 0;
}

static void *conn_main(void *arg)
{
    struct conn c = {.fd = (int)(long)arg};
    prctl(PR_SET_TIMERSLACK, 1UL);
    http_parser p;
    http_parser_settings st;
    http_parser_settings_init(&st);
    st.on_message_complete = on_complete;
    http_parser_init(&p, HTTP_REQUEST);
    p.data = &c;
    static const char ok[] = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n"
                             "Content-Type: text/plain\r\n\r\nok";
    char buf[16384];
    for (;;) {
        ssize_t n = read(c.fd, buf, sizeof buf);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        c.done = 0;
        if (http_parser_execute(&p, &st, buf, (size_t)n) != (size_t)n)
            break;
        int bad = 0;
        for (; c.done > 0 && !bad; c.done--) {
            serve_one();
            bad = write_all(c.fd, ok, sizeof ok - 1) != 0;
        }
        if (bad)
            break;
    }
    close(c.fd);
    return NULL;
}

static void on_alarm(int sig)
{
    (void)sig;
    _exit(0);
}

static long arg_long(const char *name, const char *v, long lo, long hi)
{
    char *end;
    errno = 0;
    long x = strtol(v, &end, 10);
    if (errno || *end || x < lo || x > hi) {
        fprintf(stderr, "fixedcap: %s must be an integer in %ld..%ld, got '%s'\n", name, lo,
                hi, v);
        exit(2);
    }
    return x;
}

int main(int argc, char **argv)
{
    long seconds = 300, service_us = 0;
    for (int i = 1; i < argc; i++) {
        if (i + 1 >= argc) {
            fprintf(stderr, "fixedcap: %s needs a value\n", argv[i]);
            return 2;
        }
        if (strcmp(argv[i], "--workers") == 0)
            workers = arg_long("--workers", argv[++i], 1, 1024);
        else if (strcmp(argv[i], "--service-us") == 0)
            service_us = arg_long("--service-us", argv[++i], 1, 10000000);
        else if (strcmp(argv[i], "--seconds") == 0)
            seconds = arg_long("--seconds", argv[++i], 1, 86400);
        else {
            fprintf(stderr, "fixedcap: unknown argument '%s' (see the comment at the top of "
                    "scripts/tools/fixedcap.c)\n", argv[i]);
            return 2;
        }
    }
    if (!workers || !service_us) {
        fprintf(stderr, "fixedcap: --workers and --service-us are required\n");
        return 2;
    }
    service_ns = service_us * 1000LL;
    slot_free = calloc((size_t)workers, sizeof *slot_free);
    if (!slot_free) {
        fprintf(stderr, "fixedcap: out of memory\n");
        return 1;
    }
    signal(SIGPIPE, SIG_IGN);
    signal(SIGALRM, on_alarm);
    signal(SIGTERM, on_alarm);
    signal(SIGINT, on_alarm);
    alarm((unsigned)seconds);   /* stops by itself, whatever the caller does */
    int ls = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int one = 1;
    setsockopt(ls, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    socklen_t alen = sizeof a;
    if (ls < 0 || bind(ls, (struct sockaddr *)&a, sizeof a) != 0 || listen(ls, 512) != 0 ||
        getsockname(ls, (struct sockaddr *)&a, &alen) != 0) {
        fprintf(stderr, "fixedcap: cannot listen on 127.0.0.1: %s\n", strerror(errno));
        return 1;
    }
    printf("http://127.0.0.1:%d\n", ntohs(a.sin_port));
    fflush(stdout);
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&at, 128 * 1024);
    for (;;) {
        int fd = accept4(ls, NULL, NULL, SOCK_CLOEXEC);
        if (fd < 0) {
            if (errno == EINTR || errno == ECONNABORTED)
                continue;
            fprintf(stderr, "fixedcap: accept: %s\n", strerror(errno));
            return 1;
        }
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        pthread_t th;
        if (pthread_create(&th, &at, conn_main, (void *)(long)fd) != 0)
            close(fd);
    }
}
