/* serve_procs: "kvtest shortener serve --processes N" (N > 1).
 *
 * The parent forks N service processes and supervises them; it serves
 * nothing itself. Each child opens its own SQLite and Valkey connections
 * after the fork (a connection never crosses a fork: the parent closes its
 * start-up check's connections first) and its own listening socket with
 * SO_REUSEPORT on the one port, so the kernel spreads new connections over
 * the children. The database is in WAL mode: a link one child commits is
 * seen by the next read transaction of every other (no process keeps
 * links in memory but valkey+track's map, which Valkey invalidates).
 *
 * The parent keeps a socket bound to the port, never listening (so it is
 * given no connection): the port stays ours while a child restarts.
 * Counters: service_share.h (a shared mapping made before the fork).
 * A child that dies is restarted in its slot; more than SERVE_RESTART_BURST
 * restarts within SERVE_RESTART_WINDOW_NS is a loop, and the parent gives
 * up (serve_procs.h). */
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/cli.h"
#include "measure/clock.h"
#include "shortener/cli/serve_int.h"
#include "shortener/cli/serve_procs.h"
#include "shortener/http/service_http.h"
#include "shortener/service/service.h"
#include "shortener/service/service_share.h"

#define CMD SERVE_CMD
#define STOP_GRACE_NS 10000000000ull       /* children finish in-flight
                                              requests within 5 s */

_Static_assert(SERVE_PROCS_MAX <= SERVICE_SHARE_PROCS_MAX, "a slot per process");

struct procs {
    const struct serve_opts *o;
    const struct fd_limits *lim;
    struct service_share *sh;
    int port;                  /* the real port (--port 0 resolved) */
    int resv_fd;               /* bound, never listening */
    pid_t parent;
    pid_t pid[SERVE_PROCS_MAX];   /* 0: slot empty */
    struct serve_restarts restarts;
};

static sigset_t stop_signals(void)
{
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGINT);
    sigaddset(&set, SIGTERM);
    return set;
}

/* The body of child k: serve until SIGINT/SIGTERM (blocked since before
 * the fork, so only sigwait sees them) or the parent's death. ready_fd
 * (or -1) gets one byte once the child accepts connections. */
static int child_run(struct procs *p, int k, int ready_fd)
{
    const struct serve_opts *o = p->o;
    close(p->resv_fd);
    /* A parent killed with SIGKILL cannot stop us: the kernel does. */
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != p->parent)
        return 1;
    char err[512];
    struct service *s = serve_open(o, (int)o->threads, 0, err, sizeof err);
    if (!s)
        return cli_fail(CMD, "process %d: %s", k, err);
    if (service_attach_share(s, p->sh, k) != 0) {   /* cannot happen: one share for all */
        service_free(s);
        return cli_fail(CMD, "process %d: no slot for its counters", k);
    }
    int port;
    int lfd = serve_socket(o->bind_addr, p->port, 1, 1, &port);
    struct service_http_opts ho = {(unsigned)o->threads, p->lim->conn_limit,
                                   (unsigned)o->header, (unsigned)o->idle, o->tls};
    struct service_http *h = lfd < 0 ? NULL : service_http_start(s, lfd, &ho);
    if (!h) {
        service_free(s);
        return lfd < 0 ? 1 : cli_fail(CMD, "process %d: cannot start the HTTP server", k);
    }
    if (ready_fd >= 0) {
        ssize_t w = write(ready_fd, "r", 1);
        (void)w;   /* a parent that is gone sends SIGTERM anyway */
        close(ready_fd);
    }
    sigset_t stop = stop_signals();
    int sig = 0;
    sigwait(&stop, &sig);
    service_http_stop(h);
    service_free(s);
    return 0;
}

/* Fork child k. 0, or -1 with errno. */
static int start_one(struct procs *p, int k, int ready_fd, int ready_rd)
{
    fflush(NULL);   /* nothing buffered is written twice */
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (pid == 0) {
        if (ready_rd >= 0)
            close(ready_rd);
        exit(child_run(p, k, ready_fd));
    }
    p->pid[k] = pid;
    service_share_set_pid(p->sh, k, (long)pid);
    return 0;
}

