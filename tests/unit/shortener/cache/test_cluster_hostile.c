/* cluster against a node whose CLUSTER SLOTS no real valkey-server sends:
 * a slot range past 16383, a port of 0 or 65536, a bound sent as text, an
 * endpoint without its port, the two-element endpoint of old servers, a
 * refusal. test_cluster.c drives real servers; a real server cannot be
 * made to say these, so here one child process speaks RESP (read with
 * hiredis's own reader) and answers every CLUSTER command with the reply
 * the test wrote, and anything else with +OK.
 *
 * What must hold: an entry is taken whole or not at all (its slots stay
 * unknown, the other entries are mapped), every bound at its edge; a
 * refusal (NOAUTH) is told apart from any other failure (-2, not -1); a
 * handle whose refresh never got an answer names no answering node. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>
#include "tests/unit/unit.h"

#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include <hiredis/hiredis.h>
#include <hiredis/read.h>

#include "shortener/cache/cache.h"
#include "shortener/cache/cluster.h"
#include "shortener/cache/node.h"
#include "tests/unit/listener.h"

#define TIMEOUT_MS 30000   /* connect and command: a busy machine is no failure */
#define DEAD_PORT 1        /* nothing listens on port 1 of loopback: refused */

/* ---- the stub node ---- */

static pid_t stub_pid = -1;
static int stub_port;
static char stub_reply[4096];   /* what CLUSTER ... is answered with */

static void put(int fd, const char *s, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, s, n);
        if (w <= 0)
            _exit(0);
        s += w;
        n -= (size_t)w;
    }
}

/* One client: each command read whole, then answered. */
static void serve(int fd)
{
    redisReader *rd = redisReaderCreate();
    char buf[4096];
    ssize_t got;
    while (rd && (got = read(fd, buf, sizeof buf)) > 0) {
        if (redisReaderFeed(rd, buf, (size_t)got) != REDIS_OK)
            break;
        void *v;
        while (redisReaderGetReply(rd, &v) == REDIS_OK && v) {
            redisReply *r = v;
            int cluster = r->type == REDIS_REPLY_ARRAY && r->elements > 0 &&
                          r->element[0]->type == REDIS_REPLY_STRING &&
                          strcasecmp(r->element[0]->str, "CLUSTER") == 0;
            if (cluster)
                put(fd, stub_reply, strlen(stub_reply));
            else
                put(fd, "+OK\r\n", 5);
            freeReplyObject(r);
        }
    }
    _exit(0);
}

/* stub_reply: reply with each "%d" replaced by the stub's port. */
static void fill_port(const char *reply)
{
    char *o = stub_reply, *end = stub_reply + sizeof stub_reply - 8;
    for (const char *p = reply; *p; p++) {
        assert_true(o < end);
        if (p[0] == '%' && p[1] == 'd') {
            o += sprintf(o, "%d", stub_port);
            p++;
        } else {
            *o++ = *p;
        }
    }
    *o = '\0';
}

/* A stub on a free loopback port answering CLUSTER with `reply` (RESP,
 * "%d" standing for its own port). Every connection is
 * served by a process of its own, so a reconnect never waits on an older
 * connection; all die with the stub. */
static void stub_start(const char *reply)
{
    int fd = unit_listener(&stub_port);
    fill_port(reply);
    pid_t parent = getpid();
    stub_pid = fork();
    assert_true(stub_pid >= 0);
    if (stub_pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != parent)
            _exit(0);
        signal(SIGCHLD, SIG_IGN);   /* served connections reap themselves */
        for (;;) {
            int c = accept(fd, NULL, NULL);
            if (c < 0)
                continue;
            pid_t p = fork();
            if (p == 0) {
                prctl(PR_SET_PDEATHSIG, SIGKILL);
                close(fd);
                serve(c);
            }
            close(c);
        }
    }
    close(fd);
}

static void stub_stop(void)
{
    if (stub_pid > 0) {
        kill(stub_pid, SIGKILL);
        waitpid(stub_pid, NULL, 0);
    }
    stub_pid = -1;
}

