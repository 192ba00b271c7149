/* db_scan: reading the blobs of a kvtest database in key order, for
 * "kvtest export". Each scan owns a read-only connection, so threads
 * reading key ranges of their own can run side by side. */
#ifndef KVTEST_DB_SCAN_H
#define KVTEST_DB_SCAN_H
#include <stddef.h>
#include <stdint.h>

struct db_scan;

/* Smallest and largest key and the number of rows of the kv table at
 * path. 0, or -1 with the cause (without the path) in err. */
int db_scan_bounds(const char *path, int64_t *lo, int64_t *hi, int64_t *count, char *err,
                   size_t cap);

/* Start a scan of keys [from, to] in ascending order. 0, or -1 with the
 * cause (without the path) in err and *out NULL. */
int db_scan_open(struct db_scan **out, const char *path, int64_t from, int64_t to, char *err,
                 size_t cap);

/* The next row: 1 with *k, *v (NULL for an empty or NULL value; valid
 * until the next call) and *n bytes; 0 past the last; -1 on an error
 * (db_scan_error says which). */
int db_scan_next(struct db_scan *s, int64_t *k, const void **v, int64_t *n);

/* The cause of the last failure, one line. */
const char *db_scan_error(const struct db_scan *s);

void db_scan_close(struct db_scan *s);

#endif
