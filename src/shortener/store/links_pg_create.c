/* links_pg_create: "shortener init postgres://...": the links table filled
 * by COPY in one transaction (links.h, links_create_db_opts).
 *
 * Why one transaction and no temporary name: PostgreSQL's DDL is
 * transactional, so DROP (with --force), CREATE, COPY and the keys become
 * visible together at COMMIT, and a Ctrl-C, a kill or a lost connection
 * before it leaves the database as it was. The keys are added after the
 * COPY: one index build instead of a descent per row. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/url_mask.h"
#include "measure/progress.h"
#include "shortener/store/links_int.h"
#include "shortener/store/links_pg_int.h"
#include "shortener/store/urlgen.h"

#define COPY_CHUNK 65536

struct copy {
    PGconn *c;
    struct links *src;   /* --from's store, or NULL: generate */
    char *buf;
    size_t len;
    int64_t rows, bytes;
    struct progress pr;
    int show;
    char err[300];
};

static int copy_flush(struct copy *cp)
{
    if (cp->len && pq_lib->PQputCopyData(cp->c, cp->buf, (int)cp->len) != 1) {
        links_pg_errline(cp->c, NULL, cp->err, sizeof cp->err);
        return -1;
    }
    cp->len = 0;
    return 0;
}

/* Append s as a COPY text field: backslash, tab, newline and CR escaped. */
static void put_field(struct copy *cp, const char *s, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        char ch = s[k];
        const char *esc = ch == '\\' ? "\\\\" : ch == '\t' ? "\\t" : ch == '\n' ? "\\n"
                        : ch == '\r' ? "\\r" : NULL;
        if (esc) {
            cp->buf[cp->len++] = esc[0];
            cp->buf[cp->len++] = esc[1];
        } else {
            cp->buf[cp->len++] = ch;
        }
    }
}

/* One row "seq\tid\turl\tcreated\n" (links_link_fn). */
static int copy_row(void *ctx, int64_t seq, const char *id, size_t idlen, const char *url,
                    size_t urllen, int64_t created)
{
    struct copy *cp = ctx;
    /* worst case: every byte escaped, plus two numbers and separators */
    size_t need = 2 * (idlen + urllen) + 64;
    if (idlen > LINKS_ID_MAX || urllen > LINKS_URL_MAX) {
        snprintf(cp->err, sizeof cp->err, "link %lld is longer than a link may be",
                 (long long)seq);
        return -1;
    }
    if (cp->len + need > COPY_CHUNK && copy_flush(cp) != 0)
        return -1;
    cp->len += (size_t)snprintf(cp->buf + cp->len, COPY_CHUNK - cp->len, "%lld\t",
                                (long long)seq);
    put_field(cp, id, idlen);
    cp->buf[cp->len++] = '\t';
    put_field(cp, url, urllen);
    cp->len += (size_t)snprintf(cp->buf + cp->len, COPY_CHUNK - cp->len, "\t%lld\n",
                                (long long)created);
    cp->rows++;
    cp->bytes += (int64_t)(idlen + urllen);
    if (cp->show)
        progress_update(&cp->pr, cp->rows, cp->bytes);
    return 0;
}

/* n generated links: URLs from urlgen (seed), ids from the CSPRNG. Two
 * equal ids among them fail the unique key at the end: with 62^10 ids the
 * chance is below 1e-8 for a million links, and the message says so. */
static int copy_generated(struct copy *cp, int64_t n, uint64_t seed)
{
    unsigned char pool[4096];
    size_t pos = sizeof pool;
    char id[LINKS_ID_LEN + 1];
    char *url = malloc(LINKS_URL_MAX + 1);
    int bad = !url;
    if (bad)
        snprintf(cp->err, sizeof cp->err, "out of memory");
    int64_t now = (int64_t)time(NULL);
    for (int64_t k = 0; !bad && k < n; k++) {
        size_t len = urlgen_sample(seed, (uint64_t)k, url, LINKS_URL_MAX + 1);
        if (links_fill_id(id, LINKS_ID_LEN, pool, sizeof pool, &pos) != 0) {
            snprintf(cp->err, sizeof cp->err, "OS random generator failed");
            bad = 1;
        } else if (copy_row(cp, k + 1, id, LINKS_ID_LEN, url, len, now) != 0) {
            bad = 1;
        }
    }
    free(url);
    memset(pool, 0, sizeof pool);
    return bad ? -1 : 0;
}

/* Every link of the store cp->src (named from), with its id, URL, time
 * and number. */
static int copy_from(struct copy *cp, const char *from)
{
    int64_t n = cp->src->ops->foreach_link(cp->src, copy_row, cp);
    if (n < 0 && !cp->err[0])
        snprintf(cp->err, sizeof cp->err, "--from %s: %s", from, links_errmsg(cp->src));
    return n < 0 ? -1 : 0;
}

