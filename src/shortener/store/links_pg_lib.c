/* links_pg_lib: libpq, opened by the PostgreSQL store's first connect
 * (base/dynlib.h says why not at start). */
#include "base/dynlib.h"
#include "shortener/store/links_pg_int.h"

/* The file the build linked against (Makefile: its SONAME). */
#ifndef KVTEST_LIBPQ_SONAME
#define KVTEST_LIBPQ_SONAME "libpq.so.5"
#endif

static struct pq_lib table;
const struct pq_lib *pq_lib;

static int bind_all(void *h, const struct dynlib *l, char *err, size_t errcap)
{
    /* dlsym gives an object pointer; POSIX guarantees that a function's
     * address survives the conversion. */
#define PQ_FN_BIND(f)                                                 \
    if (!(table.f = (__typeof__(table.f))dynlib_sym(h, l, #f, err, errcap))) \
        return -1;
    PQ_FNS(PQ_FN_BIND)
#undef PQ_FN_BIND
    pq_lib = &table;
    return 0;
}

static struct dynlib lib = {
    .what = "the PostgreSQL store",
    .soname = KVTEST_LIBPQ_SONAME,
    .env = "KVTEST_LIBPQ",
    .bind = bind_all,
};

int links_pg_lib_load(char *err, size_t errcap)
{
    return dynlib_load(&lib, err, errcap);
}
