/* progress: a one-line "\r..." progress meter on stderr, only when stderr
 * is a terminal, at most a few updates per second (init, export). */
#ifndef KVTEST_PROGRESS_H
#define KVTEST_PROGRESS_H
#include <stdint.h>

struct progress {
    const char *cmd;
    int64_t total;         /* items expected */
    uint64_t t0, last;     /* ns */
    int on;                /* stderr is a tty */
    const char *unit;      /* what is counted: "blobs" unless set after start */
};

void progress_start(struct progress *p, const char *cmd, int64_t total);
/* done items, bytes so far; cheap when nothing is printed. */
void progress_update(struct progress *p, int64_t done, int64_t bytes);
/* Erase the line (only if anything was printed). */
void progress_end(struct progress *p);

#endif
