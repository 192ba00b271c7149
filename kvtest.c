/*
 * kvtest: where should small objects live?
 *
 * A benchmark program that answers two questions with numbers a reader can
 * trust:
 *
 *   1. Blobs in SQLite or as files?  Re-creates the experiment of SQLite's
 *      article "35% Faster Than The Filesystem" (same subcommands, options
 *      and result lines as SQLite's own kvtest program, so existing scripts
 *      keep working) and measures what that program could not: latency
 *      percentiles, spread over repetitions, cold caches, concurrent readers,
 *      content verification, and the blob size where files start to win.
 *
 *   2. Does a Valkey cache speed up an SQLite-backed service?  "kvtest
 *      shortener" runs a real URL-shortener REST service (SQLite store,
 *      optional Valkey cache-aside), benchmarks its lookups in-process and
 *      drives it over HTTP with a load generator that times every request.
 *
 * Build:    make            (./kvtest; SQLite amalgamation compiled once)
 *           make core       (build/core/kvtest: blob commands only, needs
 *                           nothing but a C11 compiler, libc and SQLite;
 *                           make static, make CC=... core: docs/building.md)
 * Test:     make test
 * Example:  ./kvtest init x1.db --count 100k --size 10k --variance 2k
 *           ./kvtest export x1.db x1 --tree
 *           ./kvtest run x1.db --count 100k --random --blob-api
 *           ./kvtest run x1 --count 100k --random
 *
 * "kvtest help COMMAND" is the reference for each subcommand.
 */
#include <stdio.h>
#include <string.h>

#include "sqlite3.h"
#include "stores/layout.h"
#include "stores/kv/store_kv.h"
#include "base/json_alloc.h"
#include "base/cli.h"
#include "base/os.h"
#include "measure/report.h"
#include "measure/provenance.h"
#include "commands/commands.h"

static const char usage[] =
    "Usage: kvtest COMMAND [ARGS...]\n"
    "\n"
    "Blobs in SQLite or as files:\n"
    "  init DBFILE [options]          create a database of random blobs\n"
    "  stat PATH [options]            describe a database, flat export or tree\n"
    "  export DBFILE DIR [options]    write every blob to its own file\n"
    "  run PATH [options]             time reads or writes of blobs\n"
    "  space DBFILE DIR [TREE]        disk space of each layout, side by side\n"
    "  sweep DIR [options]            find the blob size where files win\n"
    "\n"
    "SQLite with or without a Valkey cache:\n"
#ifdef KVTEST_CORE
    "  shortener                      not in this build (core build; see make)\n"
#else
    "  shortener init|keys|serve|bench|load ...\n"
#endif
    "\n"
    "Results:\n"
#ifdef KVTEST_CORE
    "  compare                        not in this build (core build; see make)\n"
    "  history                        not in this build (core build; see make)\n"
#else
    "  compare OLD NEW [options]      set two sets of --json results side by\n"
    "                                 side: faster, slower or no difference\n"
    "  history SERIES... [options]    where a series of results over commits\n"
    "                                 changed level: the commit, by how much\n"
#endif
    "\n"
    "  help [COMMAND]                 the reference for COMMAND\n"
    "  --version                      program and SQLite versions\n";

#ifdef KVTEST_CORE
#define KVTEST_BUILD "core"
/* The core links no HTTP, Valkey or JSON-parsing library, so it has no
 * shortener; asking for it is a usage error that says where to get one. */
static int no_shortener(int argc, char **argv)
{
    (void)argc, (void)argv;
    return cli_usage("shortener", "this build has no shortener (core build: "
                     "build the full kvtest with make)");
}

/* compare and history read --json output: they need the JSON parser the
 * core lacks. */
static int no_compare(int argc, char **argv)
{
    (void)argc, (void)argv;
    return cli_usage("compare", "this build has no compare (core build: "
                     "build the full kvtest with make)");
}

static int no_history(int argc, char **argv)
{
    (void)argc, (void)argv;
    return cli_usage("history", "this build has no history (core build: "
                     "build the full kvtest with make)");
}
#else
#define KVTEST_BUILD "full"
#endif

struct command {
    const char *name;
    int (*fn)(int argc, char **argv);
    const char *help;
};

static const struct command commands[] = {
    {"init", cmd_init, help_init},
    {"stat", cmd_stat, help_stat},
    {"export", cmd_export, help_export},
    {"run", cmd_run, help_run},
    {"space", cmd_space, help_space},
    {"sweep", cmd_sweep, help_sweep},
#ifdef KVTEST_CORE
    {"shortener", no_shortener, NULL},   /* NULL help: the refusal is the help */
    {"compare", no_compare, NULL},
    {"history", no_history, NULL},
#else
    {"shortener", cmd_shortener, help_shortener},
    {"compare", cmd_compare, help_compare},
    {"history", cmd_history, help_history},
#endif
};
#define NCOMMANDS (sizeof(commands) / sizeof(commands[0]))

