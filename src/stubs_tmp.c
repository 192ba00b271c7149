/* TEMPORARY: weak placeholders so the tree links while modules are being
 * written; each real definition overrides its weak one. Deleted before the
 * first release commit. */
#include <stdio.h>
#include "commands.h"
#include "shortener/shortener_cmds.h"

#define STUB(fn) \
    __attribute__((weak)) int fn(int argc, char **argv) \
    { (void)argc; (void)argv; fprintf(stderr, "kvtest: " #fn " not built yet\n"); return 1; }
STUB(cmd_init) STUB(cmd_stat) STUB(cmd_export) STUB(cmd_run) STUB(cmd_space)
STUB(cmd_sweep) STUB(shortener_init) STUB(shortener_keys) STUB(shortener_serve)
STUB(shortener_bench) STUB(shortener_load)
__attribute__((weak)) const char help_init[] = "", help_stat[] = "", help_export[] = "",
    help_run[] = "", help_space[] = "", help_sweep[] = "", help_shortener_init[] = "",
    help_shortener_keys[] = "", help_shortener_serve[] = "", help_shortener_bench[] = "",
    help_shortener_load[] = "";
