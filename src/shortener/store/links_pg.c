/* links_pg: the networked link store, a PostgreSQL primary and its read
 * replicas through libpq (links.h for the contract and the routing).
 *
 * Every statement is prepared once per connection and sent with
 * PQsendQueryPrepared, then waited for with poll() against a deadline: a
 * server that stops answering costs one timeout, not a hung worker. A
 * connection that fails is closed; the next call tries it again at once
 * (the server may just have restarted), after that only once its pause has
 * passed (100 ms doubling to 2 s), so a dead server costs the callers
 * nothing while the others answer. */
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/counter.h"
#include "base/url_mask.h"
#include "measure/clock.h"
#include "shortener/store/links_int.h"
#include "shortener/store/links_pg_int.h"

#define BACKOFF_FIRST_MS 100
#define BACKOFF_MAX_MS 2000
#define TIMEOUT_DEFAULT_MS 5000

#define SQL_GET "SELECT link_target FROM links WHERE link_hash = $1"
#define SQL_PUT "INSERT INTO links(link_hash, link_target, created_at) VALUES($1, $2, $3)"
#define SQL_IDS "SELECT link_hash FROM links ORDER BY id LIMIT $1"
#define SQL_LINKS "SELECT id, link_hash, link_target, created_at FROM links ORDER BY id"

struct links_pg {
    struct links base;   /* first: a struct links * points here */
    int timeout_ms;
    struct pgconn primary;
    struct pgconn rep[LINKS_REPLICAS_MAX];
    int nrep;
    unsigned next;       /* the replica the next lookup asks first */
    unsigned char pool[64];   /* CSPRNG bytes for new ids */
    size_t pos;
};

/* What one statement on one connection came to. */
enum pg_out { PG_ROW, PG_NOROW, PG_DOWN, PG_FAIL, PG_DUP };

void links_pg_errline(PGconn *c, const PGresult *res, char *out, size_t cap)
{
    /* A connection gone bad keeps the server's reason ("terminating
     * connection due to administrator command") in its own message; the
     * result has only libpq's "server closed the connection". */
    int gone = c && pq_lib->PQstatus(c) == CONNECTION_BAD;
    const char *m = res && !gone ? pq_lib->PQresultErrorMessage(res)
                    : c          ? pq_lib->PQerrorMessage(c)
                                 : "";
    if (!m || !*m)
        m = "out of memory";
    if (strncmp(m, "ERROR:  ", 8) == 0 || strncmp(m, "FATAL:  ", 8) == 0)
        m += 8;
    size_t k = 0;
    for (; *m && k + 1 < cap; m++) {   /* libpq's lines joined with "; " */
        if (*m == '\n' || *m == '\t') {
            if (m[1] && m[1] != '\n' && k > 0 && out[k - 1] != ' ' && k + 3 < cap) {
                out[k++] = ';';
                out[k++] = ' ';
            }
            continue;
        }
        out[k++] = *m;
    }
    while (k > 0 && (out[k - 1] == ' ' || out[k - 1] == ';'))
        k--;
    out[k] = '\0';
}

PGconn *links_pg_connect(const char *url, int timeout_ms, char *err, size_t errcap)
{
    char secs[16];
    /* libpq counts whole seconds (and treats 1 as 2): round up. */
    snprintf(secs, sizeof secs, "%d", (timeout_ms + 999) / 1000);
    /* Ours first: what the URL itself says wins (expand_dbname). */
    const char *keys[] = {"connect_timeout", "application_name", "dbname", NULL};
    const char *vals[] = {secs, "kvtest", url, NULL};
    if (links_pg_lib_load(err, errcap) != 0)
        return NULL;
    PGconn *c = pq_lib->PQconnectdbParams(keys, vals, 1);
    if (c && pq_lib->PQstatus(c) == CONNECTION_OK)
        return c;
    char line[400], shown[300];
    links_pg_errline(c, NULL, line, sizeof line);
    url_mask(url, shown, sizeof shown);
    snprintf(err, errcap, "%s: %s", shown, line);
    pq_lib->PQfinish(c);
    return NULL;
}

