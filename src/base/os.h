/* os: the few facilities kvtest uses beyond POSIX.1-2008, in one place.
 *
 * Everything else in the program is plain C11 + POSIX.1-2008, so it builds
 * on Linux, macOS and the BSDs alike. Each function here has the Linux way
 * (what the figures in results/ were measured with), the macOS/BSD way where
 * one exists, and a portable fallback; where a platform has no way at all,
 * the *_missing() functions say so in words, and the command that needs it
 * refuses with that line instead of silently doing less.
 *
 * Building with -DKVTEST_OS_FALLBACK forces the portable fallbacks on any
 * platform, so they are compiled and tested on Linux too. */
#ifndef KVTEST_OS_H
#define KVTEST_OS_H
#include <stddef.h>
#include <stdint.h>

/* "linux", "macos", "bsd" or "posix" (the fallbacks): which branch of this
 * module was compiled, for --version and the README's table. */
const char *os_flavour(void);

/* n bytes from the kernel's CSPRNG: getrandom (Linux), /dev/urandom
 * elsewhere. 0, or -1 with errno. */
int os_random_bytes(void *buf, size_t n);

/* Start writing back fd's dirty pages without waiting for them (Linux
 * sync_file_range): spreads init's disk work over the run. Only a
 * throughput hint, so elsewhere it does nothing. */
void os_writeback_start(int fd);

/* Write back fd's dirty data pages and wait. Linux: sync_file_range, which
 * needs no journal commit per file (35 s instead of 2 s for 100k files);
 * elsewhere, or where the filesystem lacks it, fdatasync (fsync where the
 * platform has no fdatasync). 0, or -1 with errno. */
int os_writeback_wait(int fd);

/* NULL if page-cache eviction of a file can be done AND verified here
 * (posix_fadvise DONTNEED + mincore); otherwise why not, as one phrase. */
const char *os_evict_missing(void);
/* Drop fd's clean pages from the page cache. 0, or -1 with errno. */
int os_evict(int fd);
/* Pages of fd's first `size` bytes, and how many are in the page cache
 * (added to *pages and *resident). 0, or -1 with errno. */
int os_resident(int fd, int64_t size, int64_t *pages, int64_t *resident);

/* NULL if readahead can be switched off/on per file here (posix_fadvise
 * RANDOM/NORMAL, macOS F_RDAHEAD); otherwise why not. */
const char *os_readahead_missing(void);
/* Readahead off (random=1) or on (random=0) for fd. 0, or an errno value. */
int os_readahead(int fd, int random);

/* Descriptors of this process open on the file `path` (same device and
 * inode, or on Linux the same /proc/self/fd target): up to cap of them into
 * fds. Returns how many were found. */
int os_fds_on_path(const char *path, int *fds, int cap);

/* Name of the filesystem holding path ("ext4", "apfs", "ufs", ... or
 * "0x..." for an unnamed Linux magic number) into buf. 0, or -1 if it
 * cannot be told (statfs failed, or no way on this platform). */
int os_fs_type(const char *path, char *buf, int cap);

/* CPU model into buf ("unknown" where the platform does not say). */
void os_cpu_model(char *buf, int cap);

/* NULL if per-process I/O counters (Linux /proc/self/io) exist here;
 * otherwise why not. */
const char *os_io_counters_missing(void);
/* The named /proc/self/io fields into v[0..n) (absent fields are 0).
 * 0, or -1 where the counters cannot be read. */
int os_io_counters(const char *const *keys, int n, int64_t *v);

#endif
