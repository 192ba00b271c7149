/* space: disk space accounting of each layout (kvtest stat on a directory,
 * the extra lines of kvtest stat on a database, and kvtest space). */
#ifndef KVTEST_SPACE_H
#define KVTEST_SPACE_H
#include "base/json.h"

/* kvtest stat PATH where PATH is a flat or tree export: number of files,
 * apparent bytes, allocated bytes (st_blocks), directory overhead.
 * Prints text to stdout, or adds fields to json when json != NULL.
 * Returns exit status (0, or 1 with one line on stderr). */
int space_stat_dir(const char *path, cJSON *json);
/* Extra lines for kvtest stat DBFILE: file size, allocated bytes, payload
 * bytes, page utilisation. Same conventions. */
int space_stat_db(const char *path, cJSON *json);

/* kvtest stat lmdb:DIR / rocksdb:DIR after its entry lines: the engine's
 * own figures (LMDB: page size, pages in use as mdb_stat counts them, map
 * size; RocksDB: SST files and bytes) and the directory's bytes on disk.
 * f: what store_kv_facts found. Same conventions. */
struct store_kv_facts;
int space_stat_kv(const char *path, const struct store_kv_facts *f, cJSON *json);

#endif
