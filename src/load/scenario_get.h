/* scenario_get: the plain load scenario: GETs of given paths, in turn, any
 * 2xx or 3xx answer counts (its body is not looked at). One request kind,
 * "GET"; every request is one task. For measuring any HTTP server and for
 * the engine's own tests. */
#ifndef KVTEST_SCENARIO_GET_H
#define KVTEST_SCENARIO_GET_H
#include <stdint.h>

#include "load/load_http.h"
#include "load/load_scenario.h"

#define SCENARIO_GET_PATHS_MAX 64

/* Fill sc: GET u's path + paths[i] (each starting with '/'), connection k
 * starting at path k mod npaths and going round. tasks: requests to send
 * in all (task mode); 0 when the engine ends the run (--duration).
 * 0 ok; -1 with err set (bad path, too many, too long, out of memory). */
int scenario_get_init(struct load_scenario *sc, const struct load_url *u,
                      const char *const *paths, int npaths, int64_t tasks, char *err,
                      size_t errcap);
void scenario_get_free(struct load_scenario *sc);

/* Whether p can be sent as a request path: '/' then printable ASCII with
 * no space (nothing that would end the request line). */
int scenario_get_path_ok(const char *p);

#endif
