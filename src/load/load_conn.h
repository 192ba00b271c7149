/* load_conn: one worker's epoll loop and the state machine of its
 * connections (load_conn.c), started by load_engine.c once per worker
 * thread. The state they share is load_vu.h. Not for other modules. */
#ifndef KVTEST_LOAD_CONN_H
#define KVTEST_LOAD_CONN_H

/* The worker's thread body: arg is its struct load_worker (load_vu.h). */
void *load_worker_main(void *arg);

#endif
