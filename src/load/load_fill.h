/* load_fill: what a connection of the load engine sends next
 * (load_fill.c). Inside the engine only. */
#ifndef KVTEST_LOAD_FILL_H
#define KVTEST_LOAD_FILL_H
#include <stdint.h>

#include "load/load_vu.h"

/* Fill v's ring up to --pipeline requests (the scenario willing; with
 * --rate, up to the first one not due yet), and have what is to write
 * sent at the end of the loop turn; now: a recent clock reading. A VU the
 * scenario has no more for is done, its connection closed. */
void load_vu_fill(struct load_vu *v, uint64_t now);

/* --rate: v's staged request whose time has come is sent (or dropped
 * when the run was interrupted); else the worker's next wake-up is kept. */
void load_scan_staged(struct load_worker *w, struct load_vu *v, uint64_t now);

#endif