int links_pg_exec(PGconn *c, const char *sql, char *err, size_t errcap)
{
    PGresult *r = pq_lib->PQexec(c, sql);
    ExecStatusType st = pq_lib->PQresultStatus(r);
    int ok = st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK;
    if (!ok) {
        links_pg_errline(c, r, err, errcap);
    } else if (strcmp(sql, "COMMIT") == 0 && strcmp(pq_lib->PQcmdStatus(r), "COMMIT") != 0) {
        /* COMMIT of a transaction an error aborted succeeds as ROLLBACK:
         * whatever step's failure went unseen, nothing was stored */
        snprintf(err, errcap, "COMMIT: the server rolled the transaction back (%s)",
                 pq_lib->PQcmdStatus(r));
        ok = 0;
    }
    pq_lib->PQclear(r);
    return ok ? 0 : -1;
}

/* Prepare what a connection needs; 0 or -1 with the reason in err. */
static int pg_prepare(PGconn *c, int primary, char *err, size_t errcap)
{
    const char *names[] = {"kv_get", "kv_put"};
    const char *sql[] = {SQL_GET, SQL_PUT};
    for (int k = 0; k < (primary ? 2 : 1); k++) {
        PGresult *r = pq_lib->PQprepare(c, names[k], sql[k], 0, NULL);
        int ok = pq_lib->PQresultStatus(r) == PGRES_COMMAND_OK;
        if (!ok) {
            const char *state = pq_lib->PQresultErrorField(r, PG_DIAG_SQLSTATE);
            if (state && strcmp(state, "42P01") == 0)   /* undefined_table */
                snprintf(err, errcap, "no links table (create it with kvtest shortener init)");
            else
                links_pg_errline(c, r, err, errcap);
        }
        pq_lib->PQclear(r);
        if (!ok)
            return -1;
    }
    return 0;
}

static void pc_down(struct pgconn *pc, uint64_t now, int pause)
{
    if (pc->c)   /* NULL also when libpq itself could not be opened */
        pq_lib->PQfinish(pc->c);
    pc->c = NULL;
    if (!pause) {   /* first failure: the next call may try again at once */
        pc->retry_at_ns = now;
        return;
    }
    if (pc->backoff_ms < BACKOFF_FIRST_MS)
        pc->backoff_ms = BACKOFF_FIRST_MS;
    pc->retry_at_ns = now + (uint64_t)pc->backoff_ms * 1000000u;
    pc->backoff_ms = pc->backoff_ms * 2 > BACKOFF_MAX_MS ? BACKOFF_MAX_MS : pc->backoff_ms * 2;
}

/* A usable connection, (re)connecting when its pause is over. 0, or -1
 * while it is down. */
static int pc_ready(struct links_pg *p, struct pgconn *pc)
{
    if (pc->c)
        return 0;
    uint64_t now = clock_now_ns();
    if (now < pc->retry_at_ns)
        return -1;
    char why[256];
    counter_bump(&p->base.n.reconnects);
    pc->c = links_pg_connect(pc->url, p->timeout_ms, p->base.err, sizeof p->base.err);
    if (pc->c && pg_prepare(pc->c, pc->primary, why, sizeof why) != 0) {
        snprintf(p->base.err, sizeof p->base.err, "%s", why);
        pq_lib->PQfinish(pc->c);
        pc->c = NULL;
    }
    if (!pc->c) {
        pc_down(pc, now, 1);
        return -1;
    }
    pc->backoff_ms = 0;
    return 0;
}

/* Wait until c has a whole result to give, up to deadline. 0, or -1 when
 * the connection failed or the time is up. */
static int pc_wait(PGconn *c, uint64_t deadline)
{
    while (pq_lib->PQisBusy(c)) {
        uint64_t now = clock_now_ns();
        if (now >= deadline)
            return -1;
        struct pollfd pf = {.fd = pq_lib->PQsocket(c), .events = POLLIN};
        int ms = (int)((deadline - now + 999999) / 1000000);
        int n = poll(&pf, 1, ms);
        if (n < 0 || (n > 0 && !pq_lib->PQconsumeInput(c)))
            return -1;
    }
    return 0;
}

/* Run prepared statement stmt on pc. On PG_ROW the URL (row 0, column 0)
 * is copied into url when url is not NULL. */
