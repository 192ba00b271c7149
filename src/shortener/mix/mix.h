/* mix: the shortener's load scenario for the load engine (load/
 * load_scenario.h): the classic stress test's tasks (POST a link, then GET
 * it --gets times) or, for --duration, a steady mix of POSTs and GETs of
 * links this run created or of ids from a key file; every answer checked
 * (mix_check.h). Also the pure decisions behind it, apart so they can be
 * unit-tested: which request comes next, the URLs to shorten, the requests'
 * bytes. */
#ifndef KVTEST_MIX_H
#define KVTEST_MIX_H
#include <stddef.h>
#include <stdint.h>

#include "load/load_http.h"
#include "load/load_scenario.h"
#include "measure/keys/keypick.h"
#include "measure/keys/rng.h"
#include "shortener/mix/mix_keys.h"

enum mix_req { MIX_POST, MIX_GET, MIX_NREQ };   /* the scenario's request kinds */

#define MIX_POOL_MAX 100000   /* ids created in --duration mode without --keys */

struct mix_opts {
    int64_t tasks, gets;       /* task mode */
    double duration;           /* > 0: duration mode (the engine ends the run) */
    double create_ratio;       /* duration mode: share of POSTs */
    double zipf;               /* for the JSON options (pick is built with it) */
    const char *keys_path;     /* NULL: GETs pick among the links created */
    int64_t pipeline;          /* requests in flight per connection (0 or 1: one) */
    int64_t walk;              /* > 0: GET every --keys id this many times, in
                                * file order, then stop (no POST, no clock) */
};

/* Fill sc with the mix over base URL u; keys/pick: the --keys ids and how
 * to pick them (NULL or empty: none), borrowed for sc's life. 0 ok, -1 out
 * of memory. */
int mix_scenario_init(struct load_scenario *sc, const struct mix_opts *o,
                      const struct load_url *u, const struct mix_keys *keys,
                      const struct keypick *pick);
void mix_scenario_free(struct load_scenario *sc);

/* Task mode: a task is POST then `gets` GETs of the created link. Given the
 * step about to run (0 = the POST), what to send; -1 when the task is done. */
int mix_task_step(int64_t step, int64_t gets);

/* Duration mode: POST with probability create_ratio, else GET of an
 * existing id; always POST while no id exists yet. */
enum mix_req mix_pick(double create_ratio, int have_ids, rng_t *r);

/* --walk: the key to GET as the walk's i-th request (i counts the
 * requests all connections claimed, from 0): pass i / n over the n ids, in
 * file order; -1 once all `passes` passes are claimed. */
int64_t mix_walk_key(int64_t i, int64_t passes, size_t n);

/* A URL to shorten: https, varied length (about 30 to 200 bytes), unique
 * per (vu, seq), only characters the service accepts. Returns its length,
 * or 0 if cap is too small (cap >= 256 always suffices). */
size_t mix_make_url(char *buf, size_t cap, rng_t *r, uint64_t vu, uint64_t seq);

/* The fixed parts of the two requests, built once per run, so that only
 * the id or the JSON body is copied in per request. */
struct mix_reqfmt {
    char get_pre[600];    /* "GET PATH/link/" */
    size_t get_pre_len;
    char tail[400];       /* " HTTP/1.1\r\nHost: H\r\n\r\n" */
    size_t tail_len;
    char post_pre[1024];  /* "POST PATH/link HTTP/1.1\r\nHost: H\r\n...Content-Length: " */
    size_t post_pre_len;
};

void mix_reqfmt_init(struct mix_reqfmt *f, const struct load_url *u);
/* Build a request into buf[cap]; its length, or 0 when it does not fit. */
size_t mix_reqfmt_get(const struct mix_reqfmt *f, char *buf, size_t cap, const char *id);
size_t mix_reqfmt_post(const struct mix_reqfmt *f, char *buf, size_t cap, const char *url);

#endif
