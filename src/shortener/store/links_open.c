/* links_open: a link store named by its text (links.h: PATH, sqlite:PATH,
 * postgres://...) parsed once into a struct links_store, and opened or
 * created from that value: the one place that knows which engines there
 * are. Creating with --from checks the request first (the kinds, the
 * schema, a store copied onto itself) and opens the source before the
 * engine creates anything, so that a wrong request is refused with a
 * clear line and leaves nothing behind, and no engine has to open a store
 * of the other kind. */
#include "shortener/store/links.h"

#include <stdio.h>
#include <string.h>

#include "base/url_mask.h"
#include "shortener/store/links_int.h"
#include "shortener/store/links_pg_int.h"

static int has_prefix(const char *s, const char *p)
{
    return strncmp(s, p, strlen(p)) == 0;
}

int links_store_parse(const char *text, struct links_store *st, char *err, size_t errcap)
{
    memset(st, 0, sizeof *st);
    st->text = text;
    st->opts.sqlite_cache = 1;
    url_mask(text, st->shown, sizeof st->shown);   /* only a password changes */
    if (has_prefix(text, "postgres://") || has_prefix(text, "postgresql://")) {
        st->kind = LINKS_KIND_POSTGRES;
        st->pg_url = text;
        return 0;
    }
    st->kind = LINKS_KIND_SQLITE;
    const char *file = text;
    if (has_prefix(text, "sqlite:"))
        file = text + strlen("sqlite:");
    else if (strstr(text, "://")) {   /* a URL of something else: not a path */
        snprintf(err, errcap, "'%s' is not a links store (PATH, sqlite:PATH or "
                 "postgres://...)", text);
        return -1;
    }
    if (!*file) {
        snprintf(err, errcap, "empty store path");
        return -1;
    }
    st->sqlite_file = file;
    return 0;
}

struct links *links_open_store(const struct links_store *st, char *err, size_t errcap)
{
    if (st->kind == LINKS_KIND_POSTGRES)
        return links_pg_open(st->pg_url, &st->opts, err, errcap);
    if (st->opts.nreplicas > 0) {
        snprintf(err, errcap, "%s: replicas need a PostgreSQL store", st->sqlite_file);
        return NULL;
    }
    return links_sqlite_open(st->sqlite_file, &st->opts, err, errcap);
}

/* The target of a parsed store: what tells two stores apart. */
static const char *target_of(const struct links_store *st)
{
    return st->kind == LINKS_KIND_POSTGRES ? st->pg_url : st->sqlite_file;
}

/* What can be refused from the request alone (ERRBUF_MISUSE): a schema
 * the engine lacks, a source of a kind the engine cannot copy, a store
 * copied onto itself. */
static int check_request(const struct links_store *st, const struct links_create_opts *o,
                         char *err, size_t errcap)
{
    if (st->kind == LINKS_KIND_POSTGRES && o->schema != LINKS_SCHEMA_SEED) {
        snprintf(err, errcap, "--schema %s is SQLite's (WITHOUT ROWID); a PostgreSQL store "
                 "has one table layout", links_schema_name(o->schema));
        return ERRBUF_MISUSE;
    }
    const struct links_store *f = o->from;
    if (!f)
        return 0;
    if (st->kind == LINKS_KIND_SQLITE && f->kind != LINKS_KIND_SQLITE) {
        snprintf(err, errcap, "--from %s: an SQLite store copies from an SQLite "
                 "database (a PostgreSQL store can copy from either)", f->shown);
        return ERRBUF_MISUSE;
    }
    if (f->kind == st->kind && strcmp(target_of(f), target_of(st)) == 0) {
        snprintf(err, errcap, "--from %s: cannot copy a store onto itself", f->shown);
        return ERRBUF_MISUSE;
    }
    return 0;
}

int links_create_db_opts(const struct links_store *st, const struct links_create_opts *o,
                         int64_t *copied, char *err, size_t errcap)
{
    *copied = 0;
    int rc = check_request(st, o, err, errcap);
    if (rc)
        return rc;
    struct links *src = NULL;
    if (o->from) {   /* a clear message before anything is created */
        char why[400];
        struct links_store from = *o->from;
        from.opts = (struct links_opts){.sqlite_cache = 1};   /* the source alone */
        src = links_open_store(&from, why, sizeof why);
        if (!src) {
            snprintf(err, errcap, "--from: %s", why);
            return ERRBUF_FAIL;
        }
    }
    if (st->kind == LINKS_KIND_POSTGRES) {
        rc = links_pg_create_db(st->pg_url, o, src, copied, err, errcap);
        links_close(src);
        return rc;
    }
    links_close(src);   /* SQLite copies by ATTACH of the source's path */
    return links_sqlite_create_db(st->sqlite_file, o, o->from ? o->from->sqlite_file : NULL,
                                  copied, err, errcap);
}
