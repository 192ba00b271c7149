/* cleanup: temporary paths that must not outlive a failed or interrupted
 * command. A command registers what it builds aside (a database under a
 * temporary name, an export directory being filled) and drops the
 * registration once the result has its real name. On SIGINT, SIGTERM or
 * SIGHUP a watcher thread removes everything still registered, prints one
 * line "kvtest CMD: interrupted by signal N; ..." and exits 128+N. On a
 * failure the command itself calls cleanup_remove().
 *
 * Signals are blocked in the thread that calls cleanup_begin() and in
 * every thread it creates afterwards, so only the watcher takes them and
 * it can use ordinary calls (readdir, unlink, fprintf) while the workers
 * keep running. Begin/end nest: sweep's begin covers the init and export
 * it runs. */
#ifndef KVTEST_CLEANUP_H
#define KVTEST_CLEANUP_H
#include <stddef.h>

/* Start watching (or nest). cmd names the command in the interrupt line.
 * Call before creating any thread. Returns 0, or -1 if no watcher could be
 * started (signals then keep their default action). */
int cleanup_begin(const char *cmd);
/* Undo one cleanup_begin(); the last one stops the watcher and restores
 * the signal mask. Registrations left over are removed first. */
void cleanup_end(void);
/* 1 once a signal arrived and the watcher is removing what was registered:
 * long loops that create files stop, so the removal can finish. */
int cleanup_interrupted(void);

/* Register a file or a directory (removed with all its content) that this
 * process created. Returns a handle >= 0, or -1 if the table is full. */
int cleanup_add_path(const char *path);
/* Register a function run by the watcher (after the paths are removed) for
 * what only the caller knows how to remove; it may replace msg (the end of
 * the interrupt line) with what it could not remove. It runs inside the
 * critical section, so state the caller changes under cleanup_lock() is
 * consistent. Returns a handle or -1. */
int cleanup_add_fn(void (*fn)(void *arg, char *msg, size_t cap), void *arg);
/* The path now holds a finished result (or the function is no longer
 * needed): forget it without removing anything. h < 0 is ignored. */
void cleanup_drop(int h);
/* Failure path: remove the registered path now and forget it. */
void cleanup_remove(int h);

/* A section the watcher must not interrupt (renaming a finished result
 * into place): a signal that arrives inside it is handled at unlock. */
void cleanup_lock(void);
void cleanup_unlock(void);

/* Remove path and, if it is a directory, everything under it (no symlink
 * is followed). Returns 0, or -1 with errno of the first failure. */
int cleanup_rmtree(const char *path);

#endif
