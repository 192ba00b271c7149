/* report: result lines and JSON objects (see report.h for the schema). */
#include <stdlib.h>
#include <string.h>

#include "measure/report.h"
#include "base/cli.h"
#include "base/csv.h"
#include "base/errbuf.h"
#include "measure/env.h"
#include "measure/provenance.h"

static double us(uint64_t ns) { return (double)ns / 1000.0; }

cJSON *report_hist_json(const struct hist *h)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    cJSON_AddNumberToObject(o, "count", (double)h->count);
    cJSON_AddNumberToObject(o, "min", us(hist_percentile(h, 0)));
    cJSON_AddNumberToObject(o, "p50", us(hist_percentile(h, 50)));
    cJSON_AddNumberToObject(o, "p90", us(hist_percentile(h, 90)));
    cJSON_AddNumberToObject(o, "p99", us(hist_percentile(h, 99)));
    cJSON_AddNumberToObject(o, "p999", us(hist_percentile(h, 99.9)));
    cJSON_AddNumberToObject(o, "max", us(hist_percentile(h, 100)));
    cJSON_AddNumberToObject(o, "mean", hist_mean(h) / 1000.0);
    return o;
}

void report_print_latency(FILE *f, const char *label, const struct hist *h)
{
    if (!h || h->count == 0)
        return;
    fprintf(f, "%s (us): min %.1f p50 %.1f p90 %.1f p99 %.1f p99.9 %.1f max %.1f mean %.1f\n",
            label, us(hist_percentile(h, 0)), us(hist_percentile(h, 50)),
            us(hist_percentile(h, 90)), us(hist_percentile(h, 99)),
            us(hist_percentile(h, 99.9)), us(hist_percentile(h, 100)),
            hist_mean(h) / 1000.0);
}

/* The table --csv collects into: process-wide because a command's objects
 * reach report_json_print from many call sites. */
static struct csv_table *csv_out;
static const char *csv_rows;

int report_csv_begin(const char *rows_path)
{
    if (!csv_out && !(csv_out = csv_table_new()))
        return -1;
    csv_rows = rows_path;
    return 0;
}

int report_csv_end(void)
{
    if (!csv_out)
        return 0;
    int rc = csv_table_write(csv_out, stdout);
    csv_table_free(csv_out);
    csv_out = NULL;
    return rc;
}

int report_out_begin(struct report_out *o, const char *rows_path, char *err, size_t errcap)
{
    if (!o->csv)
        return 0;
    if (o->json) {
        errbuf_say(err, errcap, "--csv and --json cannot be combined: choose one");
        return ERRBUF_MISUSE;
    }
    if (report_csv_begin(rows_path) != 0) {
        errbuf_say(err, errcap, "out of memory");
        return ERRBUF_FAIL;
    }
    o->json = 1;
    return 0;
}

int report_json_print(cJSON *obj)
{
    if (!obj)
        return -1;
    int rc = 0;
    if (csv_out) {
        rc = csv_table_add(csv_out, obj, csv_rows);
        cJSON_Delete(obj);
        return rc;
    }
    char *s = cJSON_PrintUnformatted(obj);
    if (s) {
        fputs(s, stdout);
        fputc('\n', stdout);
        fflush(stdout);
        free(s);
    } else
        rc = -1;
    cJSON_Delete(obj);
    return rc;
}

cJSON *report_json_new(const char *command, const char *path)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    cJSON_AddStringToObject(o, "command", command);
    cJSON_AddNumberToObject(o, "schema_version", KVTEST_SCHEMA_VERSION);
    cJSON_AddStringToObject(o, "cmdline", cli_cmdline());
    if (path)
        cJSON_AddStringToObject(o, "path", path);
    cJSON *env = env_json(path);
    if (env)
        cJSON_AddItemToObject(o, "env", env);
    return o;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

double report_median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_double);
    return (n % 2) ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

cJSON *report_spread_json(double *v, int n)
{
    cJSON *o = cJSON_CreateObject();
    if (!o)
        return NULL;
    double med = report_median(v, n);
    cJSON_AddNumberToObject(o, "min", v[0]);
    cJSON_AddNumberToObject(o, "median", med);
    cJSON_AddNumberToObject(o, "max", v[n - 1]);
    return o;
}

void report_ci_json(cJSON *obj, const struct stats_ci *ci, int n)
{
    cJSON_AddNumberToObject(obj, "ci_lo", ci->lo);
    cJSON_AddNumberToObject(obj, "ci_hi", ci->hi);
    cJSON_AddBoolToObject(obj, "ci_covered", ci->covered);
    cJSON_AddNumberToObject(obj, "n", n);
}

void report_print_median_ci(const char *label, const struct stats_ci *ci, int n, int prec)
{
    if (ci->covered)
        printf("Median %s: %.*f (95%% CI %.*f-%.*f, %d rounds)\n", label, prec, ci->est, prec,
               ci->lo, prec, ci->hi, n);
    else
        printf("Median %s: %.*f (min-max %.*f-%.*f, under 95%% coverage with %d rounds)\n",
               label, prec, ci->est, prec, ci->lo, prec, ci->hi, n);
}
