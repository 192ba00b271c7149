/* store_lmdb_env: what the LMDB store (store_lmdb.c) and export's writer
 * (store_lmdb_create.c) both need of an environment: its map size and
 * LMDB's errors as one line (store_lmdb_int.h). */
#include <errno.h>
#include <lmdb.h>
#include <stdio.h>
#include <sys/statvfs.h>

#include "stores/kv/store_lmdb_int.h"

/* LMDB turns a short write into EIO ("short write, filesystem full?" in
 * mdb_page_flush), and a full filesystem is what causes one: say so when
 * dir's filesystem has no space left, rather than blame the device. */
void lmdb_say(char *err, int errlen, const char *dir, const char *what, int rc)
{
    struct statvfs fs;
    if (rc == EIO && statvfs(dir, &fs) == 0 && fs.f_bavail == 0)
        rc = ENOSPC;
    snprintf(err, (size_t)errlen, "%s: %s%s%s", dir, what, *what ? ": " : "", mdb_strerror(rc));
}

/* Room in the map for the data and for one run that rewrites all of it in
 * a single transaction (the old pages are free only after its commit).
 * The file grows only as pages are written, so a generous map costs
 * address space, not disk. */
size_t lmdb_map_for(int64_t used_bytes)
{
    return (size_t)(used_bytes * 3 + ((int64_t)256 << 20));
}
