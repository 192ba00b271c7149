/* shortener_cmds: the entry points and help texts of the subcommands of
 * "kvtest shortener". Same conventions as commands.h: arguments after the
 * subcommand name, return exit status. */
#ifndef KVTEST_SHORTENER_CMDS_H
#define KVTEST_SHORTENER_CMDS_H

int shortener_init(int argc, char **argv);         /* shortener_init.c */
int shortener_keys(int argc, char **argv);         /* shortener_init.c */
int shortener_serve(int argc, char **argv);        /* serve.c */
int shortener_bench(int argc, char **argv);        /* shortener_bench.c */
int shortener_load(int argc, char **argv);         /* load.c */
int shortener_load_merge(int argc, char **argv);   /* shortener_load_merge.c */

extern const char help_shortener_init[], help_shortener_keys[],
    help_shortener_serve[], help_shortener_bench[], help_shortener_load[],
    help_shortener_load_merge[];

#endif
