#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# sessions.sh NP: test_sessions at NP ranks (every creation call on a
# communicator of the MPI-4 sessions model, no MPI_Init), under DMESH_DEBUG=1:
# when the program frees its communicator, dmesh's private duplicate of it
# must be released, which the printing rank says once. Skips (77) with the
# program when the MPI has no sessions.
. "$top_srcdir/test/check.sh"
out=$(DMESH_DEBUG=1 "$MPIRUN" "${1:-2}" ./test/test_sessions 2>&1)
rc=$?
printf '%s\n' "$out"
[ "$rc" -ne 77 ] || exit 77
[ "$rc" -eq 0 ] || check_fail "test_sessions exited with $rc"
n=$(printf '%s\n' "$out" | grep -c 'released the private duplicate of a user communicator')
[ "$n" -eq 1 ] || check_fail "the private duplicate was released $n times (want 1)"
check_exit
