/* load_capacity: "kvtest shortener load URL --slo ...", the capacity
 * search (load/load_search.h) driving the load engine one constant-rate
 * step at a time, with a progress line per step and the answer as text or
 * JSON. */
#ifndef KVTEST_LOAD_CAPACITY_H
#define KVTEST_LOAD_CAPACITY_H
#include "load/load_engine.h"
#include "load/load_search.h"

/* Run the search with scenario sc (o is the load's options: connections,
 * workers, timeout, json...; its rate and duration are set per step).
 * Returns the exit status: 0 found (or at --rate-max), 1 when a step
 * could not run, the first step already failed, the generator could not
 * keep up or the search was interrupted (one line on stderr). */
int load_capacity_run(const struct load_opts *o, const struct load_scenario *sc,
                      const struct load_search_opts *so);

#endif
