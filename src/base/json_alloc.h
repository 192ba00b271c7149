/* json_alloc: tells a failed allocation inside cJSON from bad JSON.
 *
 * cJSON_Parse returns NULL for both; a reader that calls the second its
 * input's fault would refuse good input (exit 2, a 400) when the machine
 * is out of memory. json_alloc_init gives cJSON allocation hooks that
 * note a failure for the thread that made it. */
#ifndef KVTEST_BASE_JSON_ALLOC_H
#define KVTEST_BASE_JSON_ALLOC_H

/* Installs the hooks: process-wide, so once at start before threads parse
 * (main does). Without it json_alloc_failed stays 0. */
void json_alloc_init(void);

/* Forgets a failure noted on this thread: call before a parse. */
void json_alloc_reset(void);

/* 1 when a cJSON allocation on this thread failed since the last reset. */
int json_alloc_failed(void);

#endif
