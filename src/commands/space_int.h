/* space internals shared by space.c (stat and space of databases and
 * exports) and space_kv.c (of LMDB and RocksDB stores). */
#ifndef KVTEST_SPACE_INT_H
#define KVTEST_SPACE_INT_H
#include <stddef.h>
#include <stdint.h>

#include "base/json.h"

struct dir_space {
    int tree;            /* has a "00" subdirectory */
    int64_t files;       /* regular files */
    int64_t dirs;        /* directories, the top one included */
    int64_t others;      /* symlinks, sockets, ... (not followed) */
    int64_t apparent;    /* sum of st_size of files */
    int64_t allocated;   /* sum of st_blocks*512 of files */
    int64_t dir_bytes;   /* sum of st_blocks*512 of directories */
};

/* Walk path. 0 ok; 1 runtime failure; 2 not a directory. err: one line. */
int dir_measure(const char *path, struct dir_space *d, char *err, size_t errlen);
/* d's files and bytes into json (an export's also with its directory and
 * other entry counts). */
void dir_json(const struct dir_space *d, int entries, cJSON *json);
/* part as a percentage of whole (0 when whole is 0). */
double pct(int64_t part, int64_t whole);
/* Lines in the column layout of SQLite's kvtest stat ("Page-size:  %8d"). */
void print_int(const char *label, int64_t v);
void print_pct(const char *label, double v, const char *note);

/* A store's engine figures as JSON into json, or one text line (NULL). */
struct store_kv_facts;
void space_kv_engine(const char *path, const struct store_kv_facts *f, cJSON *json);

#endif
