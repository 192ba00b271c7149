/* csv: --csv, the JSON objects behind --json written as CSV.
 *
 * A table collects rows from one or more JSON objects (a command that
 * prints several JSON lines prints one CSV header and all their rows) and
 * writes them with one header line: the union of the columns in first-seen
 * order, an empty cell where a row lacks a column.
 *
 * Columns are the JSON's own names flattened with dots (options.count,
 * result.latency.p99). A row is one measurement: one element of the
 * object's measurement array (rows_path, e.g. "result.runs"), its fields
 * named by the array's path without the index (result.runs.seconds), and
 * every value outside that array repeated on each row. Without rows_path,
 * or when the array is missing or empty, the object is one row. Any other
 * array of scalars is one cell, its values joined by spaces; any other
 * array holding objects or arrays is indexed (name.0.field). Strings are
 * written as they are, numbers as the JSON writes them, true/false as
 * such, null as an empty cell. Quoting is RFC 4180's: a field holding a
 * comma, a quote, CR or LF is quoted, quotes doubled; lines end in LF. */
#ifndef KVTEST_CSV_H
#define KVTEST_CSV_H
#include <stdio.h>

#include "base/json.h"

struct csv_table;

struct csv_table *csv_table_new(void);   /* NULL on out of memory */
/* Add obj's rows (see above); rows_path NULL or "" means one row.
 * 0, or -1 on out of memory (the table keeps what it had). */
int csv_table_add(struct csv_table *t, const cJSON *obj, const char *rows_path);
/* Header and rows; nothing at all for a table with no rows. 0 or -1 on a
 * write error. */
int csv_table_write(const struct csv_table *t, FILE *f);
void csv_table_free(struct csv_table *t);

/* One field, quoted when RFC 4180 needs it. */
void csv_write_field(FILE *f, const char *s);

#endif
