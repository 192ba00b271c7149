/* report: the text lines and JSON objects kvtest prints for results.
 *
 * Text output keeps the labels of SQLite's kvtest ("Total elapsed time:",
 * "Microseconds per BLOB read:", ...) so scripts that grep them keep
 * working; our additions come after those lines.
 *
 * JSON (--json): one object per result, printed on one line by
 * report_json_print(). Schema of "kvtest run PATH --json" (the scripts and
 * the CI job parse it with jq; add fields, never rename them):
 *
 * {
 *   "command": "run",
 *   "cmdline": "kvtest run x1.db --count 1000 --json",
 *   "path": "x1.db",
 *   "options": {                     every option, after defaults applied
 *     "count": 1000, "max_id": 100000, "start": 0,
 *     "order": "asc"|"desc"|"random"|"zipf", "zipf": 0.0, "seed": 0,
 *     "blob_api": false, "cache_size": 1000, "mmap": 0, "jmode": null|"wal",
 *     "nosync": false, "fsync": false, "nocheckpoint": false,
 *     "multitrans": false, "update": false, "integrity_check": false,
 *     "stats": false, "repeat": 1, "warmup": 0, "cold": false,
 *     "fadvise": null|"random"|"normal", "threads": 1, "verify": false,
 *     "latency": true                 false with --no-latency
 *   },
 *   "env": { see env_json() in env.h },
 *   "result": {
 *     "op": "read"|"write",
 *     "store": "db"|"flat"|"tree",
 *     "api": "sql"|"blob"|"stdio",
 *     "page_size": 4096,              databases only
 *     "cache_size": 1000,             databases only (as PRAGMA reports it)
 *     "jmode": "delete",              databases only (journal mode in effect)
 *     "count": 1000,                  blobs accessed per run (misses excluded)
 *     "misses": 0,                    keys not found (per run, summed over runs)
 *     "bytes": 10000000,              content bytes per run (median run)
 *     "seconds": 0.123,               median run
 *     "us_per_blob": 12.3,            median run
 *     "mb_per_s": 81.3,               median run (MB = 10^6 bytes)
 *     "latency": { report_hist_json(): all measured runs merged; absent
 *                  with --no-latency },
 *     "timer_ns": 25.1,               cost of the per-access timer (one clock
 *                                     read + one histogram record), measured
 *                                     in-process; absent with --no-latency
 *     "timer_share": 0.004,           timer_ns / (us_per_blob * 1000)
 *     "runs": [ { "seconds", "us_per_blob", "mb_per_s", "bytes", "count",
 *                 "misses", "storage_read_bytes", "storage_write_bytes",
 *                 "cold": {...} when --cold }, ... ],   one per measured run
 *     "repeat": { "us_per_blob": {"min","median","max",
 *                                 "ci_lo","ci_hi","ci_covered","n"},
 *                 "mb_per_s":    {the same} },
 *                                     median over the n measured runs and its
 *                                     95% interval (stats_median_ci: order
 *                                     statistics); ci_covered false below 6
 *                                     runs, where [ci_lo, ci_hi] = [min, max]
 *     "cold": { "method": "posix_fadvise(POSIX_FADV_DONTNEED) after write-back",
 *               "resident_fraction": 0.0 (max over runs),
 *               "effective": true|false,
 *               "storage_bytes_per_blob": 12345.6 },     only with --cold
 *     "threads": 2,                   only with --threads > 1
 *     "verify": { "status": "ok"|"unverifiable", "checked": 1000,
 *                 "unverifiable": 0 },  only with --verify ("unverifiable":
 *                                     blobs too small to carry a checksum)
 *     "integrity_check": ["ok"],      only with --integrity-check (rows of
 *                                     PRAGMA integrity_check)
 *     "io": {"rchar", "wchar", "syscr", "syscw", "read_bytes", "write_bytes",
 *            "cancelled_write_bytes"}  only with --stats: /proc/self/io deltas
 *                                     summed over the measured runs,
 *     "missing_keys": 0               flat/tree only: keys absent from the
 *                                     export within 1..min(max_id, largest
 *                                     key present); > 0 also warns on stderr
 *   }
 * }
 *
 * report_hist_json() gives, in microseconds (floating point):
 *   {"count": N, "min": .., "p50": .., "p90": .., "p99": .., "p999": ..,
 *    "max": .., "mean": ..}
 */
