/* load_wait: how a worker's event loop sleeps (load_wait.c). */
#ifndef KVTEST_LOAD_WAIT_H
#define KVTEST_LOAD_WAIT_H
#include "load/load_vu.h"

/* Wait for events on w's epoll set, at most until its next paced send or
 * timeout scan, to the nanosecond; epoll's count or -1. */
struct epoll_event;
int load_wait_events(struct load_worker *w, struct epoll_event *ev, int max);

#endif
