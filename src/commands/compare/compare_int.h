/* compare internals: the samples of one side (OLD or NEW) grouped by what
 * was measured (compare_group.c), shared by the reader (compare_read.c),
 * the per-command extraction (compare_extract.c) and the table (compare.c,
 * compare_out.c). Calls run one way: read -> extract -> group and json.
 *
 * A group is one measurement: a label (command and the options that tell
 * measurements of one study apart, e.g. "run read db/blob random warm")
 * plus the defining options that must agree for two sides to be comparable
 * (--count, blob size, ...). Objects of one side with the same label and
 * agreeing definitions pool their samples. */
#ifndef KVTEST_COMPARE_INT_H
#define KVTEST_COMPARE_INT_H
#include <stddef.h>

#include "base/json.h"
#include "measure/stats.h"

#define COMPARE_LABEL_MAX 160
#define COMPARE_MAX_DEFS 12
#define COMPARE_DEF_STR 64
#define COMPARE_WHERE_MAX 300

/* ---- what was measured: keys, metrics, groups, sides (compare_group.c) */

/* One defining option: a number (equal within tol, relative) or a string. */
struct compare_def {
    const char *name;          /* a literal */
    int is_str;
    double num, tol;
    char str[COMPARE_DEF_STR];
};

struct compare_key {
    char label[COMPARE_LABEL_MAX];
    struct compare_def defs[COMPARE_MAX_DEFS];
    int ndefs;
};

/* One metric's samples. name, unit: literals. */
struct compare_metric {
    const char *name, *unit;
    int higher_better;         /* a rate (MB/s, lookups/s) */
    double *v;
    size_t n, cap;
};

struct compare_group {
    struct compare_key key;
    char where[COMPARE_WHERE_MAX]; /* FILE:LINE of its first object */
    struct compare_metric *m;
    size_t nm, mcap;
};

struct compare_side {
    const char *name;          /* as given: FILE, DIR or - */
    struct compare_group *g;
    size_t ng, gcap;
    size_t objects, warmups, others;   /* measured, warm-up, not measuring */
    char where[COMPARE_WHERE_MAX]; /* FILE:LINE being read */
    /* Set by a caller that reads through this reader (history): the
     * command its messages name (NULL: compare), and a call with each
     * object before it is measured (history ends a commit's point when
     * the next commit starts); a non-zero return stops the read with that
     * exit status. */
    const char *cmd;
    int (*on_object)(struct compare_side *s, const cJSON *obj);
    void *ctx;
};

/* Building a key: the label starts as the command; words are appended
 * space-separated (truncated at COMPARE_LABEL_MAX); defs in a fixed order. */
void compare_key_init(struct compare_key *k, const char *command);
void compare_key_word(struct compare_key *k, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void compare_key_num(struct compare_key *k, const char *name, double v, double tol);
void compare_key_str(struct compare_key *k, const char *name, const char *s);

/* The name of the first def on which a and b disagree (or that one of
 * them lacks), NULL when all agree. */
const char *compare_key_differs(const struct compare_key *a, const struct compare_key *b);

/* A def's value as text ("2000", "wal", "absent"). */
void compare_def_text(const struct compare_key *k, const char *name, char *buf, size_t cap);

/* The group of s with k's label and agreeing defs, created if new (its
 * where is s->where). NULL on out of memory. */
struct compare_group *compare_side_group(struct compare_side *s, const struct compare_key *k);

/* Append one sample; values that are not finite and > 0 (a percentile of
 * nothing, a missing figure) are not samples and are dropped. -1 on OOM. */
int compare_group_add(struct compare_group *g, const char *metric, const char *unit,
                  int higher_better, double v);

void compare_side_free(struct compare_side *s);

/* ---- reading a side (compare_read.c, compare_extract.c) --------------- */

/* Read one side (FILE, DIR or "-"). 0, or 2 after printing one line
 * "kvtest compare: ..." (unreadable input, a line that is not kvtest
 * JSON, out of memory). */
int compare_side_read(struct compare_side *s, const char *path);

/* Extraction of one kvtest --json object (compare_extract.c). command:
 * its "command". Returns 0, 1 when the command measures nothing here
 * (stat, init, ...), -1 when the object lacks what its command always
 * has (the message goes to err), -2 on out of memory. */
int compare_extract(struct compare_side *s, const cJSON *obj, const char *command,
                char *err, size_t errcap);

/* ---- the table (compare.c, compare_out.c) ---------------------------- */

/* One row of the table: a metric of a measurement present on both sides. */
struct compare_row {
    const struct compare_group *go, *gn;
    const struct compare_metric *mo, *mn;
    struct stats_cmp c;
    enum stats_verdict verdict;
    int tested;                /* enough samples for a verdict: in Holm's family */
    int paired;                /* --paired: signed-rank on the i-th of each side */
};

/* The table as text or one JSON object on stdout (compare_out.c). */
void compare_print_text(const struct compare_side *old, const struct compare_side *nw,
                    const struct compare_row *rows, size_t n);
int compare_print_json(const struct compare_side *old, const struct compare_side *nw,
                   const struct compare_row *rows, size_t n);

/* {"n", "median", "lo", "hi"} of a median and its interval over n samples
 * (history reports its segments in the same form). */
cJSON *compare_ci_json(const struct stats_ci *c, size_t n);

/* ---- JSON input (compare_json.c) ---------------------------------------- */

/* cJSON lookups that tolerate absence: a member, a number (dflt when
 * absent or not a number), a string (NULL), a true boolean. */
const cJSON *compare_j(const cJSON *o, const char *name);
double compare_jnum(const cJSON *o, const char *name, double dflt);
const char *compare_jstr(const cJSON *o, const char *name);
int compare_jtrue(const cJSON *o, const char *name);

#endif
