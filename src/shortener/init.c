/* init, keys: create a links database and list its ids. */
#include <stdio.h>
#include <string.h>

#include "base/cli.h"
#include "shortener/links.h"
#include "shortener/shortener_cmds.h"

const char help_shortener_init[] =
    "Usage: kvtest shortener init DBFILE [--links N] [--seed S] [--force]\n"
    "\n"
    "Create the links database of the URL shortener (SQLite, WAL mode):\n"
    "  links(id INTEGER PRIMARY KEY, link_hash TEXT NOT NULL UNIQUE,\n"
    "        link_target TEXT NOT NULL, created_at INTEGER NOT NULL)\n"
    "\n"
    "  --links N   pre-populate N links with realistic URLs of varied length\n"
    "              (default 0); their ids come from the OS CSPRNG and can be\n"
    "              listed with kvtest shortener keys\n"
    "  --seed S    seed of the generated URLs (default 1)\n"
    "  --force     replace an existing DBFILE\n"
    "\n"
    "The database is built under a temporary name and renamed into place, so\n"
    "an interrupted init never leaves a partial DBFILE.\n";

const char help_shortener_keys[] =
    "Usage: kvtest shortener keys DBFILE [--limit N]\n"
    "\n"
    "Print the ids of existing links, one per line, oldest first, for load\n"
    "tools that need real ids (kvtest shortener load --keys FILE, wrk).\n"
    "\n"
    "  --limit N   at most N ids (default: all)\n";

int shortener_init(int argc, char **argv)
{
    static const char cmd[] = "shortener init";
    int64_t n = 0, seed = 1;
    int force = 0;
    const struct cli_opt opts[] = {
        {"links", CLI_INT, &n, 0, 1000000000, 0, 0},
        {"seed", CLI_INT, &seed, 0, INT64_MAX, 0, 0},
        {"force", CLI_FLAG, &force, 0, 0, 0, 0},
    };
    const char *pos[1];
    int npos = 0;
    int rc = cli_parse(cmd, argc, argv, opts, (int)(sizeof opts / sizeof opts[0]),
                       pos, 1, &npos);
    if (rc != 0)
        return rc;
    if (npos != 1)
        return cli_usage(cmd, "missing DBFILE (usage: kvtest shortener init DBFILE [--links N])");
    char err[512];
    rc = links_create_db(pos[0], n, (uint64_t)seed, force, err, sizeof err);
    if (rc != 0) {
        if (rc == 2)
            return cli_usage(cmd, "%s", err);
        return cli_fail(cmd, "%s", err);
    }
    printf("Created %s with %lld links\n", pos[0], (long long)n);
    return 0;
}

static int print_id(void *ctx, const char *id, size_t len)
{
    FILE *fp = ctx;
    fwrite(id, 1, len, fp);
    return putc('\n', fp) == EOF ? -1 : 0;
}

int shortener_keys(int argc, char **argv)
{
    static const char cmd[] = "shortener keys";
    int64_t limit = 0;
    const struct cli_opt opts[] = {
        {"limit", CLI_INT, &limit, 1, INT64_MAX, 0, 0},
    };
    const char *pos[1];
    int npos = 0;
    int rc = cli_parse(cmd, argc, argv, opts, (int)(sizeof opts / sizeof opts[0]),
                       pos, 1, &npos);
    if (rc != 0)
        return rc;
    if (npos != 1)
        return cli_usage(cmd, "missing DBFILE (usage: kvtest shortener keys DBFILE [--limit N])");
    char err[512];
    struct links *l = links_open(pos[0], 1, err, sizeof err);
    if (!l)
        return cli_fail(cmd, "%s", err);
    int64_t got = links_foreach_id(l, limit, print_id, stdout);
    if (got < 0) {
        rc = ferror(stdout) ? cli_fail(cmd, "write error on stdout")
                            : cli_fail(cmd, "%s: %s", pos[0], links_errmsg(l));
    }
    links_close(l);
    if (rc == 0 && fflush(stdout) != 0)
        rc = cli_fail(cmd, "write error on stdout");
    return rc;
}
