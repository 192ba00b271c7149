/* store_arg: the store argument of the shortener's commands (store_arg.h). */
#include "shortener/cli/store_arg.h"

#include <stdio.h>
#include <string.h>

int store_arg_other(const char *cmd, const char *text, struct links_store *st)
{
    char err[512];
    if (links_store_parse(text, st, err, sizeof err) != 0)
        return cli_usage(cmd, "%s", err);
    return 0;
}

int store_arg_parse(const char *cmd, int argc, char **argv, const struct cli_opt *opts,
                    int nopts, const char **text, struct links_store *st, const char *usage)
{
    const char *pos = NULL;
    int npos = 0;
    int rc = cli_parse(cmd, argc, argv, opts, nopts, &pos, 1, &npos);
    if (rc != 0)
        return rc;
    if (npos == 1 && *text)
        return cli_usage(cmd, "both DBFILE (%s) and --store (%s): name the store once", pos,
                         *text);
    if (npos == 1)
        *text = pos;
    if (!*text)
        return cli_usage(cmd, "missing DBFILE or --store URL (usage: %s)", usage);
    return store_arg_other(cmd, *text, st);
}

int store_arg_replicas(const char *cmd, struct links_store *st, const char *list, char *buf,
                       size_t cap, const char **urls)
{
    int *n = &st->opts.nreplicas;
    *n = 0;
    st->opts.replicas = urls;
    if (!list)
        return 0;
    if (st->kind != LINKS_KIND_POSTGRES)
        return cli_usage(cmd, "--replicas needs a PostgreSQL store (--store postgres://...)");
    if (strlen(list) >= cap)
        return cli_usage(cmd, "--replicas: list too long");
    memcpy(buf, list, strlen(list) + 1);
    for (char *p = buf;;) {
        char *comma = strchr(p, ',');
        if (comma)
            *comma = '\0';
        struct links_store rep;
        char err[512];
        if (!*p || links_store_parse(p, &rep, err, sizeof err) != 0 ||
            rep.kind != LINKS_KIND_POSTGRES)
            return cli_usage(cmd, "--replicas: '%s' is not a postgres:// URL", p);
        if (*n == LINKS_REPLICAS_MAX)
            return cli_usage(cmd, "--replicas: at most %d", LINKS_REPLICAS_MAX);
        urls[(*n)++] = p;
        if (!comma)
            return 0;
        p = comma + 1;
    }
}
