/* links_open: a link store named by its text (links.h: PATH, sqlite:PATH,
 * postgres://...) opened or created: the text told apart into an engine
 * and its target, the one place that knows which engines there are.
 * Creating with --from checks the request as text first (the kinds, the
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

int links_store_kind(const char *store, enum links_kind *kind, const char **target,
                     char *err, size_t errcap)
{
    *kind = LINKS_KIND_SQLITE;
    *target = store;
    if (has_prefix(store, "postgres://") || has_prefix(store, "postgresql://")) {
        *kind = LINKS_KIND_POSTGRES;
        return 0;
    }
    if (has_prefix(store, "sqlite:"))
        *target = store + strlen("sqlite:");
    else if (strstr(store, "://")) {   /* a URL of something else: not a path */
        snprintf(err, errcap, "'%s' is not a links store (PATH, sqlite:PATH or "
                 "postgres://...)", store);
        return -1;
    }
    if (!**target) {
        snprintf(err, errcap, "empty store path");
        return -1;
    }
    return 0;
}

void links_store_show(const char *store, char *out, size_t cap)
{
    url_mask(store, out, cap);   /* only a password changes */
}

struct links *links_open_opts(const char *store, const struct links_opts *o, char *err,
                              size_t errcap)
{
    enum links_kind kind;
    const char *target;
    if (links_store_kind(store, &kind, &target, err, errcap) != 0)
        return NULL;
    if (kind == LINKS_KIND_POSTGRES)
        return links_pg_open(target, o, err, errcap);
    if (o->nreplicas > 0) {
        snprintf(err, errcap, "%s: replicas need a PostgreSQL store", target);
        return NULL;
    }
    return links_sqlite_open(target, o, err, errcap);
}

struct links *links_open(const char *store, int sqlite_cache, char *err, size_t errcap)
{
    struct links_opts o = {.sqlite_cache = sqlite_cache};
    return links_open_opts(store, &o, err, errcap);
}

/* What can be refused from the text alone (ERRBUF_MISUSE): a schema the
 * engine lacks, a source of a kind the engine cannot copy, a store copied
 * onto itself. *from is the source's target (NULL without --from). */
static int check_request(enum links_kind kind, const char *target,
                         const struct links_create_opts *o, const char **from, char *err,
                         size_t errcap)
{
    *from = NULL;
    if (kind == LINKS_KIND_POSTGRES && o->schema != LINKS_SCHEMA_SEED) {
        snprintf(err, errcap, "--schema %s is SQLite's (WITHOUT ROWID); a PostgreSQL store "
                 "has one table layout", links_schema_name(o->schema));
        return ERRBUF_MISUSE;
    }
    if (!o->from)
        return 0;
    enum links_kind fkind;
    if (links_store_kind(o->from, &fkind, from, err, errcap) != 0)
        return ERRBUF_MISUSE;
    char shown[300];
    links_store_show(o->from, shown, sizeof shown);
    if (kind == LINKS_KIND_SQLITE && fkind != LINKS_KIND_SQLITE) {
        snprintf(err, errcap, "--from %s: an SQLite store copies from an SQLite "
                 "database (a PostgreSQL store can copy from either)", shown);
        return ERRBUF_MISUSE;
    }
    if (fkind == kind && strcmp(*from, target) == 0) {
        snprintf(err, errcap, "--from %s: cannot copy a store onto itself", shown);
        return ERRBUF_MISUSE;
    }
    return 0;
}

int links_create_db_opts(const char *store, const struct links_create_opts *o,
                         int64_t *copied, char *err, size_t errcap)
{
    enum links_kind kind;
    const char *target, *from;
    *copied = 0;
    if (links_store_kind(store, &kind, &target, err, errcap) != 0)
        return ERRBUF_MISUSE;
    int rc = check_request(kind, target, o, &from, err, errcap);
    if (rc)
        return rc;
    struct links *src = NULL;
    if (from) {   /* a clear message before anything is created */
        char why[400];
        src = links_open(o->from, 1, why, sizeof why);
        if (!src) {
            snprintf(err, errcap, "--from: %s", why);
            return ERRBUF_FAIL;
        }
    }
    if (kind == LINKS_KIND_POSTGRES) {
        rc = links_pg_create_db(target, o, src, copied, err, errcap);
        links_close(src);
        return rc;
    }
    links_close(src);   /* SQLite copies by ATTACH of the source's path */
    struct links_create_opts so = *o;
    so.from = from;
    return links_sqlite_create_db(target, &so, copied, err, errcap);
}

int links_create_db(const char *path, int64_t n, uint64_t seed, int force,
                    char *err, size_t errcap)
{
    struct links_create_opts o = {n, seed, force, LINKS_SCHEMA_SEED, NULL, 0};
    int64_t copied;
    return links_create_db_opts(path, &o, &copied, err, errcap);
}
