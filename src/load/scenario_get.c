/* scenario_get: GETs of given paths (see scenario_get.h). Each request is
 * built once at set-up; sending one is a single copy. */
#include "load/scenario_get.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "base/errbuf.h"

struct get_req {
    char *bytes;
    size_t len;
    const char *path;   /* as given, for the JSON options */
};

struct get_state {
    struct get_req req[SCENARIO_GET_PATHS_MAX];
    int n;
    int64_t tasks;      /* 0: no limit */
    atomic_llong claimed;
};

struct get_conn {
    struct get_state *s;
    uint64_t turn;      /* which path comes next */
};

int scenario_get_path_ok(const char *p)
{
    if (!p || p[0] != '/')
        return 0;
    for (; *p; p++)
        if (*p <= ' ' || *p >= 0x7f)
            return 0;
    return 1;
}

/* Every connection's state is its own; the worker has none to keep. */
static void *worker_new(void *state, int index, uint64_t seed)
{
    (void)index;
    (void)seed;
    return state;
}

static void worker_free(void *wstate) { (void)wstate; }

static void *conn_new(void *wstate, uint64_t vu)
{
    struct get_conn *c = calloc(1, sizeof(*c));
    if (c) {
        c->s = wstate;
        c->turn = vu;
    }
    return c;
}

static void conn_free(void *conn) { free(conn); }

static int next(void *conn, uint64_t now, char *buf, size_t cap, size_t *len)
{
    (void)now;
    struct get_conn *c = conn;
    struct get_state *s = c->s;
    if (s->tasks > 0 && atomic_fetch_add(&s->claimed, 1) >= s->tasks)
        return LOAD_NEXT_DONE;
    const struct get_req *r = &s->req[c->turn++ % (uint64_t)s->n];
    if (r->len > cap)
        return LOAD_NEXT_DONE;   /* not reached: paths are checked against LOAD_REQ_MAX */
    memcpy(buf, r->bytes, r->len);
    *len = r->len;
    return 0;
}

static enum load_fail check(void *conn, int kind, int status, const char *body, size_t len,
                            char *why, size_t whycap)
{
    (void)conn;
    (void)kind;
    (void)body;
    (void)len;
    if (status >= 200 && status < 400)
        return LOAD_OK;
    errbuf_say(why, whycap, "HTTP %d (expected 2xx or 3xx)", status);
    return LOAD_FAIL_STATUS;
}

static int finished(void *conn, int kind, enum load_fail f)
{
    (void)conn;
    (void)kind;
    (void)f;
    return 1;
}

static void options_json(const void *state, void *options, int part)
{
    const struct get_state *s = state;
    if (part != 1)
        return;
    cJSON_AddStringToObject(options, "scenario", "get");
    cJSON *paths = cJSON_AddArrayToObject(options, "paths");
    for (int i = 0; paths && i < s->n; i++)
        cJSON_AddItemToArray(paths, cJSON_CreateString(s->req[i].path));
}

static int build(struct get_req *r, const struct load_url *u, const char *path, char *err,
                 size_t errcap)
{
    if (!scenario_get_path_ok(path)) {
        errbuf_say(err, errcap, "path '%s' must start with '/' and hold no spaces or "
                   "control characters", path);
        return -1;
    }
    r->path = path;
    r->bytes = malloc(LOAD_REQ_MAX);
    if (!r->bytes) {
        errbuf_say(err, errcap, "out of memory");
        return -1;
    }
    int n = snprintf(r->bytes, LOAD_REQ_MAX, "GET %s%s HTTP/1.1\r\nHost: %s\r\n\r\n", u->path,
                     path, u->hostport);
    if (n < 0 || n >= LOAD_REQ_MAX) {
        errbuf_say(err, errcap, "path '%.40s...' too long", path);
        return -1;
    }
    r->len = (size_t)n;
    return 0;
}

static const struct load_scenario_ops get_ops = {
    .worker_new = worker_new,
    .worker_free = worker_free,
    .conn_new = conn_new,
    .conn_free = conn_free,
    .next = next,
    .check = check,
    .finished = finished,
    .options_json = options_json,
};

int scenario_get_init(struct load_scenario *sc, const struct load_url *u,
                      const char *const *paths, int npaths, int64_t tasks, char *err,
                      size_t errcap)
{
    memset(sc, 0, sizeof(*sc));
    if (npaths < 1 || npaths > SCENARIO_GET_PATHS_MAX) {
        errbuf_say(err, errcap, "give 1 to %d paths", SCENARIO_GET_PATHS_MAX);
        return -1;
    }
    struct get_state *s = calloc(1, sizeof(*s));
    if (!s) {
        errbuf_say(err, errcap, "out of memory");
        return -1;
    }
    sc->state = s;
    s->tasks = tasks;
    atomic_init(&s->claimed, 0);
    for (; s->n < npaths; s->n++) {
        if (build(&s->req[s->n], u, paths[s->n], err, errcap) != 0) {
            s->n++;   /* free what build allocated */
            scenario_get_free(sc);
            return -1;
        }
    }
    sc->name = "get";
    sc->kinds[0] = "GET";
    sc->nkinds = 1;
    sc->ops = &get_ops;
    return 0;
}

void scenario_get_free(struct load_scenario *sc)
{
    struct get_state *s = sc->state;
    for (int i = 0; s && i < s->n; i++)
        free(s->req[i].bytes);
    free(s);
    sc->state = NULL;
}
