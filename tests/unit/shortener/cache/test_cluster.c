/* cluster: slot map, refresh and redirects against real valkey-servers.
 *
 * Three private servers on 127.0.0.1, started once for the binary (each on
 * a free port, from a scratch directory, stopped by PID):
 *  - A: cluster mode, --cluster-announce-ip 127.0.0.1, so its CLUSTER
 *    SLOTS names it "127.0.0.1";
 *  - B: cluster mode without an announced address, so its CLUSTER SLOTS
 *    says "" (or "?" with cluster-preferred-endpoint-type hostname): "the
 *    node that answered";
 *  - P: a plain server, which answers CLUSTER SLOTS with an error.
 * Each node is a one-node cluster; a test gives it the slots it needs
 * (CLUSTER FLUSHSLOTS, ADDSLOTSRANGE), so the expected owner of every slot
 * is known from what the test assigned. Redirects are hand-built error
 * replies (cluster_redirect is a function of the reply alone).
 *
 * The map refreshes at most once per CLUSTER_REFRESH_MS (real time), so
 * some tests sleep just past it (REFRESH_WAIT_US) to see whether a stale
 * map was re-read: map_refreshes says.
 *
 * Time: cluster.c and node.c read the real clock, so no verdict may rest
 * on something running quickly. Sleeping past a bound is certain (at
 * least that long); that something has not happened yet is not, so such
 * a check brackets the calls with clock readings and runs only when the
 * bound held, else the test skips, saying why ("skip: ..."). Where the
 * bound is not the subject it is taken away instead: a node's backoff is
 * set to outlast the test, and a map that must stay as redirects left it
 * is one no node would replace (each serves no slot). Timeouts are
 * generous (TIMEOUT_MS) except where a stopped server is the subject. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "tests/unit/unit.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>

#include <hiredis/hiredis.h>

#include "measure/clock.h"
#include "shortener/cache/cache.h"
#include "shortener/cache/cluster.h"
#include "shortener/cache/node.h"
#include "tests/unit/valkey_fixture.h"
#include "tests/unit/shortener/cache/cache_servers.h"

/* Out of memory must be answered: let the sanitizer's allocator return
 * NULL for a request over 3 GiB (a huge tracking map) instead of
 * aborting. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
    /* detect_stack_use_after_return: a handle keeps its configuration by
     * pointer, and one made from a helper's local once read garbage for
     * it (a redirect then saw cfg->track set and failed) */
    return "allocator_may_return_null=1:max_allocation_size_mb=3072:"
           "detect_stack_use_after_return=1";
}

#define MS ((uint64_t)1000000)
#define REFRESH_WAIT_US ((CLUSTER_REFRESH_MS + 15) * 1000)
#define DEAD_PORT 1   /* nothing listens on port 1 of loopback: refused */
#define TIMEOUT_MS CACHE_WAIT_MS   /* connect and command: a busy machine is no failure */
#define HUNG_MS 100       /* command timeout when the server is known stopped */

/* ---- private valkey-servers ---- */

static char scratch[64];   /* their logs and cluster files */
static struct valkey_server A, B, P;

/* A command on a server's control connection that must succeed. */
static void ctl(struct valkey_server *s, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    valkey_ctlv(s, fmt, ap);
    va_end(ap);
}

/* The node owns exactly [lo, hi] (and [lo2, hi2] when lo2 >= 0). */
static void own(struct valkey_server *s, int lo, int hi, int lo2, int hi2)
{
    ctl(s, "CLUSTER FLUSHSLOTS");
    if (lo >= 0)
        ctl(s, "CLUSTER ADDSLOTSRANGE %d %d", lo, hi);
    if (lo2 >= 0)
        ctl(s, "CLUSTER ADDSLOTSRANGE %d %d", lo2, hi2);
}

static int group_setup(void **st)
{
    (void)st;
    if (scratch_make(scratch, sizeof scratch, "unit-cluster") != 0)
        return -1;
    static const char *const a[] = {"--cluster-enabled", "yes", "--cluster-announce-ip",
                                    "127.0.0.1", NULL};
    static const char *const b[] = {"--cluster-enabled", "yes", NULL};
    if (valkey_start(&A, scratch, "a", a) != 0 ||
        valkey_start(&B, scratch, "b", b) != 0 ||
        valkey_start(&P, scratch, "p", NULL) != 0)
        return -1;
    return 0;
}

