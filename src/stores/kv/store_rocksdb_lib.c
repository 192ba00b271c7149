/* store_rocksdb_lib: librocksdb, opened when a RocksDB database is first
 * opened or created (base/dynlib.h says why not at start). */
#include <stdio.h>

#include "base/dynlib.h"
#include "stores/kv/store_rocksdb_int.h"

/* The file the build linked against (Makefile: its SONAME). */
#ifndef KVTEST_ROCKSDB_SONAME
#define KVTEST_ROCKSDB_SONAME "librocksdb.so"
#endif

static struct rocks_lib table;
const struct rocks_lib *rocks_lib;

static int bind_all(void *h, const struct dynlib *l, char *err, size_t cap)
{
    /* dlsym gives an object pointer; POSIX guarantees that a function's
     * address survives the conversion. */
#define ROCKS_FN_BIND(f)                                              \
    if (!(table.f = (__typeof__(table.f))dynlib_sym(h, l, #f, err, cap))) \
        return -1;
    ROCKS_FNS(ROCKS_FN_BIND)
#undef ROCKS_FN_BIND
    rocks_lib = &table;
    return 0;
}

static struct dynlib lib = {
    .what = "the RocksDB store",
    .soname = KVTEST_ROCKSDB_SONAME,
    .env = "KVTEST_LIBROCKSDB",
    .bind = bind_all,
};

int rocks_lib_load(char *err, int errlen)
{
    return dynlib_load(&lib, err, (size_t)errlen);
}
