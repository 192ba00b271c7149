/* loadmix: the pure decisions of the HTTP load generator, kept apart from
 * the network loop so they can be unit-tested: which request a virtual user
 * sends next, which existing link it asks for, and whether a finished
 * request counts as a success or as which kind of failure. */
#ifndef KVTEST_LOADMIX_H
#define KVTEST_LOADMIX_H
#include <stddef.h>
#include <stdint.h>

#include "measure/rng.h"
#include "measure/zipf.h"

enum load_req { LOAD_POST, LOAD_GET, LOAD_NREQ };

/* Failure kinds, in the order they are reported. */
enum load_fail {
    LOAD_OK = 0,
    LOAD_FAIL_CONNECT,   /* could not connect or resolve */
    LOAD_FAIL_TIMEOUT,   /* --timeout expired */
    LOAD_FAIL_IO,        /* connection dropped mid-request, other transport error */
    LOAD_FAIL_STATUS,    /* HTTP status other than the expected one */
    LOAD_FAIL_BODY,      /* expected status, but the JSON lacks the expected field */
    LOAD_NFAIL
};

const char *loadmix_req_name(enum load_req r);    /* "POST", "GET" */
const char *loadmix_fail_name(enum load_fail f);  /* "connect", "timeout", ... */

/* A POST /link answer: 201 with {"short_link": "<1-64 of [A-Za-z0-9]>"}.
 * On success copies the id into id[idcap]. On failure writes a short reason
 * into why[whycap] (may be NULL). body need not be NUL-terminated. */
enum load_fail loadmix_check_post(long status, const char *body, size_t len,
                                  char *id, size_t idcap, char *why, size_t whycap);

/* A GET /link/<id> answer: 200 with {"link": URL}. With expect_url the URL
 * must equal it byte for byte (a link this run created); without, it must be
 * a non-empty http(s) URL (an id from --keys whose target we never saw). */
enum load_fail loadmix_check_get(long status, const char *body, size_t len,
                                 const char *expect_url, char *why, size_t whycap);

/* Task mode: a task is POST then `gets` GETs of the created link. Given the
 * step about to run (0 = the POST), what to send; -1 when the task is done. */
int loadmix_task_step(int64_t step, int64_t gets);

/* Duration mode: POST with probability create_ratio, else GET of an
 * existing id; always POST while no id exists yet. */
enum load_req loadmix_pick(double create_ratio, int have_ids, rng_t *r);

/* A URL to shorten: https, varied length (about 30 to 200 bytes), unique
 * per (vu, seq), only characters the service accepts. Returns its length,
 * or 0 if cap is too small (cap >= 256 always suffices). */
size_t loadmix_make_url(char *buf, size_t cap, rng_t *r, uint64_t vu, uint64_t seq);

/* Existing link ids, one per line (as "kvtest shortener keys" prints). */
struct loadkeys {
    char **id;     /* id[0..n) point into buf */
    size_t n;
    char *buf;
};

/* Parse buf[0..len) in place; buf must have room for buf[len] (a NUL goes
 * there when the last line has no newline). On success k owns buf
 * (loadkeys_free frees it); on error k is empty and buf stays the caller's. Blank lines and surrounding white space are
 * skipped; an id that is not 1-64 of [A-Za-z0-9] is an error naming its
 * line. 0 ok, -1 with err set. */
int loadkeys_parse(struct loadkeys *k, char *buf, size_t len, char *err, size_t errcap);
/* Read and parse a file; an empty file is an error. 0 ok, -1 with err set. */
int loadkeys_read(struct loadkeys *k, const char *path, char *err, size_t errcap);
void loadkeys_free(struct loadkeys *k);

/* Key selection over n items: uniform, or Zipf with exponent s whose ranks
 * are scattered over [0,n) by a fixed bijection, so the hot keys are not
 * neighbours in the file (nor in the database's rowid order). */
struct loadpick {
    uint64_t n;
    int zipf_on;
    struct zipf z;
    uint64_t step, offset;   /* rank r -> (r * step + offset) mod n */
};
/* n >= 1; zipf_s == 0 means uniform. 0 ok, -1 on bad parameters. */
int loadpick_init(struct loadpick *p, uint64_t n, double zipf_s);
uint64_t loadpick_next(const struct loadpick *p, rng_t *r);   /* in [0, n) */
/* The bijection alone: Zipf rank index (0 = hottest) -> item index. */
uint64_t loadpick_scatter(const struct loadpick *p, uint64_t rank0);

#endif