static const struct command *find_command(const char *name)
{
    for (size_t i = 0; i < NCOMMANDS; i++)
        if (strcmp(commands[i].name, name) == 0)
            return &commands[i];
    return NULL;
}

/* "kvtest __options [CMD [SUB]]", hidden, for shell completion: what may
 * follow. Without CMD the commands ("run command"); with CMD the rows of
 * its option table, printed by cli_parse in list mode from the table the
 * command really parses with (or a dispatcher's subcommands). Exit 0 when
 * something was listed, 2 otherwise (an unknown command, or a command of
 * another build). */
static int list_options(int argc, char **argv)
{
    if (argc == 0) {
        for (size_t i = 0; i < NCOMMANDS; i++)
            if (commands[i].help)
                printf("%s command\n", commands[i].name);
        printf("help command\n--version flag\n");
        return 0;
    }
    const struct command *c = find_command(argv[0]);
    if (!c || !c->help || argc > 2)
        return 2;
    cli_list_set(1);
    c->fn(argc - 1, argv + 1);
    int done = cli_list_done();
    cli_list_set(0);
    return done ? 0 : 2;
}

int main(int argc, char **argv)
{
    cli_set_cmdline(argc, argv);
    json_alloc_init();   /* before any thread parses JSON */
    if (argc < 2) {
        fputs(usage, stderr);
        return 2;
    }
    const char *name = argv[1];
    if (strcmp(name, "--version") == 0 || strcmp(name, "-version") == 0 ||
        strcmp(name, "version") == 0) {
        const struct provenance *p = provenance_get();
        printf("kvtest %s\nSQLite version: %s %s\nBuild: %s, %s OS layer\n", p->version,
               sqlite3_libversion(), sqlite3_sourceid(), KVTEST_BUILD, os_flavour());
        printf("Commit: %s%s\nCompiler: %s, %s: %s\n", p->commit,
               p->dirty == 1 ? " with changes" : p->dirty == 0 ? "" : " (state of the tree unknown)",
               p->compiler, p->variant, p->flags);
        /* The optional stores: a script asks here before it runs them. */
        printf("Stores: db, files");
        for (enum layout_kind k = LAYOUT_LMDB; k <= LAYOUT_ROCKSDB; k++)
            if (!store_kv_missing(k))
                printf(", %s %s", layout_kind_name(k), store_kv_version(k));
        const char *sep = " (not in this build: ";
        for (enum layout_kind k = LAYOUT_LMDB; k <= LAYOUT_ROCKSDB; k++)
            if (store_kv_missing(k)) {
                printf("%s%s", sep, layout_kind_name(k));
                sep = ", ";
            }
        printf("%s\n", sep[0] == ',' ? ")" : "");
        return 0;
    }
    if (strcmp(name, "__options") == 0)
        return list_options(argc - 2, argv + 2);
    if (strcmp(name, "help") == 0 || strcmp(name, "--help") == 0 ||
        strcmp(name, "-help") == 0 || strcmp(name, "-h") == 0) {
        if (argc == 2 || strcmp(name, "help") != 0) {
            fputs(usage, stdout);
            return 0;
        }
        if (argc > 3) {
            fprintf(stderr, "kvtest help: unexpected argument %s\n", argv[3]);
            return 2;
        }
        const struct command *c = find_command(argv[2]);
        if (!c) {
            fprintf(stderr, "kvtest help: unknown command %s\n", argv[2]);
            return 2;
        }
        if (!c->help)
            return c->fn(0, argv + argc);
        fputs(c->help, stdout);
        return 0;
    }
    const struct command *c = find_command(name);
    if (!c) {
        fprintf(stderr, "kvtest: unknown command %s (try: kvtest help)\n", name);
        return 2;
    }
    if (argc >= 3 && (strcmp(argv[2], "--help") == 0 || strcmp(argv[2], "-h") == 0 ||
                      strcmp(argv[2], "-help") == 0) && c->help) {
        fputs(c->help, stdout);
        return 0;
    }
    int rc = c->fn(argc - 2, argv + 2);
    /* --csv's rows are collected while the command runs: write them now. */
    if (report_csv_end() != 0 && rc == 0) {
        fprintf(stderr, "kvtest %s: cannot write the CSV output\n", name);
        rc = 1;
    }
    return rc;
}
