/* load_merge: several `shortener load --json` results added into one, as if
 * one client had sent every request (load-merge: runs from several load
 * machines at once against one service).
 *
 * Histograms are added bucket by bucket, so the merged percentiles are
 * those of one histogram holding every sample; counts, failures and the
 * first LOAD_NERR_KEEP error messages are summed over the runs. The merged
 * run spans the interval all runs shared: from the latest start to the
 * earliest end (wall clock, "started_at"/"ended_at"). Its rates count each
 * run's requests pro rata to its time inside that interval, which makes
 * them the sum of the runs' own rates: exact for steady runs, and not
 * inflated when runs only partly overlap (whole counts over a short shared
 * interval would be).
 *
 * Refused, with a one-line reason: a result without histograms (an older
 * kvtest) or not load's JSON, runs against another URL or scenario, runs
 * that measured latency differently (--rate and not), other request kinds,
 * another histogram layout, and runs that did not overlap in time. */
#ifndef KVTEST_LOAD_MERGE_H
#define KVTEST_LOAD_MERGE_H
#include <stddef.h>

#include "base/json.h"
#include "load/load_report.h"

struct load_merge {
    int nruns;
    char *url;                  /* the first run's, whole (malloc) */
    char scenario[32], latency_from[16];
    char kind_names[LOAD_KINDS_MAX][32];   /* upper case, as load's text rows */
    struct load_scenario sc;    /* the name and kinds, for load_report */
    struct load_totals t;       /* summed; ready after load_merge_finish */
    struct load_rates rates;    /* the sum of the runs' rates */
    double from, to;            /* the shared interval, epoch seconds */
    double rate;                /* the runs' --rate summed; 0 if they had none */
    int64_t connections, workers, tasks;   /* summed */
    cJSON *options;             /* the first run's "options" */
};

/* 0, or -1 on out of memory. */
int load_merge_init(struct load_merge *m);
/* Add one run: text[0..len) is what load --json printed. 0, or -1 with the
 * reason in why[cap] (m unchanged in what load_merge_finish reads only if
 * 0; after -1 the caller gives up). */
int load_merge_add(struct load_merge *m, const char *text, size_t len, char *why, size_t cap);
/* After the last run: the shared interval and the totals (m->t). 0, or -1
 * with why set when the runs did not overlap or none was added. */
int load_merge_finish(struct load_merge *m, char *why, size_t cap);
void load_merge_free(struct load_merge *m);

#endif
