/* wbuf: write-coalescing VFS shim over the default VFS (see wbuf.h).
 * Reads, syncs, truncation, size queries and close flush the buffer
 * first, so SQLite never sees stale data. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stores/wbuf.h"
#include "base/os.h"
#include "sqlite3.h"

/* Buffered runs are written with pwrite() on a descriptor of our own (the
 * same file, so the same page cache): the unix VFS would take at most
 * 128 KiB - 1 per call (seekAndWrite masks the length with 0x1ffff). */
#define WBUF_CAP (1 << 20)
#define WBUF_CAP_VFS (1 << 16)

struct wfile {
    sqlite3_file base;
    sqlite3_file *real;       /* the wrapped file, allocated right after us */
    unsigned char *buf;       /* NULL: pass writes straight through */
    sqlite3_int64 off;        /* file offset of buf[0] */
    int n;                    /* bytes buffered */
    int cap;                  /* WBUF_CAP with our descriptor, else WBUF_CAP_VFS */
    int kick_fd;              /* our own (write) descriptor of the file, or -1 */
    sqlite3_int64 unkicked;   /* bytes written since writeback was started */
};

/* Start writeback every few MiB instead of leaving a gigabyte of dirty pages
 * to the final fsync: the disk then works while we generate and insert, so
 * init's time is nearer max(CPU, disk) than their sum. Non-blocking unless
 * the device queue is full, which is back-pressure we want anyway. */
#define WBUF_KICK (8 << 20)

static sqlite3_vfs wvfs;
/* errno of this thread's last failed write, for the error message. */
static _Thread_local int last_errno;

int wbuf_last_errno(void)
{
    return last_errno;
}
static sqlite3_vfs *base_vfs;

static int wflush(struct wfile *f)
{
    if (!f->buf || f->n == 0)
        return SQLITE_OK;
    int rc = SQLITE_OK;
    if (f->kick_fd >= 0) {
        const unsigned char *p = f->buf;
        sqlite3_int64 off = f->off;
        int left = f->n;
        while (left > 0) {
            ssize_t w = pwrite(f->kick_fd, p, (size_t)left, off);
            if (w < 0 && errno == EINTR)
                continue;
            if (w <= 0) {
                last_errno = w < 0 ? errno : ENOSPC;
                rc = (w < 0 && errno != ENOSPC) ? SQLITE_IOERR_WRITE : SQLITE_FULL;
                break;
            }
            p += w, off += w, left -= (int)w;
        }
    } else {
        rc = f->real->pMethods->xWrite(f->real, f->buf, f->n, f->off);
    }
    f->unkicked += f->n;
    f->n = 0;
    if (f->kick_fd >= 0 && f->unkicked >= WBUF_KICK) {
        os_writeback_start(f->kick_fd);
        f->unkicked = 0;
    }
    return rc;
}

static int w_close(sqlite3_file *p)
{
    struct wfile *f = (struct wfile *)p;
    int rc = wflush(f);
    int rc2 = f->real->pMethods->xClose(f->real);
    free(f->buf);
    f->buf = NULL;
    if (f->kick_fd >= 0)
        close(f->kick_fd);
    f->kick_fd = -1;
    return rc != SQLITE_OK ? rc : rc2;
}

static int w_read(sqlite3_file *p, void *out, int amt, sqlite3_int64 ofst)
{
    struct wfile *f = (struct wfile *)p;
    if (f->n && ofst < f->off + f->n && ofst + amt > f->off) {
        int rc = wflush(f);
        if (rc != SQLITE_OK)
            return rc;
    }
    return f->real->pMethods->xRead(f->real, out, amt, ofst);
}

static int w_write(sqlite3_file *p, const void *data, int amt, sqlite3_int64 ofst)
{
    struct wfile *f = (struct wfile *)p;
    if (!f->buf)
        return f->real->pMethods->xWrite(f->real, data, amt, ofst);
    if (f->n && ofst == f->off + f->n && f->n + amt <= f->cap) {
        memcpy(f->buf + f->n, data, (size_t)amt);
        f->n += amt;
        return SQLITE_OK;
    }
    int rc = wflush(f);
    if (rc != SQLITE_OK)
        return rc;
    if (amt >= f->cap)
        return f->real->pMethods->xWrite(f->real, data, amt, ofst);
    memcpy(f->buf, data, (size_t)amt);
    f->off = ofst;
    f->n = amt;
    return SQLITE_OK;
}

static int w_truncate(sqlite3_file *p, sqlite3_int64 size)
{
    struct wfile *f = (struct wfile *)p;
    int rc = wflush(f);
    return rc != SQLITE_OK ? rc : f->real->pMethods->xTruncate(f->real, size);
}

static int w_sync(sqlite3_file *p, int flags)
{
    struct wfile *f = (struct wfile *)p;
    int rc = wflush(f);
    return rc != SQLITE_OK ? rc : f->real->pMethods->xSync(f->real, flags);
}

static int w_size(sqlite3_file *p, sqlite3_int64 *size)
{
    struct wfile *f = (struct wfile *)p;
    int rc = wflush(f);
    return rc != SQLITE_OK ? rc : f->real->pMethods->xFileSize(f->real, size);
}

