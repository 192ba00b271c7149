/* shortener: dispatch "kvtest shortener SUBCOMMAND". */
#include <stdio.h>
#include <string.h>

#include "base/cli.h"
#include "commands/commands.h"
#include "shortener/cli/shortener_cmds.h"

const char help_shortener[] =
    "Usage: kvtest shortener SUBCOMMAND [ARGS...]\n"
    "\n"
    "A URL-shortener REST service on SQLite with an optional Valkey cache.\n"
    "\n"
    "  init DBFILE [--links N] [--seed S] [--force]   create the links database\n"
    "  keys DBFILE [--limit N]                        print existing link ids\n"
    "  serve DBFILE [options]                         run the HTTP service\n"
    "  bench DBFILE [options]                         in-process lookup matrix\n"
    "  load URL [options]                             HTTP load generator\n"
    "  load-merge FILE... [options]                   add up load runs' --json\n"
    "\n"
    "kvtest shortener SUBCOMMAND --help shows each one's options.\n";

struct sub {
    const char *name;
    int (*fn)(int, char **);
    const char *help;
};

static const struct sub subs[] = {
    {"init", shortener_init, help_shortener_init},
    {"keys", shortener_keys, help_shortener_keys},
    {"serve", shortener_serve, help_shortener_serve},
    {"bench", shortener_bench, help_shortener_bench},
    {"load", shortener_load, help_shortener_load},
    {"load-merge", shortener_load_merge, help_shortener_load_merge},
};

int cmd_shortener(int argc, char **argv)
{
    if (argc < 1 && cli_list_mode()) {   /* kvtest __options shortener */
        for (size_t i = 0; i < sizeof(subs) / sizeof(subs[0]); i++)
            cli_list_word(subs[i].name, "command");
        return 0;
    }
    if (argc < 1) {
        fputs(help_shortener, stderr);
        return 2;
    }
    for (size_t i = 0; i < sizeof(subs) / sizeof(subs[0]); i++) {
        if (strcmp(argv[0], subs[i].name) != 0)
            continue;
        if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
            fputs(subs[i].help, stdout);
            return 0;
        }
        return subs[i].fn(argc - 1, argv + 1);
    }
    fprintf(stderr, "kvtest shortener: unknown subcommand %s\n", argv[0]);
    return 2;
}
