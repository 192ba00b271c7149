/* coldcache: make a run cold without root, and prove it.
 * Platform calls go through base/os.h. Eviction is posix_fadvise(POSIX_FADV_DONTNEED) after writing back dirty
 * pages of each file involved (sync_file_range, falling back to fdatasync:
 * a full fsync per clean file forces a journal commit each and made
 * evicting 100k files take 35 s instead of 2 s); mincore() on a read-only mapping tells how much is still
 * resident, because some (virtualised, network) filesystems ignore the hint
 * and a run must then not be called cold. */
#ifndef KVTEST_COLDCACHE_H
#define KVTEST_COLDCACHE_H
#include <stdint.h>

/* A run is called cold only if at most this fraction of its files' pages
 * was still resident after eviction. Where the filesystem honours
 * FADV_DONTNEED the residue is near 0 (a page or two held by a mapping or
 * a concurrent reader); where it ignores the hint it is near 1. Anything
 * in the gap is a bound on how warm the run could be: at 10% at least 90%
 * of the bytes come from storage, which keeps the figure a cold one, and
 * on small data sets (a few files of a few pages) one stray page does not
 * already fail the run the way 5% would. Used by run and the shortener's
 * bench alike. */
#define COLDCACHE_COLD_MAX_RESIDENT 0.10

/* Is a run whose largest resident fraction before it was `resident` a
 * cold one? The one rule behind every "cold" kvtest prints. */
int coldcache_is_cold(double resident);

/* How the eviction is done, as run reports it. */
#define COLDCACHE_METHOD "posix_fadvise(POSIX_FADV_DONTNEED) after write-back"

/* The files behind a store: for a database the db file and any -wal file;
 * for a flat/tree export the files of keys 1..max_id; for a store that is a
 * directory of its own files (LMDB, RocksDB: whole_dir) every regular file
 * in it. */
struct coldcache_set {
    const char *path;
    int is_db;          /* 1: database; 0: export directory */
    int tree;           /* export layout: 1 tree, 0 flat */
    int64_t max_id;
    int whole_dir;      /* every regular file directly in path */
};

struct coldcache_stat {
    int64_t files;      /* files examined */
    int64_t pages;      /* pages in them */
    int64_t resident;   /* pages in the page cache */
    int64_t errors;     /* files that could not be opened/advised */
};

/* NULL where this platform can evict and verify (base/os.h); otherwise why
 * not, for a one-line refusal of --cold. */
const char *coldcache_missing(void);

/* Write back + FADV_DONTNEED every file. Fills *st with residency measured
 * after eviction. Returns 0, or -1 with a one-line reason in err. */
int coldcache_evict(const struct coldcache_set *s, struct coldcache_stat *st,
                    char *err, size_t errcap);
/* Residency alone (mincore). Returns 0, or -1 with reason in err. */
int coldcache_resident(const struct coldcache_set *s, struct coldcache_stat *st,
                       char *err, size_t errcap);
/* Apply POSIX_FADV_RANDOM (random=1) or POSIX_FADV_NORMAL (random=0) to an
 * open descriptor (readahead off/on). */
int coldcache_advise_fd(int fd, int random);
/* Same for every descriptor of this process open on `path` (found through
 * /proc/self/fd, or by device and inode elsewhere): the only way to reach
 * SQLite's own descriptor without depending on its private structures.
 * Returns how many were advised. */
int coldcache_advise_path(const char *path, int random);

#endif
