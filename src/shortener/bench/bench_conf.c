/* bench_conf: what the rows of "kvtest shortener bench" are: the
 * configurations' names and properties, --configs and its default
 * (bench_conf.h). */
#include <string.h>

#include "shortener/bench/bench_conf.h"

const char *const bench_conf_names[BENCH_MAXCONF] = {
    "sqlite", "sqlite-nocache", "valkey", "valkey-nocache",
    "valkey-track", "valkey-track-nocache", "sqlite-compare",
};
int bench_conf_sqlite_cache(int c)
{
    return c == BENCH_CONF_SQLITE || c == BENCH_CONF_VALKEY || c == BENCH_CONF_TRACK ||
           c == BENCH_CONF_COMPARE;
}
int bench_conf_valkey(int c) { return c >= BENCH_CONF_VALKEY && c <= BENCH_CONF_TRACK_NOCACHE; }
int bench_conf_track(int c) { return c == BENCH_CONF_TRACK || c == BENCH_CONF_TRACK_NOCACHE; }
const char *bench_conf_name(const struct bench *b, int c)
{
    if (c == BENCH_CONF_SQLITE && b->o->store.kind == LINKS_KIND_POSTGRES)
        return "postgres";   /* the store's own row, no cache */
    return c == BENCH_CONF_COMPARE && b->compare_name[0] ? b->compare_name : bench_conf_names[c];
}

/* --configs into conf; "postgres" names the store's own row (as "sqlite"
 * does). 0, or -1 for a list that is not one. */
int bench_conf_parse(const char *list, int *conf, int *nconf)
{
    *nconf = 0;
    if (strcmp(list, "all") == 0 || strcmp(list, "classic") == 0) {
        for (int c = 0; c < (list[0] == 'a' ? BENCH_NAMED : BENCH_CONF_TRACK); c++)
            conf[(*nconf)++] = c;
        return 0;
    }
    const char *p = list;
    while (*p) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        int found = len == 8 && strncmp(p, "postgres", 8) == 0 ? BENCH_CONF_SQLITE : -1;
        for (int c = 0; c < BENCH_NAMED; c++)
            if (strlen(bench_conf_names[c]) == len && strncmp(bench_conf_names[c], p, len) == 0)
                found = c;
        if (found < 0)
            return -1;
        for (int i = 0; i < *nconf; i++)
            if (conf[i] == found)
                return -1;
        conf[(*nconf)++] = found;
        p = e ? e + 1 : p + len;
        if (e && !*p)
            return -1;
    }
    return *nconf ? 0 : -1;
}

/* Without --configs: the store's own rows, and the cache rows the --cache
 * URL can serve (tracking only with a +track URL); no -nocache rows on
 * PostgreSQL, which has no SQLite page cache to switch off. */
const char *bench_conf_default(const struct bench_opts *o)
{
    int pg = o->store.kind == LINKS_KIND_POSTGRES;
    if (!o->cache_url)
        return pg ? "sqlite" : "sqlite,sqlite-nocache";
    int track = strncmp(o->cache_url, "valkey+track:", 13) == 0 ||
                strncmp(o->cache_url, "valkey-cluster+track:", 21) == 0;
    if (pg)
        return track ? "sqlite,valkey,valkey-track" : "sqlite,valkey";
    return track ? "all" : "classic";
}
