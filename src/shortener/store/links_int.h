/* links_int: what links.c (open, lookup, insert, list) and links_create.c
 * (building a database) share. Not for other modules: they use links.h. */
#ifndef KVTEST_SHORTENER_LINKS_INT_H
#define KVTEST_SHORTENER_LINKS_INT_H
#include <stddef.h>
#include <stdint.h>

#include "sqlite3.h"
#include "shortener/store/links.h"

struct links {
    sqlite3 *db;
    uint64_t busy_since_ns;   /* start of the current wait for a lock */
    sqlite3_stmt *get;
    sqlite3_stmt *put;
    enum links_schema schema;
    char err[256];
};

/* The covering schema's table (see links_create.c for why WITHOUT ROWID):
 * keyed by link_hash, so a lookup is one B-tree descent that ends at the
 * URL; id keeps the creation order for listing, with its own index. */
#define LINKS_SQL_SEED                                                  \
    "CREATE TABLE links(id INTEGER PRIMARY KEY, "                       \
    "link_hash TEXT NOT NULL UNIQUE, link_target TEXT NOT NULL, "       \
    "created_at INTEGER NOT NULL)"
#define LINKS_SQL_COVERING                                              \
    "CREATE TABLE links(link_hash TEXT NOT NULL PRIMARY KEY, "          \
    "link_target TEXT NOT NULL, created_at INTEGER NOT NULL, "          \
    "id INTEGER NOT NULL) WITHOUT ROWID; "                              \
    "CREATE INDEX links_id ON links(id)"

void links_set_err(struct links *l, const char *what);
int links_exec(struct links *l, const char *sql);
int links_configure(struct links *l, int sqlite_cache);
struct links *links_new(const char *path, int flags, char *err, size_t errcap);
/* Prepare lookup and insert for l->schema. */
int links_prepare(struct links *l);
/* Insert url under a fresh random id (written to id), retrying on a
 * collision; pool/pos is the caller's buffer of CSPRNG bytes. */
enum links_rc links_insert(struct links *l, const char *url, size_t urllen,
                           int64_t created, char *id,
                           unsigned char *pool, size_t pooln, size_t *pos);

#endif
