#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# copies-chunk.sh NP: test_copies plain built with messages and reductions
# of 4 KiB (test/copies.mk, test_copies_chunk), run by make check as
# test/copies-chunk-npN.mpi: every process must pass, mpiexec exit 0.
# Skips (77) when NP is above DMESH_TEST_MAX_NP.
. "$top_srcdir/test/check.sh"
np=$1
max=$("$MPIRUN" --max-np) || exit 1
[ "$np" -le "$max" ] || check_skip "$np ranks > DMESH_TEST_MAX_NP=$max"
out=$("$MPIRUN" "$np" ./test/test_copies_chunk plain 2>&1)
rc=$?
ok=$(printf '%s\n' "$out" | grep -ac "^test_copies: plain passed")
if [ $rc -ne 0 ] || [ "$ok" -ne "$np" ]; then
    check_fail "plain at $np ranks (4 KiB messages): $ok of $np processes passed, mpiexec exit $rc"
    printf '%s\n' "$out"
else
    echo "copies-chunk.sh: plain at $np ranks (4 KiB messages): $ok processes passed"
fi
check_exit
