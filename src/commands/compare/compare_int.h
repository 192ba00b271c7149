/* compare internals: the samples of one side (OLD or NEW) grouped by what
 * was measured, shared by the reader (compare_read.c), the per-command
 * extraction (compare_extract.c) and the table (compare.c, compare_out.c).
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

#define CMP_LABEL_MAX 160
#define CMP_MAX_DEFS 12
#define CMP_DEF_STR 64
#define CMP_WHERE_MAX 300

/* One defining option: a number (equal within tol, relative) or a string. */
struct cmp_def {
    const char *name;          /* a literal */
    int is_str;
    double num, tol;
    char str[CMP_DEF_STR];
};

struct cmp_key {
    char label[CMP_LABEL_MAX];
    struct cmp_def defs[CMP_MAX_DEFS];
    int ndefs;
};

/* One metric's samples. name, unit: literals. */
struct cmp_metric {
    const char *name, *unit;
    int higher_better;         /* a rate (MB/s, lookups/s) */
    double *v;
    size_t n, cap;
};

struct cmp_group {
    struct cmp_key key;
    char where[CMP_WHERE_MAX]; /* FILE:LINE of its first object */
    struct cmp_metric *m;
    size_t nm, mcap;
};

struct cmp_side {
    const char *name;          /* as given: FILE, DIR or - */
    struct cmp_group *g;
    size_t ng, gcap;
    size_t objects, warmups, others;   /* measured, warm-up, not measuring */
    char where[CMP_WHERE_MAX]; /* FILE:LINE being read */
};

/* Building a key: the label starts as the command; words are appended
 * space-separated (truncated at CMP_LABEL_MAX); defs in a fixed order. */
void cmp_key_init(struct cmp_key *k, const char *command);
void cmp_key_word(struct cmp_key *k, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void cmp_key_num(struct cmp_key *k, const char *name, double v, double tol);
void cmp_key_str(struct cmp_key *k, const char *name, const char *s);

/* The name of the first def on which a and b disagree (or that one of
 * them lacks), NULL when all agree. */
const char *cmp_key_differs(const struct cmp_key *a, const struct cmp_key *b);

/* A def's value as text ("2000", "wal", "absent"). */
void cmp_def_text(const struct cmp_key *k, const char *name, char *buf, size_t cap);

/* The group of s with k's label and agreeing defs, created if new (its
 * where is s->where). NULL on out of memory. */
struct cmp_group *cmp_side_group(struct cmp_side *s, const struct cmp_key *k);

/* Append one sample; values that are not finite and > 0 (a percentile of
 * nothing, a missing figure) are not samples and are dropped. -1 on OOM. */
int cmp_group_add(struct cmp_group *g, const char *metric, const char *unit,
                  int higher_better, double v);

void cmp_side_free(struct cmp_side *s);

/* Read one side (FILE, DIR or "-"). 0, or 2 after printing one line
 * "kvtest compare: ..." (unreadable input, a line that is not kvtest
 * JSON, out of memory). */
int cmp_side_read(struct cmp_side *s, const char *path);

/* Extraction of one kvtest --json object (compare_extract.c). command:
 * its "command". Returns 0, 1 when the command measures nothing here
 * (stat, init, ...), -1 when the object lacks what its command always
 * has (the message goes to err), -2 on out of memory. */
int cmp_extract(struct cmp_side *s, const cJSON *obj, const char *command,
                char *err, size_t errcap);

/* One row of the table: a metric of a measurement present on both sides. */
struct cmp_row {
    const struct cmp_group *go, *gn;
    const struct cmp_metric *mo, *mn;
    struct stats_cmp c;
    enum stats_verdict verdict;
    int tested;                /* enough samples for a verdict: in Holm's family */
};

/* The table as text or one JSON object on stdout (compare_out.c). */
void cmp_print_text(const struct cmp_side *old, const struct cmp_side *nw,
                    const struct cmp_row *rows, size_t n);
int cmp_print_json(const struct cmp_side *old, const struct cmp_side *nw,
                   const struct cmp_row *rows, size_t n);

/* cJSON lookups that tolerate absence: a member, a number (dflt when
 * absent or not a number), a string (NULL), a true boolean. */
const cJSON *cmp_j(const cJSON *o, const char *name);
double cmp_jnum(const cJSON *o, const char *name, double dflt);
const char *cmp_jstr(const cJSON *o, const char *name);
int cmp_jtrue(const cJSON *o, const char *name);

#endif
