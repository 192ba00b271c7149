/* serve_print: what "shortener serve" prints, for one process (serve.c)
 * and for --processes (serve_procs.c) alike: the start lines on stderr,
 * the shutdown counters as JSON or CSV on stdout (serve_int.h). */
#include <stdio.h>
#include <string.h>

#include <cjson/cJSON.h>

#include "base/url_mask.h"
#include "measure/report.h"
#include "shortener/cli/serve_int.h"

void serve_print_start(const struct serve_opts *o, int port, const struct fd_limits *lim)
{
    const char *lb = strchr(o->bind_addr, ':') ? "[" : "";
    const char *rb = strchr(o->bind_addr, ':') ? "]" : "";
    char procs[32] = "";   /* one process: the line of old */
    if (o->processes > 1)
        snprintf(procs, sizeof procs, "processes %d, ", (int)o->processes);
    char store[64];   /* SQLite: the line of old */
    snprintf(store, sizeof store, "sqlite-cache %s%s", o->sa.st.opts.sqlite_cache ? "on" : "off",
             o->sa.st.opts.sqlite_exclusive ? ", sqlite-exclusive" : "");
    int nrep = o->sa.st.opts.nreplicas;
    if (o->sa.st.kind == LINKS_KIND_POSTGRES)
        snprintf(store, sizeof store, "store postgres, %d replica%s", nrep, nrep == 1 ? "" : "s");
    char cache[512];
    url_mask(o->ca.on ? o->ca.url : "none", cache, sizeof cache);
    fprintf(stderr, "kvtest shortener serve: listening on %s://%s%s%s:%d/ "
            "(%sthreads %d, cache %s, %s%s)\n", o->tls ? "https" : "http",
            lb, o->bind_addr, rb, port, procs, (int)o->threads, cache, store,
            o->tls ? ", tls h2 http/1.1" : "");
    fprintf(stderr, "kvtest shortener serve: limits: open files %llu (soft limit was %llu), "
            "connections %u, header timeout %d s, idle timeout %d s\n",
            (unsigned long long)lim->nofile, (unsigned long long)lim->nofile_was,
            lim->conn_limit, (int)o->header, (int)o->idle);
}

void serve_print_json(char *txt, int csv)
{
    /* The counters (the /stats object) after what every --json object
     * starts with: command, schema_version, cmdline, env. As CSV: the same
     * object, read back as rows (report_json_print). */
    cJSON *stats = txt ? cJSON_Parse(txt) : NULL;
    cJSON *o = stats ? report_json_new("shortener serve", NULL) : NULL;
    if (o) {
        cJSON *c;
        while ((c = stats->child) != NULL)
            cJSON_AddItemToObject(o, c->string, cJSON_DetachItemViaPointer(stats, c));
        cJSON_Delete(stats);
        report_json_print(o);
    } else {
        cJSON_Delete(stats);
        if (txt && !csv)   /* out of memory: the counters as they are */
            printf("%s\n", txt);
    }
    cJSON_free(txt);
}
