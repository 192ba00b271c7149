/* links: the link store of the URL shortener, one interface over two
 * engines. A store is named by text, parsed once (links_store_parse) into
 * the value every open and create takes:
 *   PATH or sqlite:PATH        an SQLite database file (embedded)
 *   postgres://... or postgresql://...   a PostgreSQL server (libpq URI)
 *
 * One `struct links` is one connection (SQLite) or one set of connections
 * (PostgreSQL: the primary and each read replica) with prepared
 * statements; it must be used by one thread at a time (open one per worker
 * thread, as the service and the in-process benchmark both do).
 *
 * SQLite: the database is in WAL mode so readers never block the writer,
 * and every connection has a busy timeout so concurrent writers wait
 * instead of failing.
 *
 * PostgreSQL: creates go to the primary; lookups go round-robin to the
 * replicas when there are any, and to the primary when a replica does not
 * have the id (it may lag behind a create: read-your-writes) or cannot be
 * reached. A connection that fails is retried after a growing pause (100
 * ms up to 2 s) while the others answer; when no server can answer, a call
 * returns LINKS_UNAVAILABLE at once instead of waiting.
 * One table: links(id bigint identity primary key, link_hash text not null
 * unique, link_target text not null, created_at bigint not null).
 *
 * SQLite schemas (created by links_create_db_opts; links_open_store tells them apart by the
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

#include "base/errbuf.h"   /* ERRBUF_FAIL, ERRBUF_MISUSE: links_create_db_opts */

#define LINKS_ID_LEN 10      /* length of the ids we generate */
#define LINKS_ID_MAX 64      /* longest id a lookup accepts */
#define LINKS_URL_MAX 2048   /* longest URL we store, in bytes */
#define LINKS_BUSY_MS 10000  /* busy timeout on every connection */

/* Results of lookup and create. */
enum links_rc {
    LINKS_OK = 0,
    LINKS_NOTFOUND = 1,
    LINKS_ERROR = -1,   /* the store failed; links_errmsg() says why */
    LINKS_UNAVAILABLE = -2,   /* no server of the store can be reached now
                                 (PostgreSQL): try again later */
};

enum links_kind { LINKS_KIND_SQLITE = 0, LINKS_KIND_POSTGRES = 1 };
#define LINKS_REPLICAS_MAX 8

const char *links_kind_name(enum links_kind k);   /* "sqlite", "postgres" */

enum links_schema { LINKS_SCHEMA_SEED = 0, LINKS_SCHEMA_COVERING = 1 };

struct links;

struct links_opts {
    int sqlite_cache;                /* SQLite: see links_open_store */
    int sqlite_exclusive;            /* SQLite: this process alone opens the
                                        file (the unix-excl VFS), and a frame
                                        is kept in the WAL (links_sqlite.c) */
    const char *const *replicas;     /* PostgreSQL: read replicas' URLs */
    int nreplicas;                   /* 0 .. LINKS_REPLICAS_MAX */
    int timeout_ms;                  /* PostgreSQL: connect and query
                                        timeout (0: 5000) */
};

#define LINKS_SHOWN_MAX 512

/* A store as the user named it, parsed once: every command, the service,
 * the bench and init pass this value whole, and the engine is chosen from
 * its kind in one place (links_open.c). Its pointers point into text (and
 * opts.replicas into the caller's list), which must outlive it. */
struct links_store {
    const char *text;            /* as given: PATH, sqlite:PATH, postgres://... */
    enum links_kind kind;
    const char *sqlite_file;     /* SQLite: the database file (text without
                                    "sqlite:"); NULL for PostgreSQL */
    const char *pg_url;          /* PostgreSQL: the libpq URI as given; NULL
                                    for SQLite */
    char shown[LINKS_SHOWN_MAX]; /* as messages and results show it: a
                                    URL's password as "***" */
    struct links_opts opts;      /* the engine options, set by the caller
                                    after the parse */
};