static int group_teardown(void **st)
{
    (void)st;
    valkey_stop(&A);
    valkey_stop(&B);
    valkey_stop(&P);
    return scratch_remove(scratch);
}

/* ---- helpers ---- */

/* The handle a test holds, freed after it whatever its outcome: a failed
 * assertion leaves the test midway, and LeakSanitizer's report of the
 * handle would bury the failure. */
static struct cluster *held;

static struct cluster *made(const struct cache_config *cfg)
{
    if (held)
        fail_msg("a second handle held");
    return held = cluster_new(cfg);
}

static void unmade(struct cluster *cl)
{
    if (cl == held)
        held = NULL;
    cluster_free(cl);
}

static int test_teardown(void **st)
{
    (void)st;
    if (A.pid > 0)
        kill(A.pid, SIGCONT);   /* a failure between SIGSTOP and SIGCONT */
    unmade(held);
    return 0;
}

/* A cluster cache configuration over "host:port" seeds. */
static void config(struct cache_config *cfg, int nseeds, ...)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->cluster = 1;
    cfg->connect_timeout_ms = TIMEOUT_MS;
    cfg->command_timeout_ms = TIMEOUT_MS;
    va_list ap;
    va_start(ap, nseeds);
    for (int i = 0; i < nseeds; i++) {
        snprintf(cfg->seeds[i].host, sizeof cfg->seeds[i].host, "%s", va_arg(ap, const char *));
        cfg->seeds[i].port = va_arg(ap, int);
    }
    va_end(ap);
    cfg->nseeds = nseeds;
    if (nseeds > 0) {
        snprintf(cfg->host, sizeof cfg->host, "%s", cfg->seeds[0].host);
        cfg->port = cfg->seeds[0].port;
    }
}

static struct cache_stats stats(const struct cluster *cl)
{
    struct cache_stats s;
    memset(&s, 0, sizeof s);
    cluster_stats_add(cl, &s);
    return s;
}

/* A handle whose opening map refresh succeeded. cluster_new tries one and
 * keeps no reason; on a busy machine it can fail (a connect or CLUSTER
 * SLOTS timing out, no ephemeral port left), so the handle is made again
 * until one reads its map (up to CACHE_WAIT_MS): every test starts from
 * the counters of one successful open, whatever it took to get one. */
static struct cluster *made_mapped(const struct cache_config *cfg)
{
    uint64_t until = clock_now_ns() + (uint64_t)CACHE_WAIT_MS * MS;
    for (;;) {
        struct cluster *cl = made(cfg);
        assert_non_null(cl);
        if (stats(cl).map_refreshes > 0)   /* the count itself: the tests say */
            return cl;
        char err[256];
        int rc = cluster_refresh(cl, 1, err, sizeof err);   /* only to say why */
        unmade(cl);
        if (clock_now_ns() > until)
            fail_msg("seed refresh: no new handle read its map in %d ms; %s", CACHE_WAIT_MS,
                     rc == 0 ? "a refresh right after succeeded" : err);
        usleep(100000);
    }
}

/* A handle seeded with s alone, which owns every slot: where most tests
 * start. Its configuration outlives it (the handle keeps a pointer). */
static struct cache_config over_cfg;

static struct cluster *made_over(struct valkey_server *s)
{
    own(s, 0, 16383, -1, 0);
    config(&over_cfg, 1, "127.0.0.1", s->port);
    return made_mapped(&over_cfg);
}

static void assert_node(const struct node *n, const char *host, int port)
{
    assert_non_null(n);
    assert_string_equal(n->host, host);
    assert_int_equal(n->port, port);
}

/* A hand-built reply of one type and text, as hiredis would make it. */
static redisReply reply(int type, const char *text)
{
    redisReply r;
    memset(&r, 0, sizeof r);
    r.type = type;
    r.str = (char *)text;
    r.len = strlen(text);
    return r;
}

