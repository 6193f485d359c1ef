#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# respawn.sh NP: meshes that come back whole (test/test_respawn.c), run by
# make check as test/respawn-npN.mpi from the build directory.
#   1. plain: dmesh_join without a parent, dmesh_respawn without fault
#      tolerance, bad arguments of dmesh_grow.
#   2. foreign: a child of a plain MPI_Comm_spawn calls dmesh_join and gets
#      DMESH_ERR_TIMEOUT after its dmesh_timeout (2 s) while the parent is
#      silent, DMESH_ERR_ARG once the parent sent a message of its own.
#   3. grow: each dimension of a 2-D mesh grows by one index (2 -> 4
#      processes at NP 2, 4 -> 6 at NP 4); an MPI that refuses to spawn
#      (DMESH_ERR_SPAWN) skips these with its reason. growname (at 2 and 4
#      ranks): the dimensions are called "1" and "0", each the other's
#      index; dmesh_grow_by_name of one (dimension 0 at NP 2, 1 at NP 4)
#      must make what dmesh_grow of its index makes.
#   4. With ULFM in the build (Open MPI 5, 6), under mpiexec --with-ft ulfm:
#      dmesh_respawn after the first, a middle or the last rank died, after
#      two died, and after a process outside the mesh died, on meshes of 1
#      and 2 dimensions (and 3 at NP 8); then a respawn
#      of the respawned mesh with nothing failed. The launcher must exit 0
#      (the job ends as a run without a failure does) and every survivor
#      must pass; DMESH_RESPAWN_REPEAT (default 1) runs each case so many
#      times.
#   5. At 4 ranks and more, under the same launch: the respawned process's
#      arguments and environment are the survivors' (test_respawn_args), a
#      second failure, of the process that the first respawn started
#      (again), and the failure of a process that dmesh_grow added
#      (growkill): every survivor respawns and checks.
# Skips (77) when NP is above DMESH_TEST_MAX_NP.
. "$top_srcdir/test/check.sh"
np=$1
max=$("$MPIRUN" --max-np) || exit 1
[ "$np" -le "$max" ] || check_skip "$np ranks > DMESH_TEST_MAX_NP=$max"
prog=./test/test_respawn
log=test/respawn-np$np.out
: >"$log"

# run_case WANT ARGS...: WANT processes must print that they passed, and
# mpiexec must exit 0 (77 from every process: the case is skipped).
run_case() {
    want=$1
    shift
    "$MPIRUN" "$np" "$prog" "$@" >"$log.1" 2>&1
    rc=$?
    cat "$log.1" >>"$log"
    ok=$(grep -ac "^test_respawn: $1 passed" "$log.1")
    if [ $rc -eq 77 ] && [ "$ok" -eq 0 ]; then
        echo "respawn.sh: $* at $np ranks: skipped: $(grep -a 'skipped' "$log.1" | head -n 1)"
    elif [ $rc -ne 0 ] || [ "$ok" -ne "$want" ]; then
        check_fail "$* at $np ranks: $ok of $want processes passed, mpiexec exit $rc"
        cat "$log.1"
    else
        bounded=$(grep -ac 'MPI_Finalize did not return' "$log.1")
        note=
        if [ "$bounded" -gt 0 ]; then
            note="; MPI_Finalize bounded on $bounded processes"
            finalize_hangs=$((finalize_hangs + 1))
        fi
        echo "respawn.sh: $* at $np ranks: $ok processes passed, mpiexec exit 0$note"
    fi
    rm -f "$log.1"
}

finalize_hangs=0
run_case "$np" plain
run_case "$np" foreign
case $np in
2) run_case "$np" grow 0 1 1 2 && run_case "$np" grow 1 1 2 1 && run_case "$np" growname 0 1 1 2 ;;
4) run_case "$np" grow 0 1 2 2 && run_case "$np" grow 1 1 2 2 && run_case "$np" growname 1 1 2 2 ;;
*) run_case "$np" grow 0 1 2 $((np / 2)) ;;
esac

check_respawn_mpi respawn.sh
half=$((np / 2))
repeat=${DMESH_RESPAWN_REPEAT:-1}
i=0
while [ $i -lt "$repeat" ]; do
    run_case $((np - 1)) respawn 1 2 "$half"
    run_case $((np - 1)) respawn 0 "$np"
    run_case $((np - 1)) respawn $((np - 1)) "$half" 2
    [ "$np" -lt 4 ] || run_case $((np - 2)) respawn 1,$((np - 1)) 2 "$half"
    # the last process is outside the mesh (a spare)
    [ "$np" -lt 3 ] || run_case $((np - 1)) respawn $((np - 1)) $((np - 1))
    # a 3-D mesh, a middle rank
    [ "$np" -ne 8 ] || run_case 7 respawn 5 2 2 2
    i=$((i + 1))
