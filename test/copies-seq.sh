#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# copies-seq.sh NP: test_copies_seq (test/test_copies_seq.c) at NP ranks, run
# by make check as test/copies-seq-npN.mpi from the build directory: mpiexec
# must exit 0 and every process pass. Skips (77) above DMESH_TEST_MAX_NP.
# Always a plain launch: a lost process is stood in for, no fault tolerance
# is needed, and under mpiexec --with-ft ulfm every agreement of the
# thousands of meshes and opens is a failure-aware one (Open MPI 5.0.7: the
# 4-rank run passed 500 s there, 11 s plain).
. "$top_srcdir/test/check.sh"
np=$1
DMESH_TEST_LAUNCH=plain
export DMESH_TEST_LAUNCH
out=$("$MPIRUN" "$np" ./test/test_copies_seq 2>&1)
rc=$?
printf '%s\n' "$out"
[ $rc -ne 77 ] || check_skip "$np ranks"
ok=$(printf '%s\n' "$out" | grep -ac '^test_copies_seq: passed')
[ $rc -eq 0 ] && [ "$ok" -eq "$np" ] || check_fail "$ok of $np processes passed, mpiexec exit $rc"
check_exit
