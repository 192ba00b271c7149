/* run_opts: the option table of "kvtest run", built over a struct
 * run_args: the parser (cmd_run, run.c) fills one, and the JSON of the
 * options (run_out.c) reads the parsed run_opts through another, so the
 * options are listed once (run_int.h). */
#include <stdint.h>

#include "commands/run/run_int.h"

/* Pragma values are matched in any case, as SQLite does, and passed on and
 * reported as spelled here. */
const char *const run_jmodes[] = {"delete", "truncate", "persist", "memory", "wal", "off", NULL};
const char *const run_syncs[] = {"off", "normal", "full", "extra", NULL};
const char *const run_fadvises[] = {"random", "normal", NULL};

int run_opts_table(struct run_args *a, struct cli_opt rows[RUN_MAX_OPTS])
{
    struct run_opts *o = &a->o;
    const struct cli_opt t[] = {
        CLI_INT_OPT("count", &o->count, 1, INT64_MAX / 4),
        CLI_INT_OPT("max-id", &o->max_id, 1, INT64_MAX / 4),
        CLI_INT_OPT("start", &o->start, 1, INT64_MAX / 4),
        CLI_SET_OPT("asc", &a->order, ORDER_ASC),
        CLI_SET_OPT("desc", &a->order, ORDER_DESC),
        CLI_SET_OPT("random", &a->order, ORDER_RANDOM),
        CLI_DOUBLE_OPT("zipf", &o->zipf, 1e-9, 100),
        CLI_INT_OPT("seed", &a->seed, 0, INT64_MAX),
        CLI_FLAG_OPT("blob-api", &o->blob_api),
        CLI_STR_OPT("cache-size", &a->cache_size),
        CLI_INT_OPT("mmap", &o->mmap, 0, INT64_MAX / 2),
        CLI_INT_OPT("block-cache", &o->block_cache, 1, (int64_t)1 << 40),
        CLI_ENUM_ANYCASE_OPT("jmode", &a->jmode, run_jmodes),
        CLI_FLAG_OPT("nosync", &o->nosync),
        CLI_ENUM_ANYCASE_OPT("synchronous", &a->sync, run_syncs),
        CLI_FLAG_OPT("fsync", &o->fsync),
        CLI_FLAG_OPT("nocheckpoint", &o->nocheckpoint),
        CLI_FLAG_OPT("multitrans", &o->multitrans),
        CLI_FLAG_OPT("update", &o->update),
        CLI_FLAG_OPT("integrity-check", &o->integrity_check),
        CLI_FLAG_OPT("stats", &o->stats),
        CLI_INT_OPT("repeat", &o->repeat, 1, 10000),
        CLI_INT_OPT("warmup", &o->warmup, 0, 10000),
        CLI_FLAG_OPT("cold", &o->cold),
        CLI_ENUM_OPT("fadvise", &a->fadvise, run_fadvises),
        CLI_INT_OPT("threads", &o->threads, 1, 256),
        CLI_FLAG_OPT("verify", &o->verify),
        CLI_FLAG_OPT("no-latency", &a->nolat),
        REPORT_OUT_JSON_OPT(&o->out),
        CLI_PATH_OPT("timeline", &a->timeline),
        CLI_STR_OPT("interval", &a->interval),
        CLI_HIDDEN_PATH_OPT("keys-out", &a->keys_out),   /* test hook */
        REPORT_OUT_CSV_OPT(&o->out),
    };
    CLI_TABLE_RETURN(rows, RUN_MAX_OPTS, t);
}
