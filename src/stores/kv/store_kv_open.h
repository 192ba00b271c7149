/* store_kv_open: the key-value stores this process has open, one per
 * directory, shared by the threads of a run and counted.
 *
 * Neither engine lets a process open one directory twice: LMDB's
 * documentation forbids a second environment on it (its locks belong to
 * the process), and RocksDB's LOCK file refuses a second open. So the
 * first open of a directory opens it, later ones asking the same settings
 * share it, one asking other settings is refused, and the last close
 * closes it, which is what lets a cold run drop the store's pages (LMDB's
 * map, RocksDB's block cache). Each engine keeps one table; what "the same
 * settings" means and how a store opens and closes are the engine's, the
 * counting and the messages are the same for both. */
#ifndef KVTEST_STORE_KV_OPEN_H
#define KVTEST_STORE_KV_OPEN_H
#include <limits.h>
#include <pthread.h>

/* Directories an engine holds open at once: a run opens one (its threads
 * share it); the bound keeps the table a plain array. */
#define STORE_KV_OPEN_MAX 8

/* An engine's open stores. The engine keeps its handles in an array of
 * its own, indexed by slot like dir and refs here. */
struct store_kv_open_table {
    const char *what;   /* "LMDB environments": "DIR: too many LMDB environments open" */
    /* 1 if the store open in slot i has the settings want asks for. */
    int (*same)(int i, const void *want);
    /* Open dir (the table's copy, valid until close) with want's settings
     * into slot i: 0, or -1 with one line in err. */
    int (*open)(int i, const char *dir, const void *want, char *err, size_t errcap);
    void (*close)(int i);
    pthread_mutex_t mu;
    char dir[STORE_KV_OPEN_MAX][PATH_MAX];
    int refs[STORE_KV_OPEN_MAX];   /* 0: the slot is free */
};

/* dir's slot, opened with want's settings if this process has it open in
 * none, and counted (one store_kv_open_put each); -1 with one line in err:
 * open with other settings, too many open, or the engine's reason. */
int store_kv_open_get(struct store_kv_open_table *t, const char *dir, const void *want,
                      char *err, size_t errcap);
/* One use of slot i ended; the last closes its store. */
void store_kv_open_put(struct store_kv_open_table *t, int i);

#endif
