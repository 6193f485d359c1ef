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
#   3. Built with --enable-fault-injection too, up to DMESH_FT_SWEEP_MAX_NP
#      ranks (default 4): the kill sweep of dmesh_copies_store and
#      dmesh_copies_restore (test_copies sweep:CALL:WHO:STEP): a process dies
#      at step 1, 2, ... of the call (every agreement, every transfer step),
#      until a run no longer kills it; store_first, restore_first: a process
#      of the first launch; store_new, restore_new: the process dmesh_respawn
#      started in place of a dead one. Every survivor must return the same
#      class from the call, and every process at the end must hold the clean
#      run's state bit for bit (the program repairs and restores again). A
#      hang fails (timeout). Each scheme of copies is swept (partner, then
#      xor; DMESH_FT_SWEEP_SCHEMES picks some), each with its own steps.
#      DMESH_FT_SWEEP_CALLS (test/ft.sh's) picks calls by these names;
#      DMESH_FT_SWEEP_STRIDE and _OFFSET sample the steps as there.
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

# 3. the kill sweep of the store and the restore
grep -q '^#define DMESH_FAULT_INJECTION 1' config.h || check_exit
if [ "$np" -gt "${DMESH_FT_SWEEP_MAX_NP:-4}" ]; then
    echo "copies.sh: sweep at $np ranks: skipped (DMESH_FT_SWEEP_MAX_NP=${DMESH_FT_SWEEP_MAX_NP:-4})"
    check_exit
fi
stride=${DMESH_FT_SWEEP_STRIDE:-1} offset=${DMESH_FT_SWEEP_OFFSET:-0}
calls=
for c in ${DMESH_FT_SWEEP_CALLS:-store_first store_new restore_first restore_new}; do
    case $c in store_first | store_new | restore_first | restore_new) calls="$calls $c" ;; esac
done
runs=0 t0=$(date +%s)
for scheme in ${DMESH_FT_SWEEP_SCHEMES:-partner xor}; do
    for c in $calls; do
        step=1 last=0
        while [ $step -le 60 ]; do
            mode="sweep:${c%_*}:${c#*_}:$step:$scheme"
            DMESH_TEST_TIMEOUT=${DMESH_TEST_TIMEOUT:-90} "$MPIRUN" "$np" "$prog" "$mode" 1 "$half" 2 >"$log.1" 2>&1
            rc=$?
            runs=$((runs + 1))
            cat "$log.1" >>"$log"
            # every process at the end (those started by a repair included)
            ok=$(grep -ac "^test_copies: sweep:${c%_*}:${c#*_}:[0-9]*:$scheme passed" "$log.1")
            line=$(grep -a "^sweep ${c%_*} ${c#*_} step $step:" "$log.1" | head -n 1)
            rm -f "$log.1"
            if [ -z "$line" ] || [ "$ok" -ne "$np" ]; then
                check_fail "sweep $c ($scheme) step $step at $np ranks: $ok of $np processes passed (mpiexec exit $rc)"
                break
            fi
            case $line in *nokill*) break ;; esac
            last=$step
            step=$((step + 1))
            while [ $(((step - 2) % stride)) -ne "$offset" ] && [ $step -gt 1 ]; do step=$((step + 1)); done
        done
        [ "$stride" -eq 1 ] && how="steps 1 to $last" || how="sampled steps (one in $stride) up to $last"
        echo "copies.sh: sweep $c ($scheme) at $np ranks: killed at $how, every survivor returned alike, every state back"
    done
done
echo "copies.sh: sweep at $np ranks: $runs runs, $(($(date +%s) - t0)) s"
check_exit
