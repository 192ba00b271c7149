/* wbuf: an SQLite VFS shim that coalesces contiguous page writes of the
 * main database file into large write() calls. Only for files one
 * connection owns exclusively with no journal (init's temporary file):
 * there, 4 KiB pages are written in ascending order and one pwrite per
 * page costs more system time than the data copy itself. */
#ifndef KVTEST_WBUF_H
#define KVTEST_WBUF_H

/* Registers the VFS on first use (thread-safe); returns its name for
 * sqlite3_open_v2, or NULL if registration failed. */
const char *wbuf_vfs_name(void);

/* errno of the calling thread's last failed write through the shim (0 if
 * none): SQLite only says "disk I/O error". */
int wbuf_last_errno(void);

#endif