static int w_lock(sqlite3_file *p, int l)
{
    struct wfile *f = (struct wfile *)p;
    return f->real->pMethods->xLock(f->real, l);
}

static int w_unlock(sqlite3_file *p, int l)
{
    struct wfile *f = (struct wfile *)p;
    int rc = wflush(f);   /* data must be on file before others may look */
    int rc2 = f->real->pMethods->xUnlock(f->real, l);
    return rc != SQLITE_OK ? rc : rc2;
}

static int w_reserved(sqlite3_file *p, int *out)
{
    struct wfile *f = (struct wfile *)p;
    return f->real->pMethods->xCheckReservedLock(f->real, out);
}

static int w_fcntl(sqlite3_file *p, int op, void *arg)
{
    struct wfile *f = (struct wfile *)p;
    int rc = wflush(f);
    return rc != SQLITE_OK ? rc : f->real->pMethods->xFileControl(f->real, op, arg);
}

static int w_sector(sqlite3_file *p)
{
    struct wfile *f = (struct wfile *)p;
    return f->real->pMethods->xSectorSize(f->real);
}

static int w_devchar(sqlite3_file *p)
{
    struct wfile *f = (struct wfile *)p;
    return f->real->pMethods->xDeviceCharacteristics(f->real);
}

/* Version 1: no shared memory and no mmap, so no WAL -- init uses neither. */
static const sqlite3_io_methods wmethods = {
    1, w_close, w_read, w_write, w_truncate, w_sync, w_size, w_lock, w_unlock,
    w_reserved, w_fcntl, w_sector, w_devchar,
    NULL, NULL, NULL, NULL, NULL, NULL,
};

static int w_open(sqlite3_vfs *vfs, sqlite3_filename name, sqlite3_file *p, int flags, int *outflags)
{
    (void)vfs;
    struct wfile *f = (struct wfile *)p;
    memset(f, 0, sizeof *f);
    f->kick_fd = -1;
    f->real = (sqlite3_file *)(f + 1);
    int rc = base_vfs->xOpen(base_vfs, name, f->real, flags, outflags);
    if (rc != SQLITE_OK) {
        p->pMethods = NULL;
        return rc;
    }
    if (flags & SQLITE_OPEN_MAIN_DB) {
        f->buf = malloc(WBUF_CAP);
        if (!f->buf) {
            f->real->pMethods->xClose(f->real);
            p->pMethods = NULL;
            return SQLITE_NOMEM;
        }
        if (name)
            f->kick_fd = open(name, O_WRONLY | O_CLOEXEC);
        f->cap = f->kick_fd >= 0 ? WBUF_CAP : WBUF_CAP_VFS;
    }
    p->pMethods = &wmethods;
    return SQLITE_OK;
}

static int w_delete(sqlite3_vfs *v, const char *n, int s) { (void)v; return base_vfs->xDelete(base_vfs, n, s); }
static int w_access(sqlite3_vfs *v, const char *n, int fl, int *o) { (void)v; return base_vfs->xAccess(base_vfs, n, fl, o); }
static int w_full(sqlite3_vfs *v, const char *n, int c, char *o) { (void)v; return base_vfs->xFullPathname(base_vfs, n, c, o); }
static int w_rand(sqlite3_vfs *v, int n, char *o) { (void)v; return base_vfs->xRandomness(base_vfs, n, o); }
static int w_sleep(sqlite3_vfs *v, int us) { (void)v; return base_vfs->xSleep(base_vfs, us); }
static int w_time(sqlite3_vfs *v, double *t) { (void)v; return base_vfs->xCurrentTime(base_vfs, t); }
static int w_err(sqlite3_vfs *v, int n, char *o) { (void)v; return base_vfs->xGetLastError ? base_vfs->xGetLastError(base_vfs, n, o) : 0; }
static int w_time64(sqlite3_vfs *v, sqlite3_int64 *t) { (void)v; return base_vfs->xCurrentTimeInt64(base_vfs, t); }

static int reg_rc = -1;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void do_register(void)
{
    base_vfs = sqlite3_vfs_find(NULL);
    if (!base_vfs || base_vfs->iVersion < 2 || !base_vfs->xCurrentTimeInt64)
        return;
    memset(&wvfs, 0, sizeof wvfs);
    wvfs.iVersion = 2;
    wvfs.szOsFile = (int)sizeof(struct wfile) + base_vfs->szOsFile;
    wvfs.mxPathname = base_vfs->mxPathname;
    wvfs.zName = "kvtest-wbuf";
    wvfs.xOpen = w_open;
    wvfs.xDelete = w_delete;
    wvfs.xAccess = w_access;
    wvfs.xFullPathname = w_full;
    wvfs.xRandomness = w_rand;
    wvfs.xSleep = w_sleep;
    wvfs.xCurrentTime = w_time;
    wvfs.xGetLastError = w_err;
    wvfs.xCurrentTimeInt64 = w_time64;
    reg_rc = sqlite3_vfs_register(&wvfs, 0);
}

const char *wbuf_vfs_name(void)
{
    pthread_once(&once, do_register);
    return reg_rc == SQLITE_OK ? "kvtest-wbuf" : NULL;
}
