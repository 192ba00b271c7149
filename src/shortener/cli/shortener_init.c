/* shortener_init: "kvtest shortener init" and "kvtest shortener keys":
 * create a links store and list its ids. */
#include <stdio.h>
#include <string.h>

#include "base/cleanup.h"
#include "base/cli.h"
#include "shortener/store/links.h"
#include "shortener/cli/shortener_cmds.h"
#include "shortener/cli/store_arg.h"

const char help_shortener_init[] =
    "Usage: kvtest shortener init DBFILE|--store URL [--links N] [--seed S]\n"
    "                             [--force] [--schema seed|covering] [--from SRC]\n"
    "\n"
    "Create the links store of the URL shortener: an SQLite database (WAL\n"
    "mode) or a links table in a PostgreSQL database.\n"
    "\n"
    "  --store URL sqlite:PATH (the same as DBFILE) or postgres://USER@HOST:PORT/DB\n"
    "              (a libpq connection URI; the database must exist)\n"
    "  --links N   pre-populate N links with realistic URLs of varied length\n"
    "              (default 0); their ids come from the OS CSPRNG and can be\n"
    "              listed with kvtest shortener keys\n"
    "  --seed S    seed of the generated URLs (default 1)\n"
    "  --schema seed|covering   table layout (default seed):\n"
    "      seed      links(id INTEGER PRIMARY KEY, link_hash TEXT NOT NULL UNIQUE,\n"
    "                      link_target TEXT NOT NULL, created_at INTEGER NOT NULL)\n"
    "                a lookup descends the link_hash index, then the table\n"
    "      covering  the same columns in a WITHOUT ROWID table keyed by\n"
    "                link_hash (plus an index on id): one descent per lookup\n"
    "              (PostgreSQL has the seed layout only: links(id bigint\n"
    "              identity primary key, link_hash text unique, link_target,\n"
    "              created_at))\n"
    "  --from SRC  copy the links (ids, URLs, order) of the store SRC instead\n"
    "              of generating them: the same links in another schema or in\n"
    "              PostgreSQL, for kvtest shortener bench SRC --compare-db DBFILE\n"
    "              (an SQLite store copies from SQLite only)\n"
    "  --force     replace an existing DBFILE or links table\n"
    "\n"
    "The service and bench detect the schema from the database. An SQLite\n"
    "database is built under a temporary name and renamed into place; a\n"
    "PostgreSQL table is dropped (--force), created and filled by COPY in one\n"
    "transaction. Either way an interrupted init leaves no partial store.\n"
    "Progress on stderr when it is a terminal.\n";

const char help_shortener_keys[] =
    "Usage: kvtest shortener keys DBFILE|--store URL [--limit N]\n"
    "\n"
    "Print the ids of existing links, one per line, oldest first, for load\n"
    "tools that need real ids (kvtest shortener load --keys FILE, wrk).\n"
    "\n"
    "  --store URL sqlite:PATH or postgres://... instead of DBFILE\n"
    "  --limit N   at most N ids (default: all)\n";

int shortener_init(int argc, char **argv)
{
    static const char cmd[] = "shortener init";
    int64_t n = -1, seed = 1;
    int force = 0;
    /* In the order of enum links_schema, so the index is the schema. */
    static const char *const schemas[] = {"seed", "covering", NULL};
    int schema = LINKS_SCHEMA_SEED;
    const char *from = NULL;
    struct store_arg sa;
    store_arg_init(&sa);
    const struct cli_opt opts[] = {
        STORE_ARG_STORE_OPT(&sa),
        CLI_INT_OPT("links", &n, 0, 1000000000),
        CLI_INT_OPT("seed", &seed, 0, INT64_MAX),
        CLI_FLAG_OPT("force", &force),
        CLI_ENUM_OPT("schema", &schema, schemas),
        CLI_PATH_OPT("from", &from),
    };
    struct links_store src;
    int rc = store_arg_parse(cmd, argc, argv, opts, CLI_COUNT(opts), &sa,
                             "kvtest shortener init DBFILE [--links N]");
    if (rc != 0 || (rc = store_arg_check(cmd, &sa, NULL, 0)) != 0 ||
        (from && (rc = store_arg_other(cmd, from, &src)) != 0))
        return rc;
    struct links_create_opts co = {n < 0 ? 0 : n, (uint64_t)seed, force,
                                   (enum links_schema)schema, from ? &src : NULL, 1};
    if (from && n >= 0)
        return cli_usage(cmd, "--links and --from exclude each other (--from copies SRCDB's links)");
    char err[512];
    int64_t made = 0;
    /* Ctrl-C, SIGTERM or SIGHUP while the links are generated: the
     * temporary database and its -wal/-shm go, one line, exit 128+N. */
    cleanup_begin(cmd);
    rc = links_create_db_opts(&sa.st, &co, &made, err, sizeof err);
    cleanup_end();
    if (rc != 0) {
        if (rc == ERRBUF_MISUSE)
            return cli_usage(cmd, "%s", err);
        return cli_fail(cmd, "%s", err);
    }
    printf("Created %s with %lld links\n", sa.st.shown, (long long)made);
    if (co.schema != LINKS_SCHEMA_SEED || from)
        printf("Schema: %s%s%s\n", links_schema_name(co.schema), from ? ", links copied from " : "",
               from ? from : "");
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
    struct store_arg sa;
    store_arg_init(&sa);
    const struct cli_opt opts[] = {
        STORE_ARG_STORE_OPT(&sa),
        CLI_INT_OPT("limit", &limit, 1, INT64_MAX),
    };
    int rc = store_arg_parse(cmd, argc, argv, opts, CLI_COUNT(opts), &sa,
                             "kvtest shortener keys DBFILE [--limit N]");
    if (rc != 0 || (rc = store_arg_check(cmd, &sa, NULL, 0)) != 0)
        return rc;
    char err[512];
    struct links *l = links_open_store(&sa.st, err, sizeof err);
    if (!l)
        return cli_fail(cmd, "%s", err);
    int64_t got = links_foreach_id(l, limit, print_id, stdout);
    if (got < 0) {
        rc = ferror(stdout) ? cli_fail(cmd, "write error on stdout")
                            : cli_fail(cmd, "%s: %s", sa.st.shown, links_errmsg(l));
    }
    links_close(l);
    if (rc == 0 && fflush(stdout) != 0)
        rc = cli_fail(cmd, "write error on stdout");
    return rc;
}
