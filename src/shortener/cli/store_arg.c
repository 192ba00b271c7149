/* store_arg: the store argument of the shortener's commands (store_arg.h). */
#include "shortener/cli/store_arg.h"

#include <stdio.h>
#include <string.h>

int store_arg_kind(const char *cmd, const char *store, enum links_kind *kind,
                   const char **path)
{
    char err[512];
    const char *target;
    if (links_store_kind(store, kind, &target, err, sizeof err) != 0)
        return cli_usage(cmd, "%s", err);
    if (path)
        *path = *kind == LINKS_KIND_SQLITE ? target : NULL;
    return 0;
}

int store_arg_parse(const char *cmd, int argc, char **argv, const struct cli_opt *opts,
                    int nopts, const char **store, const char *usage)
{
    const char *pos = NULL;
    int npos = 0;
    int rc = cli_parse(cmd, argc, argv, opts, nopts, &pos, 1, &npos);
    if (rc != 0)
        return rc;
    if (npos == 1 && *store)
        return cli_usage(cmd, "both DBFILE (%s) and --store (%s): name the store once", pos,
                         *store);
    if (npos == 1)
        *store = pos;
    if (!*store)
        return cli_usage(cmd, "missing DBFILE or --store URL (usage: %s)", usage);
    enum links_kind kind;
    return store_arg_kind(cmd, *store, &kind, NULL);
}

int store_arg_replicas(const char *cmd, enum links_kind kind, const char *list, char *buf,
                       size_t cap, const char **urls, int *n)
{
    *n = 0;
    if (!list)
        return 0;
    if (kind != LINKS_KIND_POSTGRES)
        return cli_usage(cmd, "--replicas needs a PostgreSQL store (--store postgres://...)");
    if (strlen(list) >= cap)
        return cli_usage(cmd, "--replicas: list too long");
    memcpy(buf, list, strlen(list) + 1);
    for (char *p = buf;;) {
        char *comma = strchr(p, ',');
        if (comma)
            *comma = '\0';
        enum links_kind k;
        const char *target;
        char err[512];
        if (!*p || links_store_kind(p, &k, &target, err, sizeof err) != 0 ||
            k != LINKS_KIND_POSTGRES)
            return cli_usage(cmd, "--replicas: '%s' is not a postgres:// URL", p);
        if (*n == LINKS_REPLICAS_MAX)
            return cli_usage(cmd, "--replicas: at most %d", LINKS_REPLICAS_MAX);
        urls[(*n)++] = p;
        if (!comma)
            return 0;
        p = comma + 1;
    }
}
