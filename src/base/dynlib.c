/* dynlib: shared libraries opened on first use (dynlib.h says why). */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/dynlib.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

/* In the sanitizer build: LeakSanitizer scans no thread-local storage at
 * exit. GCC 12's scan of the thread-locals of a dlopen'd library (RocksDB
 * has some) now and then reads a bogus range and kills the process
 * ("Tracer caught signal 11"; two suites in one make test). Fewer roots
 * can only make it report more leaks, never fewer; the blocks glibc
 * allocates for such thread-locals are in its built-in suppressions.
 * LSAN_OPTIONS overrides this. */
#if defined(__SANITIZE_ADDRESS__)
#define DYNLIB_LSAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define DYNLIB_LSAN 1
#endif
#endif
#ifdef DYNLIB_LSAN
const char *__lsan_default_options(void);
const char *__lsan_default_options(void)
{
    return "use_tls=0:print_suppressions=0";
}
#endif

void *dynlib_sym(void *handle, const struct dynlib *l, const char *name, char *err, size_t cap)
{
    dlerror();
    void *p = dlsym(handle, name);
    if (!p) {
        snprintf(err, cap, "%s: %s has no %s (a different version than kvtest was built for?)",
                 l->what, l->file, name);
        dlerror();   /* glibc frees its message at the next call, not before */
    }
    return p;
}

int dynlib_load(struct dynlib *l, char *err, size_t cap)
{
    pthread_mutex_lock(&mu);
    if (l->state == 0) {
        const char *file = l->env ? getenv(l->env) : NULL;
        if (!file || !*file)
            file = l->soname;
        l->file = file;
        /* RTLD_NOW: a missing symbol shows here, once, not at some call
         * in the middle of a measured run. Never closed: the library's
         * objects live until the process ends, as when it was linked. */
        void *h = dlopen(file, RTLD_NOW | RTLD_LOCAL);
        if (!h) {
            const char *why = dlerror();
            /* dlerror names the file: "librocksdb.so.7.8: cannot open ..." */
            snprintf(l->why, sizeof l->why, "%s: %s", l->what, why ? why : file);
            dlerror();   /* frees the message just copied */
            l->state = -1;
        } else if (l->bind(h, l, l->why, sizeof l->why) != 0) {
            dlclose(h);   /* not the library asked for: nothing of it is used */
            l->state = -1;
        } else {
            l->state = 1;
        }
    }
    int rc = l->state == 1 ? 0 : -1;
    if (rc != 0)
        snprintf(err, cap, "%s", l->why);
    pthread_mutex_unlock(&mu);
    return rc;
}