/* COPY ... FROM STDIN, then the end of it and its result. */
static int copy_run(struct copy *cp, const struct links_create_opts *o)
{
    PGresult *r =
        pq_lib->PQexec(cp->c, "COPY links(id, link_hash, link_target, created_at) FROM STDIN");
    int ok = pq_lib->PQresultStatus(r) == PGRES_COPY_IN;
    if (!ok)
        links_pg_errline(cp->c, r, cp->err, sizeof cp->err);
    pq_lib->PQclear(r);
    if (!ok)
        return -1;
    cp->buf = malloc(COPY_CHUNK);
    if (!cp->buf) {
        snprintf(cp->err, sizeof cp->err, "out of memory");
        pq_lib->PQputCopyEnd(cp->c, "out of memory");
        return -1;
    }
    int bad = (cp->src ? copy_from(cp, o->from->text) : copy_generated(cp, o->n, o->seed)) != 0 ||
              copy_flush(cp) != 0;
    free(cp->buf);
    cp->buf = NULL;
    if (pq_lib->PQputCopyEnd(cp->c, bad ? "kvtest init failed" : NULL) != 1 && !bad) {
        links_pg_errline(cp->c, NULL, cp->err, sizeof cp->err);
        bad = 1;
    }
    while ((r = pq_lib->PQgetResult(cp->c))) {
        if (pq_lib->PQresultStatus(r) != PGRES_COMMAND_OK && !bad) {
            links_pg_errline(cp->c, r, cp->err, sizeof cp->err);
            bad = 1;
        }
        pq_lib->PQclear(r);
    }
    return bad ? -1 : 0;
}

/* Does a links table exist (in the search path)? 1, 0, or -1. */
static int table_exists(PGconn *c, char *err, size_t errcap)
{
    PGresult *r = pq_lib->PQexec(c, "SELECT to_regclass('links') IS NOT NULL");
    int out = -1;
    if (pq_lib->PQresultStatus(r) == PGRES_TUPLES_OK && pq_lib->PQntuples(r) == 1)
        out = pq_lib->PQgetvalue(r, 0, 0)[0] == 't';
    else
        links_pg_errline(c, r, err, errcap);
    pq_lib->PQclear(r);
    return out;
}

/* The keys over the copied rows, the identity's next value past the
 * largest id, statistics for the planner. */
static int finish_table(PGconn *c, char *err, size_t errcap)
{
    if (links_pg_exec(c, LINKS_PG_KEYS, err, errcap) != 0) {
        if (strstr(err, "link_hash"))   /* the unique key on link_hash */
            snprintf(err, errcap, "two generated ids are equal (a chance below 1e-8): "
                     "run init again");
        return -1;
    }
    return links_pg_exec(c, "SELECT setval(pg_get_serial_sequence('links', 'id'), "
                            "coalesce(max(id), 0) + 1, false) FROM links", err, errcap) != 0 ||
           links_pg_exec(c, "ANALYZE links", err, errcap) != 0 ? -1 : 0;
}

static int fill(PGconn *c, const struct links_create_opts *o, struct links *src,
                int64_t *made, char *err, size_t errcap)
{
    if (links_pg_exec(c, "BEGIN", err, errcap) != 0)
        return ERRBUF_FAIL;
    int exists = table_exists(c, err, errcap);
    if (exists < 0)
        return ERRBUF_FAIL;
    if (exists && !o->force) {
        snprintf(err, errcap, "table links exists (use --force to replace it)");
        return ERRBUF_FAIL;
    }
    struct copy cp = {.c = c, .src = src, .show = o->progress};
    if (cp.show) {
        progress_start(&cp.pr, "shortener init", src ? 0 : o->n);
        cp.pr.unit = "links";
    }
    int bad = (exists && links_pg_exec(c, "DROP TABLE links", err, errcap) != 0) ||
              links_pg_exec(c, LINKS_PG_TABLE, err, errcap) != 0;
    if (!bad && copy_run(&cp, o) != 0) {
        snprintf(err, errcap, "%s", cp.err);
        bad = 1;
    }
    if (cp.show)
        progress_end(&cp.pr);
    if (bad || finish_table(c, err, errcap) != 0 || links_pg_exec(c, "COMMIT", err, errcap) != 0)
        return ERRBUF_FAIL;
    *made = cp.rows;
    return 0;
}

int links_pg_create_db(const char *url, const struct links_create_opts *o,
                       struct links *src, int64_t *made, char *err, size_t errcap)
{
    char shown[300];
    url_mask(url, shown, sizeof shown);
    PGconn *c = links_pg_connect(url, 10000, err, errcap);
    if (!c)
        return ERRBUF_FAIL;
    char why[400] = "";
    int rc = fill(c, o, src, made, why, sizeof why);
    if (rc)   /* closing the connection rolls the transaction back */
        snprintf(err, errcap, "%s: %s", shown, why);
    pq_lib->PQfinish(c);
    return rc;
}
