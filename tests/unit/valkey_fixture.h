/* A private valkey-server for a unit test binary: started on a free
 * loopback port from a scratch directory, with a control connection of
 * the test's own, and stopped by PID. Shared because every binary that
 * talks to a real Valkey (cache/test_cluster, cache/test_track) needs the
 * same careful start (a port below the ephemeral range, its cluster bus
 * port free too, retried when another process takes the port meanwhile)
 * and the same stop (a SIGSTOPped server woken before SIGTERM), and one
 * fix to either belongs to all of them. Functions are static inline so a
 * binary using only some of them builds without unused warnings.
 * The scratch directory is scratch.h's. Include after tests/unit/unit.h
 * (valkey_ctlv fails the test). */
#ifndef TESTS_UNIT_VALKEY_FIXTURE_H
#define TESTS_UNIT_VALKEY_FIXTURE_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <hiredis/hiredis.h>

#include "measure/clock.h"
#include "tests/unit/scratch.h"

struct valkey_server {
    pid_t pid;
    int port;
    redisContext *ctl;   /* the test's own connection, for setup */
};

#define VALKEY_BUS_OFFSET 10000   /* a cluster node also listens on port + this */

/* 1 when nothing is bound to port on loopback. */
static inline int valkey_port_free(int port)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in sa = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int ok = fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof sa) == 0;
    if (fd >= 0)
        close(fd);
    return ok;
}

/* A port nobody listens on, 20000-29999, below the ephemeral range and
 * below the cluster nodes' bus ports (30000-32767: no other test server
 * takes one while suites run side by side), as tests/lib/servers.bash
 * picks them. For a cluster node its bus port
 * too: both free, and the bus below the ephemeral range as well (it
 * starts at 32768), else a busy machine's outgoing connections often hold
 * it and the node exits ("Failed listening on port ... (cluster)"). */
static inline int valkey_free_port(unsigned *seed, int cluster)
{
    for (int tries = 0; tries < 200; tries++) {
        int span = cluster ? 32768 - VALKEY_BUS_OFFSET - 20000 : 10000;
        int port = 20000 + (int)(rand_r(seed) % (unsigned)span);
        if (valkey_port_free(port) && (!cluster || valkey_port_free(port + VALKEY_BUS_OFFSET)))
            return port;
    }
    return -1;
}

/* The process id the server on c says it has (INFO server), or -1. */
static inline long valkey_pid_of(redisContext *c)
{
    redisReply *r = redisCommand(c, "INFO server");
    long pid = -1;
    if (r && r->type == REDIS_REPLY_STRING) {
        const char *p = strstr(r->str, "process_id:");
        if (p)
            pid = atol(p + 11);
    }
    if (r)
        freeReplyObject(r);
    return pid;
}

/* Wait until the server s->pid answers PING on s->port (its control
 * connection is then s->ctl): 0; -1 when it exited (the port was taken
 * meanwhile; reaped), when the server answering is another's (a suite
 * beside this one took the port between the check and the bind: ours
 * is killed and reaped, theirs left alone), or when it stayed silent for
 * 30 s (killed and reaped; a busy machine can take seconds to start it). */
static inline int valkey_await(struct valkey_server *s)
{
    for (int i = 0; i < 600; i++) {   /* up to 30 s */
        int st;
        if (waitpid(s->pid, &st, WNOHANG) == s->pid)
            return -1;   /* reaped: no kill */
        struct timeval tv = {1, 0};
        redisContext *c = redisConnectWithTimeout("127.0.0.1", s->port, tv);
        if (c && !c->err) {
            redisReply *r = redisCommand(c, "PING");
            int up = r && r->type == REDIS_REPLY_STATUS;
            if (r)
                freeReplyObject(r);
            if (up && valkey_pid_of(c) == (long)s->pid) {
                s->ctl = c;
                return 0;
            }
            if (up) {
                redisFree(c);
                break;
            }
        }
        redisFree(c);
        usleep(50000);
    }
    kill(s->pid, SIGKILL);
    waitpid(s->pid, NULL, 0);
    return -1;
}

/* Start valkey-server in dir with extra arguments (NULL-terminated; a
 * cluster node when they hold --cluster-enabled), wait until it answers
 * PING. 0, or -1 after 5 ports. */
static inline int valkey_start(struct valkey_server *s, const char *dir, const char *name,
                               const char *const *extra)
{
    static unsigned seed;
    if (!seed)
        seed = (unsigned)getpid() ^ (unsigned)clock_now_ns();
    int cluster = 0;
    for (int i = 0; extra && extra[i]; i++)
        cluster |= strcmp(extra[i], "--cluster-enabled") == 0;
    for (int attempt = 0; attempt < 5; attempt++) {
        s->port = valkey_free_port(&seed, cluster);
        if (s->port < 0)
            return -1;
        char port[16], conf[128], log[128];
        snprintf(port, sizeof port, "%d", s->port);
        snprintf(conf, sizeof conf, "nodes-%s-%d.conf", name, s->port);
        snprintf(log, sizeof log, "%s/%s.log", dir, name);
        const char *argv[40] = {"valkey-server", "--port", port, "--bind", "127.0.0.1",
                                "--save", "", "--appendonly", "no", "--dir", dir,
                                "--logfile", log, "--cluster-config-file", conf};
        int argc = 15;
        for (int i = 0; extra && extra[i] && argc < 38; i++)
            argv[argc++] = extra[i];
        argv[argc] = NULL;
        s->pid = fork();
        if (s->pid < 0)
            return -1;
        if (s->pid == 0) {
            /* dies with this test, even one killed or crashed midway */
            prctl(PR_SET_PDEATHSIG, SIGKILL);
            execvp(argv[0], (char *const *)argv);
            _exit(127);
        }
        if (valkey_await(s) == 0)
            return 0;
        s->pid = 0;
    }
    return -1;
}

static inline void valkey_stop(struct valkey_server *s)
{
    if (s->ctl)
        redisFree(s->ctl);
    s->ctl = NULL;
    if (s->pid <= 0)
        return;
    kill(s->pid, SIGCONT);   /* a test may have left it stopped */
    kill(s->pid, SIGTERM);
    for (int i = 0; i < 100; i++) {
        if (waitpid(s->pid, NULL, WNOHANG) == s->pid) {
            s->pid = 0;
            return;
        }
        usleep(50000);
    }
    kill(s->pid, SIGKILL);
    waitpid(s->pid, NULL, 0);
    s->pid = 0;
}

/* A command on s's control connection that must succeed (else the test
 * fails, naming it); the reply's integer (0 for other replies). */
static inline long long valkey_ctlv(struct valkey_server *s, const char *fmt, va_list ap)
{
    redisReply *r = redisvCommand(s->ctl, fmt, ap);
    if (!r || r->type == REDIS_REPLY_ERROR)
        fail_msg("%s on port %d: %s", fmt, s->port, r ? r->str : s->ctl->errstr);
    long long v = r->integer;
    freeReplyObject(r);
    return v;
}

#endif