static struct node *redirect(struct cluster *cl, const struct node *from, int *ask,
                             const char *fmt, ...)
{
    char msg[300];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    redisReply r = reply(REDIS_REPLY_ERROR, msg);
    return cluster_redirect(cl, from, &r, ask);
}

/* ---- tests ---- */

/* Seeded by "localhost", A reports itself as 127.0.0.1: the map's owner is
 * that address (a node of its own, not the seed), over exactly the
 * assigned ranges, a single-slot range included. */
static void test_map_from_slots(void **st)
{
    (void)st;
    own(&A, 0, 8191, 10000, 10000);
    struct cache_config cfg;
    config(&cfg, 1, "localhost", A.port);
    struct cluster *cl = made_mapped(&cfg);
    struct node *n = cluster_route(cl, 0);
    assert_node(n, "127.0.0.1", A.port);
    assert_null(n->ctx);   /* a node of its own, not the connected seed */
    assert_ptr_equal(cluster_route(cl, 1), n);
    assert_ptr_equal(cluster_route(cl, 8191), n);
    assert_ptr_equal(cluster_route(cl, 10000), n);
    /* the counters of the open, before any unowned slot makes the map
     * stale (from then on a route may re-read it, once the interval has
     * passed: sooner or later, as the machine allows) */
    atomic_store(&n->lookups, 5);
    struct cache_stats s = stats(cl);
    assert_int_equal(s.map_refreshes, 1);
    assert_int_equal(s.connects, 1);   /* the seed, once */
    assert_int_equal(s.errors, 0);
    assert_int_equal(s.moved, 0);
    assert_int_equal(s.ask, 0);
    assert_int_equal(s.nnodes, 1);     /* only primaries: the seed owns nothing */
    char addr[64];
    snprintf(addr, sizeof addr, "127.0.0.1:%d", A.port);
    assert_string_equal(s.nodes[0].addr, addr);
    assert_int_equal(s.nodes[0].lookups, 5);
    assert_null(cluster_route(cl, 8192));
    assert_null(cluster_route(cl, 9999));
    assert_null(cluster_route(cl, 10001));
    assert_null(cluster_route(cl, 16383));
    uint64_t reads = stats(cl).map_refreshes;   /* 1, or more if those re-read it */
    assert_int_equal(cluster_refresh(cl, 0, NULL, 0), 0);
    assert_int_equal(stats(cl).map_refreshes, reads + 1);
    assert_int_equal(stats(cl).connects, 1);   /* the connected seed answered */
    /* the announced port is the one to use, 1 and 65535 included */
    static const int ports[] = {1, 65535};
    for (int i = 0; i < 2; i++) {
        ctl(&A, "CONFIG SET cluster-announce-port %d", ports[i]);
        int rc = cluster_refresh(cl, 0, NULL, 0);
        ctl(&A, "CONFIG SET cluster-announce-port 0");
        assert_int_equal(rc, 0);
        assert_node(cluster_route(cl, 0), "127.0.0.1", ports[i]);
        assert_node(cluster_route(cl, 10000), "127.0.0.1", ports[i]);
        assert_null(cluster_route(cl, 9000));
    }
    unmade(cl);
    cluster_free(NULL);
}

/* B names itself "", then "?", then NULL: each means the node that
 * answered, so the seed itself (connected) owns the slots. */
static void test_unnamed_owner(void **st)
{
    (void)st;
    struct cluster *cl = made_over(&B);
    struct node *n = cluster_route(cl, 0);
    assert_node(n, "127.0.0.1", B.port);
    assert_non_null(n->ctx);   /* the seed: the one connected */
    assert_ptr_equal(cluster_route(cl, 16383), n);
    assert_ptr_equal(cluster_route(cl, 9000), n);
    ctl(&B, "CONFIG SET cluster-preferred-endpoint-type hostname");
    own(&B, 0, 99, -1, 0);
    char err[256] = "";
    int rc = cluster_refresh(cl, 0, err, sizeof err);
    ctl(&B, "CONFIG SET cluster-preferred-endpoint-type ip");
    assert_int_equal(rc, 0);
    assert_string_equal(err, "no node to ask");   /* set first, untouched on success */
    assert_ptr_equal(cluster_route(cl, 99), n);
    assert_null(cluster_route(cl, 100));
    /* and NULL: "use the address you asked" (unknown-endpoint) */
    ctl(&B, "CONFIG SET cluster-preferred-endpoint-type unknown-endpoint");
    own(&B, 0, 199, -1, 0);
    rc = cluster_refresh(cl, 0, err, sizeof err);
    ctl(&B, "CONFIG SET cluster-preferred-endpoint-type ip");
    assert_int_equal(rc, 0);
    assert_ptr_equal(cluster_route(cl, 199), n);
    assert_null(cluster_route(cl, 200));
    struct cache_stats s = stats(cl);
    assert_int_equal(s.map_refreshes, 3);
    assert_int_equal(s.nnodes, 1);
    unmade(cl);
}