done
# The program as the launcher started it (test_respawn_args): no arguments;
# several, one with spaces and one empty, with DMESH_COMM_CREATE=split in
# the parents' environment (the new process flips it); one longer than
# MPI_MAX_INFO_VAL; and through a wrapper that sets a variable and execs
# the program: np - 1 survivors and the new process must pass.
args_case() {
    DMESH_FINALIZE_BOUND=5 "$MPIRUN" "$np" "$@" >"$log.1" 2>&1
    rc=$?
    cat "$log.1" >>"$log"
    ok=$(grep -ac '^test_respawn_args: passed' "$log.1")
    if [ $rc -ne 0 ] || [ "$ok" -ne "$np" ]; then
        check_fail "test_respawn_args $* at $np ranks: $ok of $np processes passed, mpiexec exit $rc"
        cat "$log.1"
    else
        echo "respawn.sh: respawned as launched ($*) at $np ranks: $ok processes passed, mpiexec exit 0"
    fi
    rm -f "$log.1"
}
if [ "$np" -ge 4 ]; then
    long=$(printf 'x%.0s' $(seq 1 300))
    args_case ./test/test_respawn_args
    DMESH_COMM_CREATE=split args_case ./test/test_respawn_args a "b c" "" d
    DMESH_TEST_KILL=3 args_case ./test/test_respawn_args "$long" end
    args_case "$top_srcdir/test/respawn-wrap.sh" ./test/test_respawn_args w "x y"
fi
# The cases in which a started process dies (again, growkill):
# run_outcomes NAME ARGS... runs test_respawn ARGS at np ranks, bounded at
# 60 s; each survivor also writes its outcome to test/respawn-npN-NAME.RANK
# (DMESH_TEST_OUTCOME: the launcher may end before it passes their output
# on), added to $log.1. The names hold np: make -j runs this script at 4
# and 8 ranks at once, in one directory.
run_outcomes() {
    name=$1
    shift
    outcome=test/respawn-np$np-$name
    rm -f "$outcome".*
    DMESH_TEST_OUTCOME=$outcome DMESH_TEST_TIMEOUT=60 "$MPIRUN" "$np" "$prog" "$@" >"$log.1" 2>&1
    rc=$?
    cat "$outcome".* >>"$log.1" 2>/dev/null
    rm -f "$outcome".*
    cat "$log.1" >>"$log"
}
# launcher_ended_well: the launcher's status is 0, or 137 with its report
# of the started process's death (Open MPI 5.0.7 reports it so whatever the
# program does: test/trixie/spawn-kill.c).
launcher_ended_well() {
    [ $rc -eq 0 ] || { [ $rc -eq 137 ] && grep -aq 'prterun noticed that process rank 0 with PID' "$log.1"; }
}
# A second failure, of a process that the first respawn started: every
# survivor must respawn again, with DMESH_SUCCESS, and check the mesh; at 4
# ranks and more.
if [ "$np" -ge 4 ]; then
    run_outcomes again again 1 2 2
    got=$(grep -a 'again: second dmesh_respawn on rank' "$log.1" | sed 's/.*: //' | sort -u)
    n=$(grep -ac 'again: second dmesh_respawn on rank' "$log.1")
    checked=$(grep -ac 'second respawn checked: ok' "$log.1")
    if [ "$n" -ne $((np - 1)) ] || [ "$got" != DMESH_SUCCESS ] || [ "$checked" -ne "$n" ] ||
        ! launcher_ended_well; then
        check_fail "again at $np ranks: $n of $((np - 1)) survivors reported (${got:-nothing}), $checked checked the mesh, mpiexec exit $rc"
        cat "$log.1"
    else
        echo "respawn.sh: again at $np ranks: $n of $((np - 1)) survivors of a started process's failure respawned it and checked the mesh; mpiexec exit $rc"
    fi
    rm -f "$log.1"
fi
# A process that dmesh_grow added dies (test_respawn growkill: a 1-D mesh
# of np grows by one process, which then dies): every survivor must respawn
# the grown mesh and check it; at 4 ranks and more.
if [ "$np" -ge 4 ]; then
    run_outcomes growkill growkill 0 1 "$np"
    n=$(grep -ao '^test_respawn: growkill passed on rank [0-9]*' "$log.1" | sort -u | wc -l)
    grep -aq '^test_respawn: growkill skipped\|grow skipped' "$log.1" && n=skip
    if [ "$n" = skip ] || { [ $rc -eq 77 ] && [ "$n" -eq 0 ]; }; then
        echo "respawn.sh: growkill at $np ranks: skipped: $(grep -a 'skipped' "$log.1" | head -n 1)"
    elif [ "$n" -lt "$np" ] || ! launcher_ended_well; then
        check_fail "growkill at $np ranks: $n of $np survivors passed, mpiexec exit $rc"
        cat "$log.1"
    else
        echo "respawn.sh: growkill at $np ranks: a grown process died, $n of $np survivors respawned the grown mesh and checked it; mpiexec exit $rc"
    fi
    rm -f "$log.1"
fi
# Open MPI 5.0.7 may not return from MPI_Finalize after a failure (its
# fence over the launch, the dead process included): the test bounds it and
# says how often
echo "respawn.sh: runs with a failure at $np ranks whose MPI_Finalize was bounded: $finalize_hangs"
check_exit