static enum pg_out pc_run(struct links_pg *p, struct pgconn *pc, const char *stmt, int nparams,
                          const char *const *vals, char *url, size_t cap, size_t *urllen)
{
    if (pc_ready(p, pc) != 0)
        return PG_DOWN;
    uint64_t deadline = clock_now_ns() + (uint64_t)p->timeout_ms * 1000000u;
    PGresult *r = NULL;
    /* text parameters: NUL-terminated, no lengths needed */
    if (!pq_lib->PQsendQueryPrepared(pc->c, stmt, nparams, vals, NULL, NULL, 0) ||
        pc_wait(pc->c, deadline) != 0 || !(r = pq_lib->PQgetResult(pc->c))) {
        links_pg_errline(pc->c, NULL, p->base.err, sizeof p->base.err);
        pc_down(pc, clock_now_ns(), 0);
        return PG_DOWN;
    }
    enum pg_out out;
    ExecStatusType st = pq_lib->PQresultStatus(r);
    if (st == PGRES_TUPLES_OK && pq_lib->PQntuples(r) > 0) {
        size_t n = (size_t)pq_lib->PQgetlength(r, 0, 0);
        out = PG_ROW;
        if (url && n >= cap) {
            snprintf(p->base.err, sizeof p->base.err, "stored URL of %zu bytes does not fit", n);
            out = PG_FAIL;
        } else if (url) {
            memcpy(url, pq_lib->PQgetvalue(r, 0, 0), n);
            url[n] = '\0';
            if (urllen)
                *urllen = n;
        }
    } else if (st == PGRES_TUPLES_OK || st == PGRES_COMMAND_OK) {
        out = PG_NOROW;
    } else {
        /* unique_violation of link_hash only: the id drawn is taken (any
         * other key, the primary key say, is a real error) */
        const char *state = pq_lib->PQresultErrorField(r, PG_DIAG_SQLSTATE);
        const char *key = pq_lib->PQresultErrorField(r, PG_DIAG_CONSTRAINT_NAME);
        out = state && strcmp(state, "23505") == 0 && key && strstr(key, "link_hash")
            ? PG_DUP : PG_FAIL;
        links_pg_errline(pc->c, r, p->base.err, sizeof p->base.err);
    }
    pq_lib->PQclear(r);
    /* The rest of the answer (ReadyForQuery) is on its way or here. */
    while (pc_wait(pc->c, deadline) == 0 && (r = pq_lib->PQgetResult(pc->c)))
        pq_lib->PQclear(r);
    if (pq_lib->PQstatus(pc->c) != CONNECTION_OK || pq_lib->PQisBusy(pc->c)) {
        pc_down(pc, clock_now_ns(), 0);
        if (out == PG_ROW || out == PG_NOROW)   /* the answer came: keep it */
            return out;
        return PG_DOWN;
    }
    return out;
}

/* One lookup on pc; a connection that just failed is tried once more at
 * once (a lookup can be repeated; the server may have restarted). */
static enum pg_out pc_lookup(struct links_pg *p, struct pgconn *pc, const char *id,
                             size_t idlen, char *url, size_t cap, size_t *urllen)
{
    char idz[LINKS_ID_MAX + 1];   /* text parameters are NUL-terminated */
    memcpy(idz, id, idlen);
    idz[idlen] = '\0';
    const char *vals[1] = {idz};
    int had = pc->c != NULL;
    enum pg_out o = pc_run(p, pc, "kv_get", 1, vals, url, cap, urllen);
    if (o == PG_DOWN && had)
        o = pc_run(p, pc, "kv_get", 1, vals, url, cap, urllen);
    return o;
}

