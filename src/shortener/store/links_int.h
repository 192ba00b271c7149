/* links_int: what the link store's implementations share inside
 * shortener/store/ (nobody else includes it; they use links.h).
 *
 * A store is one operations table and a struct that begins with
 * struct links: links.c dispatches the public calls through l->ops, so the
 * service, the cache and the bench never ask which engine they talk to;
 * links_open.c alone names the engines (it opens and creates from a
 * parsed struct links_store).
 * links_sqlite*.c is the embedded store (one SQLite connection);
 * links_pg*.c the networked one (libpq connections to a primary and its
 * replicas). */
#ifndef KVTEST_SHORTENER_LINKS_INT_H
#define KVTEST_SHORTENER_LINKS_INT_H
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "shortener/store/links.h"

/* The callback of links_foreach_link: one whole link, in creation order. */
typedef int (*links_link_fn)(void *ctx, int64_t seq, const char *id, size_t idlen,
                             const char *url, size_t urllen, int64_t created);

struct links_ops {
    enum links_kind kind;
    enum links_rc (*lookup)(struct links *l, const char *id, size_t idlen, char *url,
                            size_t cap, size_t *urllen);
    enum links_rc (*create)(struct links *l, const char *url, size_t urllen,
                            char id_out[LINKS_ID_LEN + 1]);
    int64_t (*foreach_id)(struct links *l, int64_t limit,
                          int (*fn)(void *ctx, const char *id, size_t len), void *ctx);
    /* Every link with its creation number (init --from copies them). */
    int64_t (*foreach_link)(struct links *l, links_link_fn fn, void *ctx);
    void (*close)(struct links *l);
};

/* Counters in the store's own struct: single writer (the thread that owns
 * the connection), read relaxed by /stats (base/counter.h). */
struct links_counters {
    _Atomic uint64_t primary_reads, replica_reads, fallbacks, failovers, reconnects,
        unavailable;
};

struct links {
    const struct links_ops *ops;
    enum links_schema schema;
    struct links_counters n;
    char err[256];
};

/* Each engine's open (links_open.c has told the engine from the parsed store). */
struct links *links_sqlite_open(const char *path, const struct links_opts *o, char *err,
                                size_t errcap);
struct links *links_pg_open(const char *url, const struct links_opts *o, char *err,
                            size_t errcap);
/* Each engine's init (links_create_db_opts dispatches to them once the
 * request passed its checks). SQLite: from is the source's database file
 * (NULL without --from; it copies by ATTACH); PostgreSQL: src is the
 * opened source (NULL without --from), read through its foreach_link. */
int links_sqlite_create_db(const char *path, const struct links_create_opts *o,
                           const char *from, int64_t *made, char *err, size_t errcap);
int links_pg_create_db(const char *url, const struct links_create_opts *o,
                       struct links *src, int64_t *made, char *err, size_t errcap);

/* A fresh id of n letters of [A-Za-z0-9] (unbiased) into id (n + 1 bytes,
 * NUL-terminated), drawing on pool (pooln bytes of OS CSPRNG output,
 * refilled when *pos reaches pooln). 0, or -1 when the OS generator fails. */
int links_fill_id(char *id, size_t n, unsigned char *pool, size_t pooln, size_t *pos);

#endif
