/* sweep_opts: the option table of "kvtest sweep", built over a struct
 * sweep_args: the parser (sweep.c) fills one, and the JSON of the options
 * (sweep_out.c) reads the parsed sweep_opts through another, so the
 * options are listed once (sweep_int.h). */
#include <stdint.h>

#include "commands/sweep/sweep_int.h"

int sweep_opts_table(struct sweep_args *a, struct cli_opt rows[SWEEP_MAX_OPTS])
{
    struct sweep_opts *o = &a->o;
    const struct cli_opt t[] = {
        CLI_STR_OPT("sizes", &a->sizes),
        CLI_INT_OPT("total", &o->total, 1, INT64_C(1) << 40),
        CLI_INT_OPT("pagesize", &a->pagesize, 512, 65536),
        CLI_STR_OPT("page-sizes", &a->pages),
        CLI_STR_OPT("stores", &a->stores),
        CLI_INT_OPT("mmap", &o->mmap, 0, INT64_MAX / 2),
        CLI_INT_OPT("repeat", &o->repeat, 1, 1000),
        CLI_INT_OPT("warmup", &o->warmup, 0, 1000),
        CLI_INT_OPT("seed", &o->seed, 0, INT64_MAX),
        CLI_FLAG_OPT("cold", &o->cold),
        CLI_FLAG_OPT("update", &o->update),
        CLI_FLAG_OPT("keep", &o->keep),
        CLI_FLAG_OPT("force", &o->force),
        REPORT_OUT_JSON_OPT(&o->out),
        CLI_HIDDEN_PATH_OPT("keys-out", &o->keys_out),   /* test hook */
        REPORT_OUT_CSV_OPT(&o->out),
    };
    CLI_TABLE_RETURN(rows, SWEEP_MAX_OPTS, t);
}
