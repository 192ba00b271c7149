/* init internals: the two ways of filling the kv table of a new database
 * (init.c owns the file, its name and the report). */
#ifndef KVTEST_INIT_INT_H
#define KVTEST_INIT_INT_H
#include <stdint.h>

#include "commands/init.h"
#include "sqlite3.h"

/* Ours: xoshiro content generated in a second thread while this one
 * inserts, no journal, commits every 32 MB. Adds the blob bytes to *bytes.
 * Returns an SQLite result code. */
int init_fill_fast(sqlite3 *db, const struct init_opts *o, const char *cmd, int64_t *bytes);

/* SQLite kvtest's own INSERT ... SELECT randomblob(), as a baseline. */
int init_fill_randomblob(sqlite3 *db, const struct init_opts *o);

#endif
