#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""tsan-reports.py LIBRARY LOG...: sort ThreadSanitizer's reports (the logs of
a program run with TSAN_OPTIONS log_path) into dmesh's and the MPI's.

The MPI libraries are not built with ThreadSanitizer: it sees their locks
and their memory only through its interceptors (pthread_mutex_lock, memcpy,
malloc, ...), and memory they free and take again reads as races between
unrelated objects. So a report is dmesh's when every stack that did
something in it (the two accesses of a data race, the acquisitions of a
lock-order cycle, the thread that used freed memory) was in code built with
ThreadSanitizer: the library (its frames' module is LIBRARY, e.g.
libdmesh.so) or the test program. A stack whose first frame is an
interceptor is decided by its caller. The stacks of where a thread, a mutex
or a heap block was made do not decide.

Prints each of dmesh's reports whole, then one line: "tsan: N reports,
K of dmesh's code, M in the MPI's own (uninstrumented) code"; exits 1 when
K > 0, 2 when no log holds a report header and none ran (empty input)."""
import re
import sys

FRAME = re.compile(r"^\s+#(\d+) (\S+) (\S+)(?: \((\S+?)\+0x[0-9a-f]+\))?")
# the lines that start a stack which does not decide
CONTEXT = re.compile(r"^\s*(Location is|Mutex \S+ .*created at|Thread T\d+ .*created by|"
                     r"Mutex \S+ \(0x[0-9a-f]+\) created at)")


def reports(text):
    cur = None
    for line in text.splitlines():
        if line.startswith("WARNING: ThreadSanitizer:"):
            if cur:
                yield cur
            cur = [line]
        elif cur is not None:
            if line.startswith("SUMMARY: ThreadSanitizer:"):
                cur.append(line)
                yield cur
                cur = None
            else:
                cur.append(line)
    if cur:
        yield cur


def stacks(lines):
    """The stacks that decide: lists of (location, module) frames."""
    out, cur, deciding = [], None, True
    for line in lines[1:]:
        m = FRAME.match(line)
        if m:
            if cur is None:
                cur = []
                if deciding:
                    out.append(cur)
            cur.append((m.group(3), m.group(4) or ""))
            continue
        cur = None
        if line.strip():
            deciding = not CONTEXT.match(line)
    return out


def owner(stack, library):
    """'dmesh' for an access by instrumented code, else 'mpi'."""
    frames = stack
    if frames and frames[0][0] == "<null>":  # an interceptor: its caller decides
        frames = frames[1:]
    if not frames:
        return "mpi"
    location, module = frames[0]
    if module.startswith(library) or location != "<null>":
        return "dmesh"
    return "mpi"


def main():
    if len(sys.argv) < 3:
        sys.stderr.write("usage: tsan-reports.py LIBRARY LOG...\n")
        return 2
    library = sys.argv[1]
    total = ours = 0
    for path in sys.argv[2:]:
        with open(path, errors="replace") as f:
            text = f.read()
        for rep in reports(text):
            total += 1
            st = stacks(rep)
            if st and all(owner(s, library) == "dmesh" for s in st):
                ours += 1
                print("\n".join(rep))
    print("tsan: %d reports, %d of dmesh's code, %d in the MPI's own (uninstrumented) code"
          % (total, ours, total - ours))
    return 1 if ours else 0


if __name__ == "__main__":
    sys.exit(main())
