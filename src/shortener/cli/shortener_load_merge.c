/* shortener_load_merge: "kvtest shortener load-merge FILE...", the
 * results of load runs made at the same time (from several load machines)
 * against one service, added into one: the help text, reading the files,
 * the output. What is added and what is refused is load/load_merge.h's. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/cli.h"
#include "load/load_merge.h"
#include "load/load_report.h"
#include "measure/hist_spectrum.h"
#include "measure/report.h"
#include "shortener/cli/shortener_cmds.h"

#define CMD "shortener load-merge"
#define MERGE_FILES_MAX 256
#define MERGE_FILE_BYTES (64 << 20)   /* a load --json is some KiB; this is no such file */

const char help_shortener_load_merge[] =
    "Usage: kvtest shortener load-merge FILE... [options]\n"
    "\n"
    "Add up the results of load runs made at the same time against one service,\n"
    "for example from several load machines: each FILE is what\n"
    "kvtest shortener load URL --json printed. The latency histograms are added\n"
    "bucket by bucket, so the percentiles are exactly those of one histogram\n"
    "holding every request of every run; counts and failures are summed. Prints\n"
    "the result block load prints.\n"
    "\n"
    "Throughput is over the interval all runs shared, from the latest start to\n"
    "the earliest end (\"Total time\"): each run's requests count pro rata to its\n"
    "time inside it, so requests/s is the sum of the runs' rates. The machines'\n"
    "clocks must agree (NTP) to well within a run's length.\n"
    "\n"
    "One FILE is accepted: the same run, back from its histogram (to write its\n"
    "--latency-spectrum, say). Refused (exit status 2, one line): a FILE that\n"
    "cannot be read or is not load's JSON, or comes from a kvtest without\n"
    "histograms; runs against another URL or --scenario; runs with and without\n"
    "--rate; runs that did not overlap in time.\n"
    "\n"
    "  --json             one JSON object: load's fields (options from the first\n"
    "                     run, connections, threads, workers, tasks and rate\n"
    "                     summed) and \"merge\": the files and the shared interval\n"
    "  --csv              the --json fields as CSV, one row\n"
    "  --latency-spectrum FILE\n"
    "                     also write FILE: the merged histogram of all requests\n"
    "                     as HdrHistogram's percentile distribution (as wrk2 -L\n"
    "                     prints it, in ms), for HdrHistogram's plotter\n";

/* path's whole content into a NUL-terminated buffer (the caller frees);
 * NULL with why set. */
static char *read_file(const char *path, size_t *len, char *why, size_t cap)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return snprintf(why, cap, "cannot read: %s", strerror(errno)), NULL;
    char *buf = malloc(MERGE_FILE_BYTES + 1);
    size_t n = buf ? fread(buf, 1, MERGE_FILE_BYTES + 1, f) : 0;
    int bad = !buf || ferror(f) || n > MERGE_FILE_BYTES;
    if (bad)
        snprintf(why, cap, "%s", !buf ? "out of memory" : ferror(f) ? "cannot read"
                 : "larger than any load --json (64 MiB)");
    fclose(f);
    if (bad) {
        free(buf);
        return NULL;
    }
    buf[n] = '\0';
    *len = n;
    return buf;
}

/* "2026-12-01T19:45:01.123Z" */
static void iso_time(double epoch, char *out, size_t cap)
{
    time_t s = (time_t)epoch;
    struct tm tm;
    char day[32];
    gmtime_r(&s, &tm);
    strftime(day, sizeof(day), "%Y-%m-%dT%H:%M:%S", &tm);
    snprintf(out, cap, "%s.%03dZ", day, (int)((epoch - (double)s) * 1000));
}

static void print_text(const struct load_opts *o, const struct load_merge *m,
                       const char *const *files, int n)
{
    char a[40], b[40];
    iso_time(m->from, a, sizeof(a));
    iso_time(m->to, b, sizeof(b));
    printf("Merged %d run%s:", n, n == 1 ? "" : "s");
    for (int i = 0; i < n; i++)
        printf(" %s", files[i]);
    printf("\nShared interval: %s to %s (%.3f s), the latest start to the earliest end;\n"
           "rates count each run's requests pro rata to its time inside it\n", a, b,
           m->to - m->from);
    load_report_text(o, &m->t);
}

