/* load_finish: how a request of the load engine ends (load_finish.c).
 * Inside the engine only. */
#ifndef KVTEST_LOAD_FINISH_H
#define KVTEST_LOAD_FINISH_H
#include <stdint.h>

#include "load/load_vu.h"

/* The head request's answer is complete in v->resp, at t1: timed, checked
 * by the scenario, counted. */
void load_vu_answered(struct load_vu *v, uint64_t t1);

/* A transport failure f (why: its text) of v's head request: sent again
 * once on a new connection when a keep-alive connection went stale, else
 * counted as failed. */
void load_vu_failed(struct load_vu *v, enum load_fail f, const char *why);

/* --http2: the head request's stream failed (f, why) at t1; the connection
 * goes on. */
void load_vu_stream_failed(struct load_vu *v, enum load_fail f, const char *why, uint64_t t1);

/* v's connection is gone: what is left goes again on a new one. */
void load_vu_lost(struct load_vu *v);

#endif