/* The map follows the cluster: an emptied node keeps the last good map
 * (and makes it stale), a stale map is re-read once CLUSTER_REFRESH_MS has
 * passed since the last try (not before: test_refresh_not_at_once), an
 * unowned slot makes it stale, a fresh one is not re-read, and
 * cluster_stale asks for a read. */
static void test_refresh_when_stale(void **st)
{
    (void)st;
    struct cluster *cl = made_over(&B);
    struct node *n = cluster_route(cl, 0);
    assert_non_null(n);
    assert_int_equal(stats(cl).map_refreshes, 1);

    /* no slots at all: an error, the old map stays (and is stale) */
    own(&B, -1, 0, -1, 0);
    char err[256];
    assert_int_equal(cluster_refresh(cl, 0, err, sizeof err), -1);
    assert_non_null(strstr(err, "no slots are served"));
    char addr[64];
    snprintf(addr, sizeof addr, "127.0.0.1:%d", B.port);
    assert_non_null(strstr(err, addr));
    assert_int_equal(stats(cl).map_refreshes, 1);
    assert_ptr_equal(cluster_route(cl, 12000), n);

    /* stale: the next route after the interval reads the new map */
    own(&B, 0, 8191, -1, 0);
    usleep(REFRESH_WAIT_US);
    assert_ptr_equal(cluster_route(cl, 0), n);
    assert_int_equal(stats(cl).map_refreshes, 2);
    assert_null(cluster_route(cl, 9000));   /* not kept from the old map */

    /* the unowned slot made it stale: read again after the interval */
    own(&B, 0, 16383, -1, 0);
    usleep(REFRESH_WAIT_US);
    assert_ptr_equal(cluster_route(cl, 9000), n);
    assert_int_equal(stats(cl).map_refreshes, 3);

    /* fresh: no read however long it has been */
    usleep(REFRESH_WAIT_US);
    assert_ptr_equal(cluster_route(cl, 5), n);
    assert_int_equal(stats(cl).map_refreshes, 3);

    /* asked for (CLUSTERDOWN): read at the next route, the last read
     * being older than the interval; then fresh again */
    cluster_stale(cl);
    assert_ptr_equal(cluster_route(cl, 5), n);
    assert_int_equal(stats(cl).map_refreshes, 4);
    assert_ptr_equal(cluster_route(cl, 5), n);
    assert_int_equal(stats(cl).map_refreshes, 4);
    assert_int_equal(stats(cl).errors, 0);
    unmade(cl);
}

/* A stale map is not read again before CLUSTER_REFRESH_MS has passed
 * since the last read. That is a "not yet": it shows only when the routes
 * ran inside the interval, which the clock readings around them bound;
 * on a machine too busy for that the test skips (a read would be right). */
static void test_refresh_not_at_once(void **st)
{
    (void)st;
    struct cluster *cl = made_over(&B);
    own(&B, 0, 8191, -1, 0);
    uint64_t t0 = clock_now_ns();   /* the read below is no earlier */
    assert_int_equal(cluster_refresh(cl, 0, NULL, 0), 0);
    assert_int_equal(stats(cl).map_refreshes, 2);
    assert_null(cluster_route(cl, 9000));   /* unowned: the map is stale */
    assert_null(cluster_route(cl, 9000));   /* stale, inside the interval */
    uint64_t t1 = clock_now_ns();   /* that route's clock reading is no later */
    if (t1 - t0 >= CLUSTER_REFRESH_MS * MS) {
        /* cmocka's skip() takes no reason: print it first */
        print_message("skip: the routes ran %llu ms after the read, not inside the %d ms "
                      "interval (a busy machine)\n",
                      (unsigned long long)((t1 - t0) / MS), CLUSTER_REFRESH_MS);
        skip();
    }
    assert_int_equal(stats(cl).map_refreshes, 2);
    unmade(cl);
}

