#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# copies.sh NP: copies in memory (test/test_copies.c), run by make check as
# test/copies-npN.mpi from the build directory.
#   1. plain: store and restore without failures (every process passes).
#   2. With ULFM in the build (Open MPI 5), under mpiexec --with-ft ulfm, at
#      4 and 8 ranks: a process killed at step 5 of a program that stores
#      every 2 steps, dmesh_respawn, every process's state back bit for bit
#      (respawn); the same, then the process whose copy the replacement
#      holds again killed right after the restore (again); a process and
#      the holder of its copy killed together: DMESH_ERR_DATA_LOST on every
#      process, no hang (pair). The launcher must exit 0 and every process
#      at the end must pass.
# Skips (77) when NP is above DMESH_TEST_MAX_NP.
. "$top_srcdir/test/check.sh"
np=$1
max=$("$MPIRUN" --max-np) || exit 1
[ "$np" -le "$max" ] || check_skip "$np ranks > DMESH_TEST_MAX_NP=$max"
prog=./test/test_copies
log=test/copies-np$np.out
: >"$log"

# run_case WANT ARGS...: WANT processes must print that they passed, and
# mpiexec must exit 0 (77 from every process: the case is skipped).
run_case() {
    want=$1
    shift
    "$MPIRUN" "$np" "$prog" "$@" >"$log.1" 2>&1
    rc=$?
    cat "$log.1" >>"$log"
    ok=$(grep -ac "^test_copies: $1 passed" "$log.1")
    if [ $rc -eq 77 ] && [ "$ok" -eq 0 ]; then
        echo "copies.sh: $* at $np ranks: skipped"
    elif [ $rc -ne 0 ] || [ "$ok" -ne "$want" ]; then
        check_fail "$* at $np ranks: $ok of $want processes passed, mpiexec exit $rc"
        cat "$log.1"
    else
        echo "copies.sh: $* at $np ranks: $ok processes passed, mpiexec exit 0"
    fi
    rm -f "$log.1"
}

run_case "$np" plain
[ "$np" -ge 4 ] || check_exit
check_respawn_mpi copies.sh
half=$((np / 2))
run_case "$np" respawn 1 "$half" 2
run_case "$np" again 2 "$half" 2
run_case "$np" pair $((np - 1)) "$np"
check_exit