/* ---- the handle ---- */

static struct cache_config cfg;   /* outlives the handle, which keeps a pointer */
static struct cluster *held;      /* freed after a test whatever its outcome */

static struct cluster *over(int port)
{
    memset(&cfg, 0, sizeof cfg);
    cfg.cluster = 1;
    cfg.connect_timeout_ms = TIMEOUT_MS;
    cfg.command_timeout_ms = TIMEOUT_MS;
    snprintf(cfg.host, sizeof cfg.host, "127.0.0.1");
    cfg.port = port;
    cfg.seeds[0] = (struct cache_seed){.host = "127.0.0.1", .port = port};
    cfg.nseeds = 1;
    held = cluster_new(&cfg);
    assert_non_null(held);
    return held;
}

static int teardown(void **st)
{
    (void)st;
    cluster_free(held);
    held = NULL;
    stub_stop();
    return 0;
}

/* A handle over a stub answering CLUSTER SLOTS with `slots`; its refresh
 * must succeed. */
static struct cluster *mapped(const char *slots)
{
    stub_start(slots);
    struct cluster *cl = over(stub_port);
    char err[256] = "";
    int rc = cluster_refresh(cl, 1, err, sizeof err);
    if (rc != 0)
        fail_msg("refresh of %s: %d, %s", slots, rc, err);
    return cl;
}

static void assert_owner(struct cluster *cl, int slot, int port)
{
    struct node *n = cluster_route(cl, slot);
    if (!n)
        fail_msg("slot %d: no owner, expected 127.0.0.1:%d", slot, port);
    assert_string_equal(n->host, "127.0.0.1");
    assert_int_equal(n->port, port);
}

/* RESP pieces: an entry's endpoint [host, port(, id)] */
#define HOST "$9\r\n127.0.0.1\r\n"
#define ID "$3\r\nabc\r\n"
#define EP2 "*2\r\n" HOST ":%d\r\n"          /* the stub, old two-element form */
#define EP3 "*3\r\n" HOST ":%d\r\n" ID       /* the stub, with its id */

/* ---- tests ---- */

/* Every bound at its edge is taken: slots 0 and 16383, ports 1 and
 * 65535, a single-slot range, the two-element endpoint. */
static void test_edges_taken(void **st)
{
    (void)st;
    struct cluster *cl = mapped("*5\r\n"
                                "*3\r\n:0\r\n:99\r\n" EP2
                                "*3\r\n:100\r\n:100\r\n*2\r\n" HOST ":1\r\n"
                                "*3\r\n:101\r\n:199\r\n*3\r\n" HOST ":65535\r\n" ID
                                "*3\r\n:200\r\n:16382\r\n" EP3
                                "*3\r\n:16383\r\n:16383\r\n*3\r\n$0\r\n\r\n:2\r\n" ID);
    assert_owner(cl, 0, stub_port);
    assert_owner(cl, 99, stub_port);
    assert_owner(cl, 100, 1);
    assert_owner(cl, 101, 65535);
    assert_owner(cl, 199, 65535);
    assert_owner(cl, 200, stub_port);
    assert_owner(cl, 16382, stub_port);
    assert_owner(cl, 16383, 2);   /* "" is the node that answered: its host */
    struct node *n = cluster_answered(cl);
    assert_non_null(n);
    assert_int_equal(n->port, stub_port);
}

/* Entry 1, slots 16000..16383, is always good; entry 2 claims slots in
 * 0..199 and is bad: left out whole (no slot of 0..15999 known), the good
 * one kept. */
static void refused_entry(const char *bad)
{
    char slots[2048] = "*2\r\n*3\r\n:16000\r\n:16383\r\n" EP3;
    assert_true(strlen(slots) + strlen(bad) < sizeof slots);
    strcat(slots, bad);
    struct cluster *cl = mapped(slots);
    assert_owner(cl, 16000, stub_port);
    assert_owner(cl, 16383, stub_port);
    for (int s = 0; s < 16000; s++)
        if (cluster_route(cl, s))
            fail_msg("slot %d mapped from the hostile entry %s", s, bad);
    teardown(NULL);
}