/* A plain server and no seed at all: the reason is said, nothing is
 * mapped, and a server that answers is not counted as failed. */
static void test_refresh_errors(void **st)
{
    (void)st;
    struct cache_config cfg;
    config(&cfg, 1, "127.0.0.1", P.port);
    struct cluster *cl = made(&cfg);
    assert_non_null(cl);
    char err[256];
    assert_int_equal(cluster_refresh(cl, 0, err, sizeof err), -1);
    assert_non_null(strstr(err, "CLUSTER SLOTS: ERR This instance has cluster support disabled"));
    assert_null(cluster_route(cl, 0));
    struct cache_stats s = stats(cl);
    assert_int_equal(s.map_refreshes, 0);
    assert_int_equal(s.connects, 1);
    assert_int_equal(s.errors, 0);
    assert_int_equal(s.nnodes, 0);
    unmade(cl);

    config(&cfg, 0);
    cl = made(&cfg);
    assert_non_null(cl);
    assert_int_equal(cluster_refresh(cl, 1, err, sizeof err), -1);
    assert_string_equal(err, "no node to ask");
    assert_null(cluster_route(cl, 0));
    s = stats(cl);
    assert_int_equal(s.errors + s.connects + s.map_refreshes + (uint64_t)s.nnodes, 0);
    unmade(cl);
}

/* A dead seed: one error per attempt; its backoff (doubled by each
 * failure) keeps a plain refresh and a stale route from trying it, and
 * only insist (cache_ping) does. A live seed after it still maps. That
 * the backoff keeps them off shows only while it runs (LAST_BACKOFF_MS
 * from the last failure): the clock readings around the calls bound it,
 * and on a machine too busy for that the test skips. */
#define LAST_BACKOFF_MS 640   /* after the open's failure and 6 insisted ones */

static void skip_unless_resting(uint64_t since_ns, const char *what)
{
    uint64_t ms = (clock_now_ns() - since_ns) / MS;
    if (ms < LAST_BACKOFF_MS)
        return;
    print_message("skip: %s came %llu ms after the last failure, past its %d ms backoff "
                  "(a busy machine)\n", what, (unsigned long long)ms, LAST_BACKOFF_MS);
    skip();
}

static void test_dead_seed(void **st)
{
    (void)st;
    own(&A, 0, 16383, -1, 0);
    struct cache_config cfg;
    config(&cfg, 2, "127.0.0.1", DEAD_PORT, "127.0.0.1", A.port);
    struct cluster *cl = made_mapped(&cfg);
    assert_node(cluster_route(cl, 77), "127.0.0.1", A.port);
    struct cache_stats s = stats(cl);
    assert_int_equal(s.errors, 1);
    assert_int_equal(s.connects, 1);
    assert_int_equal(s.nnodes, 1);
    unmade(cl);

    config(&cfg, 1, "127.0.0.1", DEAD_PORT);
    cl = made(&cfg);
    assert_non_null(cl);
    assert_int_equal(stats(cl).errors, 1);
    char err[256];
    /* insist: tried each time, backoff 20, 40 ... 640 ms after these */
    uint64_t last = 0;   /* no later than the last failure's clock reading */
    for (int i = 0; i < 6; i++) {
        last = clock_now_ns();
        assert_int_equal(cluster_refresh(cl, 1, err, sizeof err), -1);
        assert_non_null(strstr(err, "127.0.0.1:1: "));
    }
    assert_int_equal(stats(cl).errors, 7);
    /* resting for 640 ms now: a plain refresh leaves it alone */
    int rc = cluster_refresh(cl, 0, err, sizeof err);
    skip_unless_resting(last, "the plain refresh");
    assert_int_equal(rc, -1);
    assert_string_equal(err, "no node to ask");
    assert_int_equal(stats(cl).errors, 7);
    /* so does the refresh of a stale route (it does not insist) */
    usleep(REFRESH_WAIT_US);
    assert_null(cluster_route(cl, 0));
    skip_unless_resting(last, "the stale route");
    s = stats(cl);
    assert_int_equal(s.errors, 7);
    assert_int_equal(s.connects, 0);
    assert_int_equal(s.skipped, 0);
    unmade(cl);
}

