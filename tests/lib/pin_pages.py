#!/usr/bin/env python3
"""pin_pages.py FILE FRACTION READY [--seconds S]: hold the first FRACTION
of FILE's pages in the page cache, as another process using the data would,
so that an eviction (posix_fadvise DONTNEED) cannot drop them.

Maps the first ceil(FRACTION * pages) pages of FILE read-only and
mlock()s them (locking faults them in; a locked, mapped page is never
dropped). Then
writes "locked N of M pages" to READY (the caller waits for that file) and
sleeps until SIGTERM, or --seconds (default 60) so that a test that forgets
it cannot leave it behind. Exit status 1 with a message on stderr if the
pages cannot be locked (RLIMIT_MEMLOCK: keep FILE small).
"""
import argparse
import ctypes
import ctypes.util
import math
import mmap
import os
import signal
import sys
import time


def main():
    p = argparse.ArgumentParser()
    p.add_argument("file")
    p.add_argument("fraction", type=float)
    p.add_argument("ready")
    p.add_argument("--seconds", type=float, default=60)
    a = p.parse_args()

    libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)
    libc.mmap.restype = ctypes.c_void_p
    libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                          ctypes.c_int, ctypes.c_long]
    libc.mlock.argtypes = [ctypes.c_void_p, ctypes.c_size_t]

    size = os.path.getsize(a.file)
    page = mmap.PAGESIZE
    pages = (size + page - 1) // page
    lock = min(pages, math.ceil(a.fraction * pages - 1e-9))
    if lock > 0:
        fd = os.open(a.file, os.O_RDONLY)
        # Start from nothing cached, and fault in single pages: readahead
        # would bring in large folios, and a folio of which one page is
        # locked stays whole, holding more than asked.
        os.fdatasync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        # Only the pages to hold are mapped: the kernel maps neighbouring
        # cached pages of a mapping on a fault ("fault-around"), and a mapped
        # page is not evicted either, so a whole-file mapping would hold more.
        addr = libc.mmap(None, lock * page, mmap.PROT_READ, mmap.MAP_SHARED, fd, 0)
        if addr is None or addr == ctypes.c_void_p(-1).value:
            sys.exit("pin_pages.py: mmap %s: %s" % (a.file, os.strerror(ctypes.get_errno())))
        libc.madvise(ctypes.c_void_p(addr), ctypes.c_size_t(lock * page), mmap.MADV_RANDOM)
        if libc.mlock(addr, lock * page) != 0:
            sys.exit("pin_pages.py: mlock %d pages of %s: %s"
                     % (lock, a.file, os.strerror(ctypes.get_errno())))
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    with open(a.ready + ".tmp", "w") as f:
        f.write("locked %d of %d pages\n" % (lock, pages))
    os.rename(a.ready + ".tmp", a.ready)   # whole, or not there
    time.sleep(a.seconds)


if __name__ == "__main__":
    main()