static void print_json(const struct load_opts *o, struct load_merge *m,
                       const char *const *files, int n)
{
    cJSON *root = load_report_json_new(o, &m->t, m->url);
    if (!root)
        return;
    cJSON *op = m->options;
    m->options = NULL;
    const char *sums[] = {"connections", "threads", "workers", "tasks"};
    const int64_t vals[] = {m->connections, m->connections, m->workers, m->tasks};
    for (int i = 0; i < 4; i++)
        cJSON_ReplaceItemInObjectCaseSensitive(op, sums[i], cJSON_CreateNumber((double)vals[i]));
    cJSON_ReplaceItemInObjectCaseSensitive(op, "rate", o->rate > 0 ? cJSON_CreateNumber(o->rate)
                                                                   : cJSON_CreateNull());
    cJSON_ReplaceItemInObjectCaseSensitive(root, "options", op);
    cJSON *mo = cJSON_AddObjectToObject(root, "merge");
    cJSON_AddNumberToObject(mo, "runs", n);
    cJSON *fa = cJSON_AddArrayToObject(mo, "files");
    for (int i = 0; i < n; i++)
        cJSON_AddItemToArray(fa, cJSON_CreateString(files[i]));
    cJSON_AddNumberToObject(mo, "shared_from", m->from);
    cJSON_AddNumberToObject(mo, "shared_to", m->to);
    cJSON_AddNumberToObject(mo, "shared_seconds", m->to - m->from);
    cJSON_AddStringToObject(mo, "rates", "each run's counts pro rata to its time in the shared "
                            "interval: the sum of the runs' rates");
    report_json_print(root);
}

/* Every file into m; 0 or the usage error's status. */
static int merge_files(struct load_merge *m, const char *const *files, int n)
{
    char why[512];
    for (int i = 0; i < n; i++) {
        size_t len = 0;
        char *text = read_file(files[i], &len, why, sizeof(why));
        int rc = text ? load_merge_add(m, text, len, why, sizeof(why)) : -1;
        free(text);
        if (rc)
            return cli_usage(CMD, "%s: %s", files[i], why);
    }
    if (load_merge_finish(m, why, sizeof(why)) != 0)
        return cli_usage(CMD, "%s", why);
    return 0;
}

int shortener_load_merge(int argc, char **argv)
{
    struct report_out out = {0};
    char err[128];
    const char *spectrum_path = NULL;
    const struct cli_opt opts[] = {
        REPORT_OUT_OPTS(&out),
        CLI_PATH_OPT("latency-spectrum", &spectrum_path),
    };
    const char *files[MERGE_FILES_MAX];
    int n = 0;
    int rc = cli_parse(CMD, argc, argv, opts, CLI_COUNT(opts), files, MERGE_FILES_MAX, &n);
    if (rc || (rc = cli_status(CMD, report_out_begin(&out, NULL, err, sizeof err), err)))
        return rc;
    if (n == 0)
        return cli_usage(CMD, "no FILE (give the --json of one or more load runs)");
    FILE *spectrum = NULL;
    if (spectrum_path && !(spectrum = fopen(spectrum_path, "w")))
        return cli_usage(CMD, "cannot write --latency-spectrum %s: %s", spectrum_path,
                         strerror(errno));
    struct load_merge m;
    load_merge_init(&m);
    rc = merge_files(&m, files, n);
    if (rc == 0) {
        struct load_opts o = {.command = CMD, .rate = m.rate, .out = out};
        if (out.json)
            print_json(&o, &m, files, n);
        else
            print_text(&o, &m, files, n);
        fflush(stdout);
        if (spectrum && hist_spectrum_write(m.t.all, spectrum) != 0)
            rc = cli_fail(CMD, "cannot write --latency-spectrum %s", spectrum_path);
    }
    if (spectrum && fclose(spectrum) != 0 && rc == 0)
        rc = cli_fail(CMD, "cannot write --latency-spectrum %s: %s", spectrum_path,
                      strerror(errno));
    load_merge_free(&m);
    return rc;
}