/* A connected node that stops answering: the refresh says which node and
 * why, counts the failure and drops the connection. Opened with the
 * generous timeout (the open must read the map however busy the
 * machine); the short one is set once the server is about to stop. */
static void test_hung_node(void **st)
{
    (void)st;
    own(&A, 0, 16383, -1, 0);
    struct cache_config cfg;
    config(&cfg, 1, "127.0.0.1", A.port);
    struct cluster *cl = made_mapped(&cfg);
    struct node *n = cluster_route(cl, 0);
    assert_non_null(n);
    assert_non_null(n->ctx);
    cfg.command_timeout_ms = HUNG_MS;
    assert_int_equal(redisSetTimeout(n->ctx, clock_timeval_ms(HUNG_MS)), REDIS_OK);
    char err[256];
    cache_server_halt(&A);
    int rc = cluster_refresh(cl, 0, err, sizeof err);
    kill(A.pid, SIGCONT);
    assert_int_equal(rc, -1);
    char addr[64];
    snprintf(addr, sizeof addr, "127.0.0.1:%d: ", A.port);
    assert_memory_equal(err, addr, strlen(addr));
    assert_null(n->ctx);
    struct cache_stats s = stats(cl);
    assert_int_equal(s.errors, 1);
    assert_int_equal(s.map_refreshes, 1);
    unmade(cl);
}

/* The owner goes down (its backoff running): the route still names it but
 * makes the map stale, and the next route after the interval asks the
 * other seed, whose map names it: a failover is followed. The backoff is
 * not the subject (test_dead_seed): it is made to outlast the test, as a
 * natural one (10 ms after one failure, 640 ms after seven) can end
 * before the routes below on a busy machine, and A would answer again. */
static void test_failover(void **st)
{
    (void)st;
    own(&A, 0, 16383, -1, 0);
    own(&B, 0, 16383, -1, 0);
    struct cache_config cfg;
    config(&cfg, 2, "127.0.0.1", A.port, "127.0.0.1", B.port);
    struct cluster *cl = made_mapped(&cfg);
    struct node *a = cluster_route(cl, 42);
    assert_node(a, "127.0.0.1", A.port);
    usleep(REFRESH_WAIT_US);
    assert_ptr_equal(cluster_route(cl, 42), a);   /* fresh: not re-read */
    assert_int_equal(stats(cl).map_refreshes, 1);
    node_drop(a);   /* a failure: down, its backoff running ... */
    a->next_try_ns = clock_now_ns() + 2 * (uint64_t)CACHE_WAIT_MS * MS;   /* ... for long */
    assert_ptr_equal(cluster_route(cl, 42), a);
    usleep(REFRESH_WAIT_US);
    struct node *b = cluster_route(cl, 42);
    assert_node(b, "127.0.0.1", B.port);
    assert_non_null(b->ctx);
    struct cache_stats s = stats(cl);
    assert_int_equal(s.map_refreshes, 2);
    assert_int_equal(s.errors, 1);
    assert_int_equal(s.connects, 2);
    assert_int_equal(s.nnodes, 2);   /* both were primaries once */
    unmade(cl);
}

/* -MOVED updates the slot at once, counts, marks the node a primary and
 * makes the map stale; -ASK only counts; an empty host is the sender's;
 * anything else is not a redirect.
 * A stale map is re-read by the first route once CLUSTER_REFRESH_MS has
 * passed, which on a busy machine can be any route below; so once the
 * map is read, no node serves a slot: every re-read fails and keeps the
 * map, and the routes show it as the redirects left it, however slowly
 * they run. */
