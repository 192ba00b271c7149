/* links_sqlite_int: what links_sqlite.c (open, lookup, insert, list) and
 * links_sqlite_create.c (building a database) share. */
#ifndef KVTEST_SHORTENER_LINKS_SQLITE_INT_H
#define KVTEST_SHORTENER_LINKS_SQLITE_INT_H
#include <stddef.h>
#include <stdint.h>

#include "sqlite3.h"
#include "shortener/store/links_int.h"

struct links_sqlite {
    struct links base;        /* first: a struct links * points here */
    sqlite3 *db;
    uint64_t busy_since_ns;   /* start of the current wait for a lock */
    sqlite3_stmt *get;
    sqlite3_stmt *put;
};

/* The covering schema's table (see links_sqlite_create.c for why WITHOUT
 * ROWID): keyed by link_hash, so a lookup is one B-tree descent that ends
 * at the URL; id keeps the creation order for listing, with its own index. */
#define LINKS_SQL_SEED                                                  \
    "CREATE TABLE links(id INTEGER PRIMARY KEY, "                       \
    "link_hash TEXT NOT NULL UNIQUE, link_target TEXT NOT NULL, "       \
    "created_at INTEGER NOT NULL)"
#define LINKS_SQL_COVERING                                              \
    "CREATE TABLE links(link_hash TEXT NOT NULL PRIMARY KEY, "          \
    "link_target TEXT NOT NULL, created_at INTEGER NOT NULL, "          \
    "id INTEGER NOT NULL) WITHOUT ROWID; "                              \
    "CREATE INDEX links_id ON links(id)"

void links_sqlite_set_err(struct links_sqlite *l, const char *what);
int links_sqlite_exec(struct links_sqlite *l, const char *sql);
int links_sqlite_configure(struct links_sqlite *l, int sqlite_cache);
/* Open path with flags and the VFS vfs (NULL: the default). */
struct links_sqlite *links_sqlite_new(const char *path, int flags, const char *vfs, char *err,
                                      size_t errcap);
/* Prepare lookup and insert for l->base.schema. */
int links_sqlite_prepare(struct links_sqlite *l);
/* Insert url under a fresh random id (written to id), retrying on a
 * collision; pool/pos is the caller's buffer of CSPRNG bytes. */
enum links_rc links_sqlite_insert(struct links_sqlite *l, const char *url, size_t urllen,
                                  int64_t created, char *id,
                                  unsigned char *pool, size_t pooln, size_t *pos);

#endif
