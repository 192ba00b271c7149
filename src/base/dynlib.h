/* dynlib: a shared library opened the first time a command needs it, not
 * at every start. RocksDB and libpq serve one store kind each; linked in,
 * every start of kvtest relocated them and ran RocksDB's static
 * initialisers: 26 ms of CPU for an empty program linked against kvtest's
 * libraries against 5 ms without those two (about 105 against 35 ms under
 * the sanitizers, which the tests start thousands of times). */
#ifndef KVTEST_DYNLIB_H
#define KVTEST_DYNLIB_H
#include <stddef.h>

struct dynlib {
    const char *what;      /* for messages: "the RocksDB store" */
    const char *soname;    /* the file the build linked against: "librocksdb.so.7.8" */
    const char *env;       /* a variable that may name another file to open */
    /* Look up every function the caller uses (dynlib_sym): 0, or -1 with
     * the reason in err. */
    int (*bind)(void *handle, const struct dynlib *l, char *err, size_t errcap);
    /* set by dynlib_load: */
    const char *file;      /* what it opened: soname, or env's value */
    int state;             /* 0 not tried, 1 loaded, -1 failed */
    char why[512];         /* the failure, repeated to every later caller */
};

/* Open l once per process (thread-safe); 0, or -1 with one line in err
 * (the failure of the first attempt, every time: nothing is retried). */
int dynlib_load(struct dynlib *l, char *err, size_t errcap);
/* name's address in handle, or NULL with the reason in err. */
void *dynlib_sym(void *handle, const struct dynlib *l, const char *name, char *err, size_t errcap);

#endif