static void test_redirects(void **st)
{
    (void)st;
    struct cluster *cl = made_over(&A);
    struct node *a = cluster_route(cl, 0);
    assert_node(a, "127.0.0.1", A.port);
    own(&A, -1, 0, -1, 0);
    own(&B, -1, 0, -1, 0);
    int ask = 7;
    struct node *b = redirect(cl, a, &ask, "MOVED 3999 127.0.0.1:%d", B.port);
    assert_node(b, "127.0.0.1", B.port);
    assert_int_equal(ask, 0);
    assert_ptr_equal(cluster_route(cl, 3999), b);
    assert_ptr_equal(cluster_route(cl, 3998), a);
    assert_ptr_equal(cluster_route(cl, 4000), a);
    struct cache_stats s = stats(cl);
    assert_int_equal(s.moved, 1);
    assert_int_equal(s.ask, 0);
    assert_int_equal(s.nnodes, 2);

    /* a known node is found again, not added */
    assert_ptr_equal(redirect(cl, a, &ask, "MOVED 5 127.0.0.1:%d", A.port), a);
    assert_ptr_equal(redirect(cl, b, &ask, "MOVED 6 127.0.0.1:%d", B.port), b);
    assert_ptr_equal(redirect(cl, a, &ask, "MOVED 7 :%d", B.port), b);   /* a's host */
    assert_ptr_equal(cluster_route(cl, 7), b);
    struct node *h = redirect(cl, a, &ask, "MOVED 8 h:%d", A.port);   /* one-letter host */
    assert_node(h, "h", A.port);
    assert_ptr_not_equal(h, a);
    assert_ptr_equal(cluster_route(cl, 8), h);

    ask = 0;
    assert_ptr_equal(redirect(cl, a, &ask, "ASK 7000 127.0.0.1:%d", B.port), b);
    assert_int_equal(ask, 1);
    assert_ptr_equal(cluster_route(cl, 7000), a);   /* ASK moves nothing */

    /* not redirects */
    ask = 5;
    assert_null(redirect(cl, a, &ask, "ERR unknown command"));
    redisReply r = reply(REDIS_REPLY_STATUS, "MOVED 9 127.0.0.1:1");
    assert_null(cluster_redirect(cl, a, &r, &ask));
    r = reply(REDIS_REPLY_STRING, "ASK 9 127.0.0.1:1");
    assert_null(cluster_redirect(cl, a, &r, &ask));
    assert_int_equal(ask, 5);
    s = stats(cl);
    assert_int_equal(s.moved, 5);
    assert_int_equal(s.ask, 1);
    assert_int_equal(s.nnodes, 3);   /* a, b, h */
    assert_int_equal(s.map_refreshes, 1);

    /* MOVED made the map stale: the cluster's own word wins next */
    own(&A, 0, 16383, -1, 0);
    usleep(REFRESH_WAIT_US);
    assert_ptr_equal(cluster_route(cl, 3999), a);
    assert_ptr_equal(cluster_route(cl, 8), a);
    assert_int_equal(stats(cl).map_refreshes, 2);
    unmade(cl);
}

/* 32 nodes at most: the 33rd redirect is refused (and not counted), the
 * known ones are still found. The counters list every primary once, with
 * its lookups, merge by address across handles, and stop at
 * CACHE_STATS_NODES. */