static int slot_of(const struct procs *p, pid_t pid)
{
    for (int k = 0; k < (int)p->o->processes; k++)
        if (p->pid[k] == pid)
            return k;
    return -1;
}

static void describe(int st, char *buf, size_t cap)
{
    if (WIFSIGNALED(st))
        snprintf(buf, cap, "killed by signal %d", WTERMSIG(st));
    else
        snprintf(buf, cap, "exited with status %d", WEXITSTATUS(st));
}

/* SIGTERM to every child, then wait for all (SIGKILL after the grace).
 * 0 when every child stopped with status 0, else 1 after one line (none
 * when quiet: a child that failed to start said why itself). */
static int stop_all(struct procs *p, int quiet)
{
    int n = (int)p->o->processes, bad = 0;
    for (int k = 0; k < n; k++)
        if (p->pid[k] > 0)
            kill(p->pid[k], SIGTERM);
    uint64_t deadline = clock_now_ns() + STOP_GRACE_NS;
    for (;;) {
        int st;
        pid_t pid = waitpid(-1, &st, WNOHANG);
        if (pid < 0 && errno == ECHILD)
            break;
        int k = pid > 0 ? slot_of(p, pid) : -1;
        if (k >= 0) {
            p->pid[k] = 0;
            if (!bad && !quiet && !(WIFEXITED(st) && WEXITSTATUS(st) == 0)) {
                char why[64];
                describe(st, why, sizeof why);
                cli_fail(CMD, "process %d (pid %ld) %s while stopping", k, (long)pid, why);
                bad = 1;
            }
        }
        if (pid > 0)
            continue;
        if (clock_now_ns() > deadline)
            for (k = 0; k < n; k++)
                if (p->pid[k] > 0)
                    kill(p->pid[k], SIGKILL);
        struct timespec ts = {0, 10000000};
        nanosleep(&ts, NULL);
    }
    return bad;
}

/* The initial N, each ready to accept before we say we listen. 0, or the
 * exit status after the children that started were stopped again (the
 * child that failed said why). */
static int start_all(struct procs *p)
{
    int fds[2];
    if (pipe(fds) != 0)
        return cli_fail(CMD, "pipe: %s", strerror(errno));
    int n = (int)p->o->processes, started = 0;
    for (; started < n; started++)
        if (start_one(p, started, fds[1], fds[0]) != 0)
            break;
    int fork_errno = errno;
    close(fds[1]);   /* now EOF means: every child either wrote or died */
    int ready = 0;
    char c;
    ssize_t r;
    while (ready < started && ((r = read(fds[0], &c, 1)) == 1 || (r < 0 && errno == EINTR)))
        ready += r == 1;
    close(fds[0]);
    if (started == n && ready == n)
        return 0;
    stop_all(p, 1);
    if (started < n)
        return cli_fail(CMD, "fork: %s", strerror(fork_errno));
    return 1;
}

int serve_restart_take(struct serve_restarts *r, uint64_t now)
{
    uint64_t *oldest = &r->ns[r->n % SERVE_RESTART_BURST];
    if (r->n >= SERVE_RESTART_BURST && now - *oldest < SERVE_RESTART_WINDOW_NS)
        return 0;
    *oldest = now;   /* the newest now; the next slot holds the oldest */
    r->n++;
    return 1;
}

/* Child pid died with status st: restart it unless serve_restart_take
 * says it is a loop. 0, or -1 to give up (after one line). */
static int restart(struct procs *p, pid_t pid, int st)
{
    int k = slot_of(p, pid);
    if (k < 0)
        return 0;   /* not one of ours (cannot happen) */
    p->pid[k] = 0;
    char why[64];
    describe(st, why, sizeof why);
    if (!serve_restart_take(&p->restarts, clock_now_ns())) {
        cli_fail(CMD, "process %d (pid %ld) %s after %d restarts within %llu s; giving up",
                 k, (long)pid, why, SERVE_RESTART_BURST,
                 (unsigned long long)(SERVE_RESTART_WINDOW_NS / 1000000000ull));
        return -1;
    }
    if (start_one(p, k, -1, -1) != 0) {
        cli_fail(CMD, "process %d (pid %ld) %s; cannot restart it: fork: %s", k, (long)pid,
                 why, strerror(errno));
        return -1;
    }
    service_share_restarted(p->sh);
    fprintf(stderr, "kvtest " CMD ": process %d (pid %ld) %s; restarted as pid %ld\n", k,
            (long)pid, why, (long)p->pid[k]);
    return 0;
}