static enum links_rc pg_lookup(struct links *base, const char *id, size_t idlen, char *url,
                               size_t cap, size_t *urllen)
{
    struct links_pg *p = (struct links_pg *)base;
    int replica_said_no = 0;
    for (int k = 0; k < p->nrep; k++) {
        enum pg_out o = pc_lookup(p, &p->rep[(p->next + (unsigned)k) % (unsigned)p->nrep], id,
                                  idlen, url, cap, urllen);
        if (o == PG_ROW) {
            p->next++;
            counter_bump(&base->n.replica_reads);
            return LINKS_OK;
        }
        if (o == PG_NOROW) {   /* it may lag behind a create: ask the primary */
            replica_said_no = 1;
            counter_bump(&base->n.fallbacks);
            break;
        }
        counter_bump(&base->n.failovers);
    }
    p->next++;
    switch (pc_lookup(p, &p->primary, id, idlen, url, cap, urllen)) {
    case PG_ROW:
        counter_bump(&base->n.primary_reads);
        return LINKS_OK;
    case PG_NOROW:
        counter_bump(&base->n.primary_reads);
        return LINKS_NOTFOUND;
    case PG_DOWN:
        if (replica_said_no)   /* the best answer left */
            return LINKS_NOTFOUND;
        counter_bump(&base->n.unavailable);
        return LINKS_UNAVAILABLE;
    default:
        return LINKS_ERROR;
    }
}

/* The insert is not repeated after a failed connection: it may have
 * committed, and a second row would be a second id for one create. */
static enum links_rc pg_create(struct links *base, const char *url, size_t urllen,
                               char id_out[LINKS_ID_LEN + 1])
{
    struct links_pg *p = (struct links_pg *)base;
    char urlz[LINKS_URL_MAX + 1], created[24];
    memcpy(urlz, url, urllen);
    urlz[urllen] = '\0';
    snprintf(created, sizeof created, "%lld", (long long)time(NULL));
    const char *vals[3] = {id_out, urlz, created};
    for (int attempt = 0; attempt < 10; attempt++) {
        if (links_fill_id(id_out, LINKS_ID_LEN, p->pool, sizeof p->pool, &p->pos) != 0) {
            snprintf(base->err, sizeof base->err, "OS random generator failed");
            return LINKS_ERROR;
        }
        switch (pc_run(p, &p->primary, "kv_put", 3, vals, NULL, 0, NULL)) {
        case PG_NOROW:
        case PG_ROW:
            return LINKS_OK;
        case PG_DUP:   /* the id is taken: draw another */
            continue;
        case PG_DOWN:
            counter_bump(&base->n.unavailable);
            return LINKS_UNAVAILABLE;
        default:
            return LINKS_ERROR;
        }
    }
    snprintf(base->err, sizeof base->err, "no unused id after 10 tries");
    return LINKS_ERROR;
}

/* Rows of sql (on the primary, one at a time: a listing of millions of
 * links is never held whole). row(ctx, r) for each; a non-zero return
 * stops the calls (the rest of the rows are read and dropped). The number
 * of rows seen, or -1 (reason in l->err). */
static int64_t pg_rows(struct links_pg *p, const char *sql, int nparams, const char *const *vals,
                       int (*row)(void *ctx, PGresult *r), void *ctx, int *stopped)
{
    *stopped = 0;
    if (pc_ready(p, &p->primary) != 0)
        return -1;
    PGconn *c = p->primary.c;
    if (!pq_lib->PQsendQueryParams(c, sql, nparams, NULL, vals, NULL, NULL, 0) ||
        !pq_lib->PQsetSingleRowMode(c)) {
        links_pg_errline(c, NULL, p->base.err, sizeof p->base.err);
        return -1;
    }
    int64_t n = 0;
    int bad = 0;
    PGresult *r;
    while ((r = pq_lib->PQgetResult(c))) {
        ExecStatusType st = pq_lib->PQresultStatus(r);
        if (st == PGRES_SINGLE_TUPLE && !*stopped && !bad) {
            n++;
            *stopped = row(ctx, r) != 0;
        } else if (st != PGRES_SINGLE_TUPLE && st != PGRES_TUPLES_OK && !bad) {
            links_pg_errline(c, r, p->base.err, sizeof p->base.err);
            bad = 1;
        }
        pq_lib->PQclear(r);
    }
    if (pq_lib->PQstatus(c) != CONNECTION_OK)
        pc_down(&p->primary, clock_now_ns(), 0);
    return bad ? -1 : n;
}

struct id_ctx {
    int (*fn)(void *ctx, const char *id, size_t len);
    void *ctx;
};

static int id_row(void *ctx, PGresult *r)
{
    struct id_ctx *a = ctx;
    return a->fn(a->ctx, pq_lib->PQgetvalue(r, 0, 0), (size_t)pq_lib->PQgetlength(r, 0, 0));
}

