/* db_create: writing a new blob database from scratch, for "kvtest init".
 * The caller owns the file (an empty one it created under a temporary
 * name) and its fate; this module owns the SQLite connection that fills it:
 * the kv table, the blobs in one long transaction committed in batches,
 * and the kv_path side table of "init --from". Every call but the last
 * two returns 0 or non-zero (an SQLite result code); after a non-zero one,
 * db_create_error says why and db_create_discard ends it. */
#ifndef KVTEST_DB_CREATE_H
#define KVTEST_DB_CREATE_H
#include <stddef.h>
#include <stdint.h>

struct db_create;

/* Open the existing file at path read-write; coalesce = 1 writes through
 * the wbuf VFS (stores/wbuf.h), 0 uses SQLite's default VFS. *out is set
 * even on failure (NULL only when out of memory). */
int db_create_open(struct db_create **out, const char *path, int coalesce);

/* SQLite kvtest's own fill, kept (init --method randomblob) so the speed
 * of ours can be compared against it in one binary: page size, VACUUM,
 * then count blobs of size + random() % (variance + 1) random bytes in one
 * INSERT ... SELECT. */
int db_create_randomblob(struct db_create *c, int64_t pagesize, int64_t count, int64_t size,
                         int64_t variance);

/* Page size, no journal, no syncs, exclusive lock, 64 MiB cache; create
 * kv(k INTEGER PRIMARY KEY, v BLOB) and open the transaction. */
int db_create_begin(struct db_create *c, int64_t pagesize);

/* Insert blob k: n bytes at blob (not copied; needed only during the call). */
int db_create_put(struct db_create *c, int64_t k, const void *blob, int64_t n);

/* Reads up to len bytes into buf; last says this is the blob's final
 * chunk. Returns 0 to go on, non-zero to give up the blob. */
typedef int db_create_read_fn(void *ctx, unsigned char *buf, int64_t len, int last);

/* Insert blob k of n bytes, filled chunk by chunk (chunk bytes at most,
 * through buf) by read: memory stays small whatever n is. *rrc gets the
 * reader's last result; when it is non-zero the row is removed again. */
int db_create_put_chunked(struct db_create *c, int64_t k, int64_t n, unsigned char *buf,
                          int64_t chunk, db_create_read_fn *read, void *ctx, int *rrc);

/* Commit what is inserted so far and open the next transaction: a commit
 * writes dirty pages sorted by page number, in long contiguous runs. */
int db_create_batch(struct db_create *c);

/* No more blobs: release the insert statement. Always safe to call. */
void db_create_puts_done(struct db_create *c);

/* The path of blob k (1..count), kept valid until db_create_paths returns. */
typedef const char *db_create_path_fn(void *ctx, int64_t k);

/* Create kv_path(k INTEGER PRIMARY KEY, path TEXT NOT NULL) and fill it
 * with keys 1..count. */
int db_create_paths(struct db_create *c, int64_t count, db_create_path_fn *path_of, void *ctx);

/* Commit the open transaction. */
int db_create_commit(struct db_create *c);

/* Why the last call failed, in one line (with the system error when
 * there was one). */
void db_create_error(const struct db_create *c, char *err, size_t errcap);

/* Close the complete database: 0, or -1 with the cause in err. The
 * handle is freed either way. */
int db_create_close(struct db_create *c, char *err, size_t errcap);

/* Close after a failure, whatever state it left (c may be NULL). */
void db_create_discard(struct db_create *c);

#endif