/* Until SIGINT/SIGTERM: restart children that die. 0, or 1 on giving up. */
static int supervise(struct procs *p)
{
    sigset_t set = stop_signals();
    sigaddset(&set, SIGCHLD);
    for (;;) {
        int sig = sigwaitinfo(&set, NULL);
        if (sig == SIGINT || sig == SIGTERM)
            return 0;
        if (sig != SIGCHLD)
            continue;   /* EINTR */
        int st;
        pid_t pid;
        while ((pid = waitpid(-1, &st, WNOHANG)) > 0)
            if (restart(p, pid, st) != 0)
                return 1;
    }
}

/* One connection before any fork: the database and the cache are checked
 * once, with one line on failure, not once per child. Closed again: a
 * connection never crosses a fork. */
static int check_once(const struct serve_opts *o)
{
    char err[512];
    struct service *s = serve_open(o, 1, 1, err, sizeof err);
    if (!s)
        return cli_fail(CMD, "%s", err);
    service_free(s);
    return 0;
}

/* The port: a first socket without SO_REUSEPORT finds out whether anybody
 * listens there already (a second serve --processes too, which would
 * otherwise join our group) and which port 0 means; the socket we keep is
 * bound with SO_REUSEPORT, as the children's are. The fd, or -status. */
static int reserve_port(const struct serve_opts *o, int *port)
{
    int fd = serve_socket(o->bind_addr, (int)o->port, 0, 0, port);
    if (fd < 0)
        return fd == -1 ? -1 : -2;
    close(fd);
    fd = serve_socket(o->bind_addr, *port, 1, 0, port);
    return fd < 0 ? -1 : fd;
}

int serve_procs(const struct serve_opts *o, const struct fd_limits *lim)
{
    int rc = check_once(o);
    if (rc != 0)
        return rc;
    struct procs p = {.o = o, .lim = lim, .parent = getpid()};   /* no child, no restart */
    p.resv_fd = reserve_port(o, &p.port);
    if (p.resv_fd < 0)
        return -p.resv_fd;
    struct service_kind kind = {.has_cache = o->ca.on,
                                .has_track = o->ca.cc.track,
                                .has_cluster = o->ca.cc.cluster,
                                .store = o->sa.st.kind};
    p.sh = service_share_new((int)o->processes, (int)o->threads, &kind);
    if (!p.sh) {
        close(p.resv_fd);
        return cli_fail(CMD, "shared counters: mmap: %s", strerror(errno));
    }
    /* An inherited SIG_IGN would make the kernel reap our children
     * unseen: no restart could ever happen. */
    signal(SIGCHLD, SIG_DFL);
    /* Blocked before the first fork: the children inherit the mask, and
     * the parent takes these signals only in sigwaitinfo. */
    sigset_t set = stop_signals(), old;
    sigaddset(&set, SIGCHLD);
    sigprocmask(SIG_BLOCK, &set, &old);
    rc = start_all(&p);
    if (rc == 0) {
        serve_print_start(o, p.port, lim);
        rc = supervise(&p);
        /* The stop has begun: a second SIGINT or SIGTERM is dropped, not
         * left pending to kill us with 143 when the mask is restored (the
         * stop is bounded: SIGKILL after the grace). */
        signal(SIGINT, SIG_IGN);
        signal(SIGTERM, SIG_IGN);
        int stopped = stop_all(&p, rc != 0);
        if (rc == 0 && stopped == 0) {
            if (o->out.json)
                serve_print_json(service_share_stats_json(p.sh), o->out.csv);
            else
                service_share_stats_print(p.sh, stdout);
            fflush(stdout);
        }
        rc = rc || stopped;
    }
    sigprocmask(SIG_SETMASK, &old, NULL);
    service_share_free(p.sh);
    close(p.resv_fd);
    return rc;
}
