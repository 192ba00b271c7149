/* dynlib: shared libraries opened on first use (dynlib.h says why). */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/dynlib.h"

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;

void *dynlib_sym(void *handle, const struct dynlib *l, const char *name, char *err, size_t errcap)
{
    dlerror();
    void *p = dlsym(handle, name);
    if (!p) {
        snprintf(err, errcap, "%s: %s has no %s (a different version than kvtest was built for?)",
                 l->what, l->file, name);
        dlerror();   /* glibc frees its message at the next call, not before */
    }
    return p;
}

int dynlib_load(struct dynlib *l, char *err, size_t errcap)
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
        snprintf(err, errcap, "%s", l->why);
    pthread_mutex_unlock(&mu);
    return rc;
}
