/* load_run: one "kvtest shortener load" once its options are checked: the
 * scenario set up (the shortener's mix with its key file, or plain GETs),
 * then one run and its report, or the --slo capacity search
 * (load_run.c). */
#ifndef KVTEST_SHORTENER_LOAD_RUN_H
#define KVTEST_SHORTENER_LOAD_RUN_H
#include "shortener/cli/load_check.h"

/* Run a's scenario with the engine's options o; prints the results and
 * returns the exit status. */
int load_run_scenario(const struct load_opts *o, const struct load_args *a);

#endif
