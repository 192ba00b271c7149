/* store_arg: the store option group of the shortener's commands
 * (store_arg.h): the store parsed once, and the one table of which store
 * kind each store option applies to. */
#include "shortener/cli/store_arg.h"

#include <stdio.h>
#include <string.h>

const char *const store_arg_on_off[] = {"on", "off", NULL};

void store_arg_init(struct store_arg *a)
{
    memset(a, 0, sizeof *a);
    a->timeout_ms = STORE_TIMEOUT_MS;
    a->sqlite_cache = STORE_SQLITE_CACHE_ON;
}

int store_arg_other(const char *cmd, const char *text, struct links_store *st)
{
    char err[512];
    if (links_store_parse(text, st, err, sizeof err) != 0)
        return cli_usage(cmd, "%s", err);
    return 0;
}

int store_arg_parse(const char *cmd, int argc, char **argv, const struct cli_opt *opts,
                    int nopts, struct store_arg *a, const char *usage)
{
    const char *pos = NULL;
    int npos = 0;
    int rc = cli_parse(cmd, argc, argv, opts, nopts, &pos, 1, &npos);
    if (rc != 0)
        return rc;
    if (npos == 1 && a->text)
        return cli_usage(cmd, "both DBFILE (%s) and --store (%s): name the store once", pos,
                         a->text);
    if (npos == 1)
        a->text = pos;
    if (!a->text)
        return cli_usage(cmd, "missing DBFILE or --store URL (usage: %s)", usage);
    return store_arg_other(cmd, a->text, &a->st);
}

int store_arg_rules(const char *cmd, enum links_kind kind, const struct store_rule *rules,
                    int nrules)
{
    for (int i = 0; i < nrules; i++)
        if (rules[i].given && kind != rules[i].kind)
            return cli_usage(cmd, "%s", rules[i].refusal);
    return 0;
}

/* --replicas URL[,URL...] into a->replicas (at most LINKS_REPLICAS_MAX,
 * each a PostgreSQL URL; a->replicas_buf holds the copies) and a->st's
 * options. */
static int parse_replicas(const char *cmd, struct store_arg *a)
{
    int *n = &a->st.opts.nreplicas;
    *n = 0;
    a->st.opts.replicas = a->replicas;
    const char *list = a->replicas_list;
    if (!list)
        return 0;
    if (strlen(list) >= sizeof a->replicas_buf)
        return cli_usage(cmd, "--replicas: list too long");
    memcpy(a->replicas_buf, list, strlen(list) + 1);
    for (char *p = a->replicas_buf;;) {
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
        a->replicas[(*n)++] = p;
        if (!comma)
            return 0;
        p = comma + 1;
    }
}

int store_arg_check(const char *cmd, struct store_arg *a, const struct store_rule *rules,
                    int nrules)
{
    /* Which kind each store option applies to: an option left at its
     * default is not refused (as before the table: "--sqlite-cache on"
     * with a PostgreSQL store is accepted). */
    const struct store_rule own[] = {
        {"replicas", LINKS_KIND_POSTGRES, a->replicas_list != NULL,
         "--replicas needs a PostgreSQL store (--store postgres://...)"},
        {"sqlite-cache", LINKS_KIND_SQLITE, a->sqlite_cache != STORE_SQLITE_CACHE_ON,
         "--sqlite-cache applies to an SQLite store"},
        {"sqlite-exclusive", LINKS_KIND_SQLITE, a->sqlite_exclusive,
         "--sqlite-exclusive applies to an SQLite store"},
        {"store-timeout", LINKS_KIND_POSTGRES, a->timeout_ms != STORE_TIMEOUT_MS,
         "--store-timeout applies to a PostgreSQL store"},
    };
    int rc = store_arg_rules(cmd, a->st.kind, own, CLI_COUNT(own));
    if (rc || (rc = store_arg_rules(cmd, a->st.kind, rules, nrules)) ||
        (rc = parse_replicas(cmd, a)))
        return rc;
    a->st.opts.sqlite_cache = a->sqlite_cache == STORE_SQLITE_CACHE_ON;
    a->st.opts.sqlite_exclusive = a->sqlite_exclusive;
    a->st.opts.timeout_ms = (int)a->timeout_ms;
    return 0;
}