#ifndef KVTEST_REPORT_H
#define KVTEST_REPORT_H
#include <stdio.h>
#include "base/cli.h"
#include "base/json.h"
#include "measure/hist.h"
#include "measure/stats.h"

/* Percentiles of h in microseconds, as documented above. NULL on OOM. */
cJSON *report_hist_json(const struct hist *h);

/* One text line:
 *   "LABEL (us): min 3.1 p50 4.0 p90 5.2 p99 9.8 p99.9 20.4 max 131.0 mean 4.3"
 * Nothing for an empty histogram. */
void report_print_latency(FILE *f, const char *label, const struct hist *h);

/* Print obj on one line to stdout (unformatted), then free it; under
 * report_csv_begin, add its rows to the CSV table instead. 0, or -1 on out
 * of memory. */
int report_json_print(cJSON *obj);

/* --csv: from here on report_json_print collects rows (csv.h: one per
 * element of the array at rows_path, NULL for one per object), and
 * report_csv_end writes them all to stdout under one header. main calls
 * report_csv_end after every command (a no-op without a begin), so a
 * command only calls begin. 0, or -1 on out of memory / a write error. */
int report_csv_begin(const char *rows_path);
int report_csv_end(void);

/* The output option group: --json (one JSON object per result) and --csv
 * (the same objects' fields as CSV rows), which every command with results
 * takes. Declared once so that the two rows, the rule between them and the
 * struct a command keeps them in cannot differ from command to command. */
struct report_out {
    int json;   /* --json; also set by report_out_begin for --csv */
    int csv;    /* --csv */
};

/* The group's two rows of an option table over o (a struct report_out *),
 * for a table that lists them side by side; a table that has other rows
 * between them (the order is what the help, completion and the options
 * JSON show) writes the two single rows where they stand. */
#define REPORT_OUT_JSON_OPT(o) CLI_FLAG_OPT("json", &(o)->json)
#define REPORT_OUT_CSV_OPT(o) CLI_FLAG_OPT("csv", &(o)->csv)
#define REPORT_OUT_OPTS(o) REPORT_OUT_JSON_OPT(o), REPORT_OUT_CSV_OPT(o)

/* What every command does with its output group after parsing: --csv
 * with --json is ERRBUF_MISUSE (base/errbuf.h); --csv alone is
 * report_csv_begin(rows_path) and o->json = 1, so the command builds its
 * JSON objects as for --json and they come out as CSV (ERRBUF_FAIL when
 * out of memory). 0 when all is well; the reason in err otherwise, for
 * the command to print and turn into an exit status (cli_status). */
int report_out_begin(struct report_out *o, const char *rows_path, char *err, size_t errcap);

/* A new result object {"command": command, "cmdline": cli_cmdline(),
 * "env": env_json(path)} to which callers add "options" and "result". */
cJSON *report_json_new(const char *command, const char *path);

/* {"min","median","max"} of v[0..n) (n >= 1); v is sorted in place. */
cJSON *report_spread_json(double *v, int n);

/* Median of v[0..n) (n >= 1); v is sorted in place. */
double report_median(double *v, int n);

/* The median's 95% interval over n rounds added to obj as "ci_lo",
 * "ci_hi", "ci_covered", "n" (beside a spread's min/median/max). */
void report_ci_json(cJSON *obj, const struct stats_ci *ci, int n);

/* One line to stdout: "Median LABEL: est (95% CI lo-hi, N rounds)", or
 * where the interval does not reach 95% (below 6 rounds) the min-max it
 * falls back to, saying so. prec: decimals. */
void report_print_median_ci(const char *label, const struct stats_ci *ci, int n, int prec);

#endif