static int64_t pg_foreach_id(struct links *base, int64_t limit,
                             int (*fn)(void *ctx, const char *id, size_t len), void *ctx)
{
    char lim[24];
    if (limit > 0)
        snprintf(lim, sizeof lim, "%lld", (long long)limit);
    const char *vals[1] = {limit > 0 ? lim : NULL};   /* NULL: LIMIT ALL */
    struct id_ctx a = {fn, ctx};
    int stopped;
    return pg_rows((struct links_pg *)base, SQL_IDS, 1, vals, id_row, &a, &stopped);
}

struct link_ctx {
    links_link_fn fn;
    void *ctx;
};

static int link_row(void *ctx, PGresult *r)
{
    struct link_ctx *a = ctx;
    return a->fn(a->ctx, strtoll(pq_lib->PQgetvalue(r, 0, 0), NULL, 10),
                 pq_lib->PQgetvalue(r, 0, 1), (size_t)pq_lib->PQgetlength(r, 0, 1),
                 pq_lib->PQgetvalue(r, 0, 2), (size_t)pq_lib->PQgetlength(r, 0, 2),
                 strtoll(pq_lib->PQgetvalue(r, 0, 3), NULL, 10));
}

static int64_t pg_foreach_link(struct links *base, links_link_fn fn, void *ctx)
{
    struct link_ctx a = {fn, ctx};
    int stopped;
    int64_t n = pg_rows((struct links_pg *)base, SQL_LINKS, 0, NULL, link_row, &a, &stopped);
    return stopped ? -1 : n;   /* a callback that failed has its own reason */
}

static void pg_close(struct links *base)
{
    struct links_pg *p = (struct links_pg *)base;
    /* a connection never made is NULL, and libpq may never have opened */
    if (p->primary.c)
        pq_lib->PQfinish(p->primary.c);
    for (int k = 0; k < p->nrep; k++)
        if (p->rep[k].c)
            pq_lib->PQfinish(p->rep[k].c);
    memset(p->pool, 0, sizeof p->pool);
    free(p);
}

static const struct links_ops pg_ops = {
    .kind = LINKS_KIND_POSTGRES,
    .lookup = pg_lookup,
    .create = pg_create,
    .foreach_id = pg_foreach_id,
    .foreach_link = pg_foreach_link,
    .close = pg_close,
};

/* Connect pc now: at open a server that cannot be reached, refuses us or
 * has no links table is the user's to fix, said in one line. */
static int pc_open(struct links_pg *p, struct pgconn *pc, const char *url, int primary,
                   char *err, size_t errcap)
{
    pc->url = url;
    pc->primary = primary;
    pc->c = links_pg_connect(url, p->timeout_ms, err, errcap);
    if (!pc->c)
        return -1;
    char why[256], shown[300];
    if (pg_prepare(pc->c, primary, why, sizeof why) != 0) {
        url_mask(url, shown, sizeof shown);
        snprintf(err, errcap, "%s: %s", shown, why);
        return -1;
    }
    return 0;
}

struct links *links_pg_open(const char *url, const struct links_opts *o, char *err,
                            size_t errcap)
{
    if (o->nreplicas < 0 || o->nreplicas > LINKS_REPLICAS_MAX) {
        snprintf(err, errcap, "at most %d replicas", LINKS_REPLICAS_MAX);
        return NULL;
    }
    struct links_pg *p = calloc(1, sizeof *p);
    if (!p) {
        snprintf(err, errcap, "out of memory");
        return NULL;
    }
    p->base.ops = &pg_ops;
    p->base.schema = LINKS_SCHEMA_SEED;
    p->timeout_ms = o->timeout_ms > 0 ? o->timeout_ms : TIMEOUT_DEFAULT_MS;
    p->pos = sizeof p->pool;
    p->nrep = o->nreplicas;
    int bad = pc_open(p, &p->primary, url, 1, err, errcap);
    for (int k = 0; !bad && k < p->nrep; k++)
        bad = pc_open(p, &p->rep[k], o->replicas[k], 0, err, errcap);
    if (bad) {
        pg_close(&p->base);
        return NULL;
    }
    return &p->base;
}
