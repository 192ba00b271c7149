/* args: the command line every shortener subcommand takes: options, then
 * exactly one positional argument (a DBFILE, or load's URL). */
#ifndef KVTEST_SHORTENER_ARGS_H
#define KVTEST_SHORTENER_ARGS_H

#include "base/cli.h"

/* cli_parse with room for one positional argument, stored in *arg.
 * Returns 0, or 2 after printing the misuse: cli_parse's, or
 * "kvtest CMD: MISSING" when the argument is absent. */
int args_parse_one(const char *cmd, int argc, char **argv, const struct cli_opt *opts,
                   int nopts, const char **arg, const char *missing);

#endif