static void test_capacity_and_stats(void **st)
{
    (void)st;
    struct cache_config cfg;
    config(&cfg, 0);
    struct cluster *cl = made(&cfg);
    assert_non_null(cl);
    struct node *n[CLUSTER_MAX_NODES];
    int ask;
    for (int i = 0; i < CLUSTER_MAX_NODES; i++) {
        n[i] = redirect(cl, NULL, &ask, "MOVED %d 127.0.0.1:%d", i, 40000 + i);
        assert_node(n[i], "127.0.0.1", 40000 + i);
        for (int k = 0; k < i; k++)
            assert_ptr_not_equal(n[i], n[k]);
        atomic_store(&n[i]->lookups, (uint64_t)(i + 1));
    }
    assert_null(redirect(cl, NULL, &ask, "MOVED 100 127.0.0.1:%d", 40000 + CLUSTER_MAX_NODES));
    assert_null(redirect(cl, NULL, &ask, "ASK 100 10.0.0.1:%d", 40000));
    assert_ptr_equal(redirect(cl, NULL, &ask, "MOVED 101 127.0.0.1:40000"), n[0]);
    assert_ptr_equal(redirect(cl, NULL, &ask, "MOVED 102 127.0.0.1:40031"), n[31]);
    /* every slot of the first 2048 owned (map bytes all non-zero) */
    for (int slot = 0; slot < 2048; slot++)
        assert_non_null(redirect(cl, NULL, &ask, "MOVED %d 127.0.0.1:%d", slot,
                                 40000 + slot % CLUSTER_MAX_NODES));
    struct cache_stats s = stats(cl);
    assert_int_equal(s.moved, CLUSTER_MAX_NODES + 2 + 2048);
    assert_int_equal(s.ask, 0);
    assert_int_equal(s.errors + s.connects + s.skipped + s.map_refreshes, 0);
    assert_int_equal(s.nnodes, CLUSTER_MAX_NODES);
    for (int i = 0; i < CLUSTER_MAX_NODES; i++) {
        char addr[64];
        snprintf(addr, sizeof addr, "127.0.0.1:%d", 40000 + i);
        assert_string_equal(s.nodes[i].addr, addr);
        assert_int_equal(s.nodes[i].lookups, i + 1);
        assert_int_equal(cache_stats_node_lookups(&s, addr), i + 1);
    }
    /* a second handle's table: merged by address */
    cluster_stats_add(cl, &s);
    assert_int_equal(s.nnodes, CLUSTER_MAX_NODES);
    for (int i = 0; i < CLUSTER_MAX_NODES; i++)
        assert_int_equal(s.nodes[i].lookups, 2 * (i + 1));
    /* a full table: the rest is not listed */
    struct cache_stats full;
    memset(&full, 0, sizeof full);
    for (int i = 0; i < CACHE_STATS_NODES; i++)
        snprintf(full.nodes[i].addr, sizeof full.nodes[i].addr, "other:%d", i);
    full.nnodes = CACHE_STATS_NODES;
    cluster_stats_add(cl, &full);
    assert_int_equal(full.nnodes, CACHE_STATS_NODES);
    assert_string_equal(full.nodes[CACHE_STATS_NODES - 1].addr, "other:31");
    assert_int_equal(full.nodes[0].lookups, 0);
    assert_int_equal(full.moved, s.moved / 2);
    unmade(cl);
}

/* Out of memory (a tracking map too large to allocate): a seed that
 * cannot be set up fails the handle (freed, LeakSanitizer checks), and a
 * node that cannot be set up is no redirect target, every time. */
static void test_out_of_memory(void **st)
{
    (void)st;
    struct cache_config cfg;
    config(&cfg, 1, "127.0.0.1", A.port);
    cfg.track = 1;
    cfg.track_size = (int64_t)1 << 40;
    assert_null(made(&cfg));
    config(&cfg, 0);
    cfg.track = 1;
    cfg.track_size = (int64_t)1 << 40;
    struct cluster *cl = made(&cfg);
    assert_non_null(cl);
    int ask;
    assert_null(redirect(cl, NULL, &ask, "MOVED 1 127.0.0.1:%d", A.port));
    assert_null(redirect(cl, NULL, &ask, "MOVED 1 127.0.0.1:%d", A.port));
    struct cache_stats s = stats(cl);
    assert_int_equal(s.moved, 0);
    assert_int_equal(s.nnodes, 0);
    unmade(cl);
}

/* A write to a server a test stopped or killed must fail with EPIPE, not
 * end the binary. */
static void prepare(void)
{
    signal(SIGPIPE, SIG_IGN);
}

#define TEST(f) cmocka_unit_test_teardown(f, test_teardown)
UNIT_MAIN_PREPARED(prepare, group_setup, group_teardown,
    TEST(test_map_from_slots),
    TEST(test_unnamed_owner),
    TEST(test_refresh_when_stale),
    TEST(test_refresh_not_at_once),
    TEST(test_refresh_errors),
    TEST(test_dead_seed),
    TEST(test_hung_node),
    TEST(test_failover),
    TEST(test_redirects),
    TEST(test_capacity_and_stats),
    TEST(test_out_of_memory))
