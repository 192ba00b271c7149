/* build: src/load/load_http.c src/base/net.c src/base/units.c src/base/errbuf.c -lhttp_parser; run: -max_len=70000 */
/* libFuzzer target: the load generator's reader of a server's answers
 * (load_resp_take and load_resp_feed, load/load_http.h, over the
 * http_parser library), as the engine's connection loop (vu_take in
 * load/load_conn.c) drives it: answers taken one after another off the
 * received bytes (pipelining), load_resp_begin before each next one, and
 * the server's close (a read of 0 bytes) at the end.
 *
 * Input: the bytes a server sends on one connection. They are received in
 * one piece, and again split at an offset chosen by the input's last byte;
 * load_resp_feed also gets them in one piece on a fresh connection.
 *
 * Invariants checked:
 *  - a take uses no more bytes than it was given, and answers -1 with a
 *    terminated reason or a count;
 *  - a complete answer has a status in 100..599 (RFC 9110, section 15:
 *    "All valid status codes are within the range of 100 to 599"), a
 *    body no longer than the bytes received for that answer and never
 *    over LOAD_BODY_MAX (beyond it: overflow set);
 *  - the split changes nothing: the same answers (status, body, keep-alive,
 *    overflow; of a body over the limit, which the engine drops, only
 *    that), in the same order, and the same failure or none;
 *  - load_resp_feed of the whole: refused only when taking refused the
 *    first answer; complete, the first answer taken (status, body,
 *    overflow), keep-alive off when bytes follow it.
 *
 * Build and run: make fuzz [FUZZ_TIME=30] */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "load/load_http.h"

#define FUZZ_NAME "fuzz_httpresp"
#include "tests/fuzz/fuzz_check.h"

#define MAX_ANSWERS 64

struct answer {
    int status, keep_alive, overflow;
    size_t len;
    uint64_t hash;   /* FNV-1a of the body */
};

struct transcript {
    struct answer a[MAX_ANSWERS];
    int n, failed;
};

static uint64_t fnv(const char *p, size_t n)
{
    uint64_t h = 1469598103934665603ULL;
    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)p[i]) * 1099511628211ULL;
    return h;
}

/* Receive buf[0..n) as one read (n == 0: the server closed), taking the
 * answers off it as vu_take does. 0 to read on, 1 when done (failed or
 * too many answers). */
static int receive(struct load_resp *r, const char *buf, size_t n, struct transcript *t)
{
    char why[160];
    size_t at = 0;
    /* Exactly n bytes on the heap, so a read past them is caught. */
    char *copy = malloc(n ? n : 1);
    if (!copy)
        abort();
    memcpy(copy, buf, n);
    int done = 0;
    for (;;) {
        size_t seen = r->seen;
        ssize_t used = load_resp_take(r, copy + at, n - at, why, sizeof why);
        if (used < 0) {
            CHECK(memchr(why, '\0', sizeof why) && why[0], "an invalid answer without a reason");
            t->failed = 1;
            done = 1;
            break;
        }
        CHECK((size_t)used <= n - at, "a take used more bytes than it was given");
        if (!r->complete) {
            CHECK((size_t)used == n - at, "an incomplete answer left bytes unused");
            break;
        }
        CHECK(r->seen == seen + (size_t)used, "seen does not count the answer's bytes");
        if (r->status < 100 || r->status > 599)
            fprintf(stderr, "fuzz_httpresp: a complete answer with status %d\n", r->status);
        CHECK(r->status >= 100 && r->status <= 599, "a complete answer's status outside 100..599");
        CHECK(r->len <= r->seen, "a body longer than the answer's bytes");
        CHECK(r->len <= LOAD_BODY_MAX, "a body over LOAD_BODY_MAX kept");
        struct answer *a = &t->a[t->n++];
        a->status = r->status;
        a->keep_alive = r->keep_alive;
        a->overflow = r->overflow;
        /* Over the limit the body is dropped (the engine reads only
         * overflow then): what was kept of it depends on the reads. */
        a->len = r->overflow ? 0 : r->len;
        a->hash = r->overflow ? 0 : fnv(r->body, r->len);
        at += (size_t)used;
        load_resp_begin(r);
        if (t->n == MAX_ANSWERS) {
            done = 1;
            break;
        }
        if (at == n)
            break;
    }
    free(copy);
    return done;
}

static void run(const uint8_t *data, size_t size, size_t split, struct transcript *t)
{
    struct load_resp r;
    if (load_resp_init(&r) != 0)
        abort();
    memset(t, 0, sizeof *t);
    const char *d = (const char *)data;
    /* A read returns at least a byte until the server closes; the close
     * ends an answer in progress (read-until-close bodies), and with none
     * begun the engine fails the request without asking the parser. */
    int done = split > 0 && receive(&r, d, split, t);
    if (!done && size > split)
        done = receive(&r, d + split, size - split, t);
    if (!done && r.seen > 0)
        receive(&r, d, 0, t);
    load_resp_free(&r);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct transcript one, two;
    run(data, size, size, &one);
    size_t split = size ? data[size - 1] * size / 256 : 0;
    run(data, size, split, &two);
    CHECK(one.n == two.n && one.failed == two.failed &&
              memcmp(one.a, two.a, (size_t)one.n * sizeof one.a[0]) == 0,
          "split in two, the bytes give other answers");

    struct load_resp r;
    char why[160];
    if (load_resp_init(&r) != 0)
        abort();
    char *copy = malloc(size ? size : 1);
    if (!copy)
        abort();
    memcpy(copy, data, size);
    int rc = load_resp_feed(&r, copy, size, why, sizeof why);
    CHECK(rc == 0 || rc == -1, "load_resp_feed returned neither 0 nor -1");
    if (rc != 0 && size > 0)   /* 0 bytes: the server closed */
        CHECK(one.n == 0 && one.failed, "load_resp_feed refused a first answer take accepted");
    if (rc == 0 && r.complete) {
        CHECK(one.n >= 1 && r.status == one.a[0].status &&
                  (r.overflow || r.len == one.a[0].len) && r.overflow == one.a[0].overflow &&
                  (r.overflow || fnv(r.body, r.len) == one.a[0].hash),
              "load_resp_feed's answer is not the first one taken");
        CHECK(!r.keep_alive || one.a[0].keep_alive, "load_resp_feed kept alive what take did not");
        CHECK(r.seen == size || !r.keep_alive, "bytes after the answer and keep-alive still on");
    }
    free(copy);
    load_resp_free(&r);
    return 0;
}
