/* layout: what a PATH is (database, flat export, tree export) and how a
 * key maps to a file name in an export, exactly as SQLite's kvtest names
 * them: flat "%06d" of the key (000001), tree "%02d/%02d/%02d" of
 * key/10000, (key/100)%100, key%100 (00/00/01). */
#ifndef KVTEST_LAYOUT_H
#define KVTEST_LAYOUT_H
#include <stddef.h>
#include <stdint.h>

enum layout_kind {
    LAYOUT_MISSING,  /* does not exist */
    LAYOUT_DB,       /* a regular file with the SQLite header (or empty) */
    LAYOUT_FLAT,     /* a directory without a "00" subdirectory */
    LAYOUT_TREE,     /* a directory with a "00" subdirectory */
    LAYOUT_OTHER,    /* a regular file that is not SQLite, a device, ... */
    LAYOUT_LMDB,     /* "lmdb:DIR": an LMDB environment (DIR/data.mdb) */
    LAYOUT_ROCKSDB,  /* "rocksdb:DIR": a RocksDB database (DIR/CURRENT) */
};

/* The key-value stores are named by a prefix, so that a plain path keeps
 * the meaning it had before they existed: "lmdb:DIR", "rocksdb:DIR". */
#define LAYOUT_LMDB_PREFIX "lmdb:"
#define LAYOUT_ROCKSDB_PREFIX "rocksdb:"

/* LAYOUT_LMDB or LAYOUT_ROCKSDB if path starts with that store's prefix,
 * else LAYOUT_MISSING (a plain path). */
enum layout_kind layout_prefix_kind(const char *path);

/* The directory a prefixed path names ("lmdb:x" -> "x"); path itself when
 * it has no prefix. Points into path. */
const char *layout_fs_path(const char *path);

/* Is k one of the key-value stores (LMDB, RocksDB)? */
int layout_is_kv(enum layout_kind k);

/* "db", "flat", "tree", "lmdb", "rocksdb", "missing", "other". */
const char *layout_kind_name(enum layout_kind k);

/* Classify path. On LAYOUT_MISSING/LAYOUT_OTHER a one-line reason
 * (errno text, "not an SQLite database") is written to why. A prefixed
 * path is that store or nothing: "lmdb:DIR" where DIR holds a RocksDB
 * database (or nothing of either) is LAYOUT_OTHER, saying so. */
enum layout_kind layout_detect(const char *path, char *why, size_t whylen);

/* The name of key's file relative to the export directory: "000001" or
 * "00/00/01". key >= 0. Returns the length, or -1 if it does not fit. */
int layout_relname(char *buf, size_t cap, int tree, int64_t key);

/* dir + "/" + relname. Returns the length, or -1 if it does not fit. */
int layout_path(char *buf, size_t cap, const char *dir, int tree, int64_t key);

/* Parse a file name relative to an export back into its key; -1 if the
 * name is not one layout_relname() produces for that layout. */
int64_t layout_parse(const char *relname, int tree);

/* Largest key with a file in an export (scans names; tree: from the
 * largest subdirectory down). 0 if there is none, -1 on an I/O error
 * (errno set). */
int64_t layout_max_key(const char *dir, int tree);

/* One walk over an export: *present = files whose names are keys in
 * 1..max_id (names as layout_relname() makes them), *largest = the largest
 * key of any file. Reads directory entries only (no stat, no file data),
 * so it costs a readdir pass. 0, or -1 on an I/O error (errno set). */
int layout_count_keys(const char *dir, int tree, int64_t max_id, int64_t *present,
                      int64_t *largest);

/* Does dir look like an export: every entry a name of digits (files for
 * flat, directories for tree)? 1 yes (also for an empty directory), 0 no,
 * -1 when dir cannot be read. *nentries gets the entry count. */
int layout_is_export(const char *dir, int64_t *nentries);

#endif