/* Parse text into *st: which engine it names, its target, how it is
 * shown; opts get the defaults (SQLite's page cache on, no replicas, the
 * default timeout). Any other "SCHEME://" (or an empty text) is a misuse: -1 with
 * the reason in err. */
int links_store_parse(const char *text, struct links_store *st, char *err, size_t errcap);

/* Open an existing store with st's options. Fails (NULL, reason in err)
 * when the file is missing, not SQLite, the server cannot be reached or
 * refuses us, or there is no links table (on the primary and on every
 * replica: one line naming the server). Never creates a file or a table.
 * opts.sqlite_cache = 1 keeps SQLite's default page cache; 0 applies
 * PRAGMA cache_size=0 and PRAGMA temp_store=0 (the original experiment's
 * switch; PostgreSQL ignores it). */
struct links *links_open_store(const struct links_store *st, char *err, size_t errcap);
enum links_kind links_kind_of(const struct links *l);

/* A PostgreSQL store's routing counters (all zero for SQLite): lookups
 * answered by the primary and by replicas, lookups a replica did not find
 * and the primary was asked (fallbacks), replica failures that moved a
 * lookup on (failovers), connections made again, calls answered
 * LINKS_UNAVAILABLE. Safe from another thread (figures may lag). */
struct links_stats {
    uint64_t primary_reads, replica_reads, fallbacks, failovers, reconnects, unavailable;
};
void links_stats_add(const struct links *l, struct links_stats *sum);   /* NULL adds 0 */

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

/* Call fn for up to limit ids (limit <= 0: all) in creation (id) order;
 * stops early when fn returns non-zero. Returns the number of ids visited,
 * or -1 on a store error. */
int64_t links_foreach_id(struct links *l, int64_t limit,
                         int (*fn)(void *ctx, const char *id, size_t len),
                         void *ctx);

/* Convenience for benchmarks: up to limit ids (limit <= 0: all) as one
 * malloc'd array of *n records of LINKS_ID_MAX + 1 bytes each, every record
 * a NUL-terminated id: record i is at (*ids) + i * (LINKS_ID_MAX + 1).
 * Returns 0 or -1 (error in links_errmsg); free(*ids) when done. */
int links_ids(struct links *l, int64_t limit, char **ids, int64_t *n);

const char *links_errmsg(const struct links *l);

/* Create a new links store (schema, WAL) and insert n links with
 * realistic URLs of varied length generated from seed by urlgen (the URLs,
 * not the ids, are reproducible: ids always come from the CSPRNG). Refuses
 * an existing non-empty file unless force (then it, and its -wal/-shm, are
 * replaced). The database is built under a temporary name and renamed into
 * place, so a failure never leaves a half-made file at path.
 * Returns 0, or ERRBUF_FAIL / ERRBUF_MISUSE (base/errbuf.h: the request
 * itself was wrong) with the reason in err. */
struct links_create_opts {
    int64_t n;                 /* links to generate (ignored with from) */
    uint64_t seed;
    int force;
    enum links_schema schema;
    const struct links_store *from;   /* NULL, or a links store whose links
                                         (ids, URLs, times, order) are copied */
    int progress;              /* a progress line on stderr (if a tty) */
};
/* With a schema choice and copying. Copying makes two stores with the same links (in
 * different schemas, or SQLite's in PostgreSQL), which
 * "shortener bench --compare-db" compares. *copied gets the link count.
 * At a PostgreSQL URL: the links table is filled by COPY in one
 * transaction; an existing table is refused unless force, then dropped in
 * that same transaction, so an interruption (the connection closes)
 * leaves whatever was there before; only the seed schema exists there
 * (the covering one is SQLite's WITHOUT ROWID: a misuse). */
int links_create_db_opts(const struct links_store *st, const struct links_create_opts *o,
                         int64_t *copied, char *err, size_t errcap);

/* Schema of an open database and its name ("seed", "covering"). */
enum links_schema links_schema_of(const struct links *l);
const char *links_schema_name(enum links_schema s);

#endif
