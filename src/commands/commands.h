/* commands: the subcommands kvtest.c dispatches to. Each takes the
 * arguments after its own name and returns the process exit status
 * (0 ok, 1 runtime failure, 2 usage error). */
#ifndef KVTEST_COMMANDS_H
#define KVTEST_COMMANDS_H

int cmd_init(int argc, char **argv);
int cmd_stat(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_space(int argc, char **argv);
int cmd_sweep(int argc, char **argv);
int cmd_shortener(int argc, char **argv);
int cmd_compare(int argc, char **argv);   /* not in the core build */
int cmd_history(int argc, char **argv);   /* not in the core build */

/* Help text of a subcommand (NULL if unknown); each module owns its own. */
extern const char help_init[], help_stat[], help_export[], help_run[],
    help_space[], help_sweep[], help_shortener[], help_compare[],
    help_history[];

#endif
