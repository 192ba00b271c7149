#!/usr/bin/env python3
"""subreaper.py CMD...: run CMD with this process as the child subreaper
of everything CMD starts (PR_SET_CHILD_SUBREAPER), so a process CMD
leaves behind when it exits is adopted here instead of by init. Prints
"exit S, left N" (N: processes adopted, running or not yet reaped),
kills what was left by PID, and exits 0."""
import ctypes
import os
import signal
import subprocess
import sys

PR_SET_CHILD_SUBREAPER = 36
libc = ctypes.CDLL(None, use_errno=True)
if libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) != 0:
    sys.exit("subreaper.py: prctl: %s" % os.strerror(ctypes.get_errno()))
p = subprocess.Popen(sys.argv[1:])
rc = p.wait(timeout=120)
me = os.getpid()
with open("/proc/%d/task/%d/children" % (me, me)) as f:
    left = [int(x) for x in f.read().split()]
for pid in left:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
for pid in left:
    os.waitpid(pid, 0)
print("exit %d, left %d" % (rc, len(left)))
