/* history internals: the series read from the inputs (history_series.c,
 * history_csv.c for CSV), the analysis of each (history_find.c), the
 * saved state that lets an appended series re-analyse only its tail
 * (history_state.c) and the report (history_out.c). Calls run one way:
 * read -> find (-> state) -> out.
 *
 * A series is one metric of one measurement ("run read db/blob random
 * warm" us/blob), one point per commit: the median of the samples that
 * commit has of it. Commits are in the order the inputs give them. */
#ifndef KVTEST_HISTORY_INT_H
#define KVTEST_HISTORY_INT_H
#include <stddef.h>

#include "base/json.h"
#include "commands/compare/compare_int.h"
#include "measure/change_find.h"
#include "measure/stats.h"

#define HISTORY_ID_MAX 72          /* a commit: a hash, a tag, a file's name */
#define HISTORY_TIME_MAX 40
#define HISTORY_METRIC_MAX 48
#define HISTORY_UNIT_MAX 24

struct history_commit {
    char id[HISTORY_ID_MAX];
    char time[HISTORY_TIME_MAX];   /* as the input gives it, "" when none */
    char where[COMPARE_WHERE_MAX]; /* FILE:LINE of its first point */
};

/* A change point as reported: the segments on either side of it. */
struct history_change {
    size_t at;                     /* index into the series' points */
    struct stats_ci before, after, ratio;
    size_t nbefore, nafter;
    double p;
    int slower;                    /* the later level is worse */
};

struct history_series {
    char label[COMPARE_LABEL_MAX];
    char metric[HISTORY_METRIC_MAX], unit[HISTORY_UNIT_MAX];
    int higher_better;
    struct compare_key key;        /* what defines the measurement */
    char where[COMPARE_WHERE_MAX]; /* FILE:LINE of its first point */
    double *v;                     /* by commit index; NaN where it has no point */
    size_t vcap;
    double *cur;                   /* the samples of the commit being read */
    size_t ncur, curcap;
    /* filled by history_find: the points (gaps left out) and commits */
    double *pt;
    size_t *pc;                    /* each point's commit index */
    size_t npt, from;              /* from: the first point searched */
    size_t *fixed, nfixed;         /* change points before from, kept (--state) */
    struct history_change *ch;
    size_t nch;
    struct stats_ci latest;        /* the median since the last change */
    const char *skipped;           /* why it was not analysed, or NULL */
};

struct history {
    struct history_commit *c;
    size_t nc, ccap;
    size_t *idx, idxcap;           /* commit id -> index + 1, open addressing */
    struct history_series *s;
    size_t ns, scap;
    int open;                      /* a commit is being read */
    /* options */
    struct change_opts opts;
    int by_time;
    const char *state;             /* --state FILE or NULL */
    size_t window;                 /* --window: an appended series searches at most its last N points */
    struct change_work work;
    size_t reused;                 /* series whose state let them skip their head */
};

/* ---- reading (history_series.c, history_csv.c) ------------------------ */

/* Start (or go on with) commit id at where: the same id as the open
 * commit goes on with it; an id seen before, not last, is refused (2,
 * after one line naming both places). */
int history_commit(struct history *h, const char *id, const char *time, const char *where);

/* One sample of a series at the open commit. unit "" for none. 2 after
 * one line when the series had another unit or definition before. -1 on
 * out of memory. */
int history_sample(struct history *h, const struct compare_key *key, const char *metric,
                   const char *unit, int higher_better, double v, const char *where);

/* The open commit's samples become its points (each series' median). */
int history_close(struct history *h);

/* Read one input: a CSV file (commit,time,metric,value[,unit]), a file of
 * --json lines, a results directory or - (stdin, JSON lines). 0, 1 on out
 * of memory, 2 after one line. */
int history_read(struct history *h, const char *path);
int history_read_csv(struct history *h, const char *path);

/* ---- analysis (history_find.c, history_state.c) ----------------------- */

/* Every series' points, then (with --state) what the saved state lets it
 * skip, then its change points. 0, 1 after "out of memory", 2 after one
 * line (a state file that is not history's). */
int history_find(struct history *h);

/* The state saved by an earlier run: a series it names, analysed with the
 * same options, whose first points are those saved (commits and values,
 * by digest) is searched again only from its last change point but one,
 * or from its last --window points when that is later; the change points
 * before that are kept (from, fixed). 0 (also when the
 * file does not exist yet), 1 on out of memory, or 2 after one line when
 * the file is not a state file of history. */
int history_state_load(struct history *h);
/* Write the state (FILE.tmp, then renamed over FILE). 0, or 1 after one line. */
int history_state_save(const struct history *h);

/* ---- report (history_out.c) ------------------------------------------- */

void history_print_text(const struct history *h);
/* csv: leave out the per-series array (the rows are the change points). */
int history_print_json(const struct history *h, const char *const *inputs, int ninputs, int csv);

void history_free(struct history *h);

#endif
