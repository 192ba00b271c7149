/* links: the SQLite link store of the URL shortener.
 *
 * One `struct links` is one SQLite connection with its prepared statements;
 * it must be used by one thread at a time (open one per worker thread, as
 * the service and the in-process benchmark both do). The database is in WAL
 * mode so readers never block the writer, and every connection has a busy
 * timeout so concurrent writers wait instead of failing.
 *
 * Schemas (created by links_create_db; links_open tells them apart by the
 * table's definition, and lookups use one statement for both):
 *   seed      links(id INTEGER PRIMARY KEY, link_hash TEXT NOT NULL UNIQUE,
 *                   link_target TEXT NOT NULL, created_at INTEGER NOT NULL)
 *             the seed project's: a lookup descends the link_hash index,
 *             then the rowid table
 *   covering  links(link_hash TEXT NOT NULL PRIMARY KEY, link_target,
 *                   created_at, id) WITHOUT ROWID, plus an index on id:
 *             a lookup is one descent that ends at the URL
 * link_hash is the public short id. */
#ifndef KVTEST_SHORTENER_LINKS_H
#define KVTEST_SHORTENER_LINKS_H
#include <stddef.h>
#include <stdint.h>

#define LINKS_ID_LEN 10      /* length of the ids we generate */
#define LINKS_ID_MAX 64      /* longest id a lookup accepts */
#define LINKS_URL_MAX 2048   /* longest URL we store, in bytes */
#define LINKS_BUSY_MS 10000  /* busy timeout on every connection */

/* Results of lookup and create. */
enum links_rc {
    LINKS_OK = 0,
    LINKS_NOTFOUND = 1,
    LINKS_ERROR = -1,   /* SQLite failed; links_errmsg() says why */
};

enum links_schema { LINKS_SCHEMA_SEED = 0, LINKS_SCHEMA_COVERING = 1 };

struct links;

/* Open an existing links database read-write. sqlite_cache = 1 keeps
 * SQLite's default page cache; 0 applies PRAGMA cache_size=0 and
 * PRAGMA temp_store=0 (the original experiment's switch). Fails (NULL,
 * reason in err) when the file is missing, not SQLite, or has no links
 * table. Never creates a file. */
struct links *links_open(const char *path, int sqlite_cache,
                         char *err, size_t errcap);
void links_close(struct links *l);   /* NULL is fine */

/* Look up id (idlen bytes, need not be NUL-terminated). On LINKS_OK copies
 * the URL NUL-terminated into url (cap must be > LINKS_URL_MAX; a longer
 * stored URL is an error) and its length to *urllen (may be NULL). */
enum links_rc links_lookup(struct links *l, const char *id, size_t idlen,
                           char *url, size_t cap, size_t *urllen);

/* Store url (already validated by the caller) under a fresh id of
 * LINKS_ID_LEN characters [A-Za-z0-9] from the OS CSPRNG, retrying on a
 * UNIQUE collision. On LINKS_OK the row is committed and id_out holds the
 * NUL-terminated id. */
enum links_rc links_create(struct links *l, const char *url, size_t urllen,
                           char id_out[LINKS_ID_LEN + 1]);

/* Call fn for up to limit ids (limit <= 0: all) in rowid order; stops
 * early when fn returns non-zero. Returns the number of ids visited, or
 * -1 on a SQLite error. */
int64_t links_foreach_id(struct links *l, int64_t limit,
                         int (*fn)(void *ctx, const char *id, size_t len),
                         void *ctx);

/* Convenience for benchmarks: up to limit ids (limit <= 0: all) as one
 * malloc'd array of *n records of LINKS_ID_MAX + 1 bytes each, every record
 * a NUL-terminated id: record i is at (*ids) + i * (LINKS_ID_MAX + 1).
 * Returns 0 or -1 (error in links_errmsg); free(*ids) when done. */
int links_ids(struct links *l, int64_t limit, char **ids, int64_t *n);

const char *links_errmsg(const struct links *l);

/* Create a new links database at path (schema, WAL) and insert n links
 * with realistic URLs of varied length generated from seed by urlgen (the
 * URLs, not the ids, are reproducible: ids always come from the CSPRNG). Refuses an
 * existing non-empty file unless force (then it, and its -wal/-shm, are
 * replaced). The database is built under a temporary name and renamed into
 * place, so a failure never leaves a half-made file at path.
 * Returns 0, or 1 (runtime) / 2 (misuse) with the reason in err. */
int links_create_db(const char *path, int64_t n, uint64_t seed, int force,
                    char *err, size_t errcap);

struct links_create_opts {
    int64_t n;                 /* links to generate (ignored with from) */
    uint64_t seed;
    int force;
    enum links_schema schema;
    const char *from;          /* NULL, or a links database whose links
                                  (ids, URLs, times, order) are copied */
};
/* links_create_db with a schema choice and copying. Same contract; copying
 * makes two databases with the same links in different schemas, which
 * "shortener bench --compare-db" compares. *copied gets the link count. */
int links_create_db_opts(const char *path, const struct links_create_opts *o,
                         int64_t *copied, char *err, size_t errcap);

/* Schema of an open database and its name ("seed", "covering"). */
enum links_schema links_schema_of(const struct links *l);
const char *links_schema_name(enum links_schema s);

#endif
