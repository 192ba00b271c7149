/* space internals shared by space.c (stat and space of databases and
 * exports) and space_kv.c (of LMDB and RocksDB stores): the directory
 * measuring of space_dir.c and the text lines of space_print.c. space.c
 * calls space_kv.c, never the other way round. */
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

/* A directory's bytes (space_dir.c). Walk path: 0 ok; 1 runtime failure;
 * 2 not a directory. err: one line. */
int space_dir_measure(const char *path, struct dir_space *d, char *err, size_t errcap);
/* d's files and bytes into json, as stat --json gives them for any layout
 * (an export's also with its directory and other entry counts). */
void space_dir_json(const struct dir_space *d, int entries, cJSON *json);

/* Figures as text (space_print.c): lines in the column layout of SQLite's
 * kvtest stat ("Page-size:  %8d"); part as a percentage of whole (0 when
 * whole is 0). */
double space_pct(int64_t part, int64_t whole);
void space_print_int(const char *label, int64_t v);
void space_print_line(const char *label, const char *v);
void space_print_pct(const char *label, double v, const char *note);

/* A store's engine figures as JSON into json, or one text line (NULL)
 * (space_kv.c). */
struct store_kv_facts;
void space_kv_engine(const char *path, const struct store_kv_facts *f, cJSON *json);

#endif
