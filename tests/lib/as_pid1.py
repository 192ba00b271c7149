#!/usr/bin/env python3
"""as_pid1.py CMD...: run CMD as the only child of this process, meant to
be pid 1 of a PID namespace of its own (unshare --pid --fork
--mount-proc). Any catchable signal that reaches pid 1 is recorded: a
program that signals the wrong process (pid 1 by mistake) is caught in
the act without touching the machine's init. At the end one line on
stderr, "pid 1 got: none" or the signal numbers, and CMD's status."""
import signal
import subprocess
import sys

got = []
for s in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP, signal.SIGUSR1, signal.SIGUSR2,
          signal.SIGQUIT, signal.SIGALRM):
    signal.signal(s, lambda n, _f: got.append(n))
p = subprocess.Popen(sys.argv[1:])
rc = p.wait()
sys.stderr.write("pid 1 got: %s\n" % (" ".join(map(str, got)) or "none"))
sys.exit(rc if rc >= 0 else 128 - rc)