static void test_hostile_entries_left_out(void **st)
{
    (void)st;
    refused_entry("*3\r\n$3\r\n100\r\n:199\r\n" EP3);        /* start as text */
    refused_entry("*3\r\n:0\r\n$3\r\n199\r\n" EP3);          /* end as text (read as 0: slot 0) */
    refused_entry("*3\r\n:100\r\n:16384\r\n" EP3);           /* past the last slot */
    refused_entry("*3\r\n:-1\r\n:199\r\n" EP3);              /* before the first */
    refused_entry("*3\r\n:199\r\n:100\r\n" EP3);             /* backwards */
    refused_entry("*3\r\n:100\r\n:199\r\n*3\r\n" HOST ":0\r\n" ID);       /* port 0 */
    refused_entry("*3\r\n:100\r\n:199\r\n*3\r\n" HOST ":65536\r\n" ID);   /* port 65536 */
    refused_entry("*3\r\n:100\r\n:199\r\n*3\r\n" HOST ":-6379\r\n" ID);
    refused_entry("*3\r\n:100\r\n:199\r\n*3\r\n" HOST "$4\r\n6379\r\n" ID);   /* port as text */
    refused_entry("*3\r\n:100\r\n:199\r\n*1\r\n" HOST);      /* no port */
    refused_entry("*3\r\n:100\r\n:199\r\n*0\r\n");           /* no endpoint at all */
    refused_entry("*3\r\n:100\r\n:199\r\n*2\r\n:1\r\n:6379\r\n");   /* host a number */
    refused_entry("*3\r\n:100\r\n:199\r\n:7\r\n");           /* endpoint not an array */
    refused_entry("*2\r\n:100\r\n:199\r\n");                 /* no endpoint */
    refused_entry(":100\r\n");                               /* entry not an array */
}

/* A refusal (NOAUTH, WRONGPASS, NOPERM) says so: -2, the reason kept; any
 * other failure is -1. */
static void refresh_fails(const char *reply, int want, const char *says)
{
    stub_start(reply);
    struct cluster *cl = over(stub_port);
    char err[256] = "";
    int rc = cluster_refresh(cl, 1, err, sizeof err);
    if (rc != want || !strstr(err, says))
        fail_msg("CLUSTER SLOTS answered %s: refresh %d \"%s\", expected %d \"%s\"", reply, rc,
                 err, want, says);
    assert_null(cluster_route(cl, 0));
    teardown(NULL);
}

static void test_refusal_told_apart(void **st)
{
    (void)st;
    refresh_fails("-NOAUTH Authentication required.\r\n", -2, "NOAUTH Authentication required.");
    refresh_fails("-NOPERM this user has no permissions\r\n", -2, "NOPERM");
    refresh_fails("-ERR This instance has cluster support disabled\r\n", -1,
                  "cluster support disabled");
    refresh_fails("*0\r\n", -1, "no slots are served");
    refresh_fails("+OK\r\n", -1, "no slots are served");
}

/* A handle that never had an answer names no answering node. */
static void test_no_answer_no_node(void **st)
{
    (void)st;
    struct cluster *cl = over(DEAD_PORT);
    assert_null(cluster_answered(cl));
    char err[256] = "";
    assert_int_equal(cluster_refresh(cl, 1, err, sizeof err), -1);
    assert_null(cluster_answered(cl));
}

static void prepare(void)
{
    signal(SIGPIPE, SIG_IGN);
}

#define TEST(f) cmocka_unit_test_teardown(f, teardown)
UNIT_MAIN_PREPARED(prepare, NULL, NULL,
    TEST(test_edges_taken),
    TEST(test_hostile_entries_left_out),
    TEST(test_refusal_told_apart),
    TEST(test_no_answer_no_node))
