#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# ft.sh NP: the fault-tolerance tests at NP ranks (test/test_ft.c), run by
# make check as test/ft-npN.mpi from the build directory.
#   1. Launched plainly (DMESH_TEST_LAUNCH=plain, whatever the suite runs
#      under), test_ft must find no fault tolerance and check
#      that dmesh_revoke, dmesh_get_failed and dmesh_shrink return
#      DMESH_ERR_UNSUPPORTED (its exit 77).
#   2. Built with ULFM (config.h DMESH_HAVE_ULFM: Open MPI 5), each case
#      runs under mpiexec --with-ft ulfm, one mpiexec each (a process dies
#      in it): every survivor must print its outcome, all passed.
#      Survivors print their outcome before MPI_Finalize, which Open MPI
#      5.0.7 may hang in after a process died (test_ft.c bounds it): the
#      outcome lines decide, not mpiexec's status.
#   3. Built with --enable-fault-injection too: rank 1 is killed at every
#      step of every collective call (DMESH_FAULT_KILL=1:STEP, STEP = 1, 2,
#      ... until a run no longer kills it); every survivor must return,
#      with the same class, and shrink. A hang fails (timeout).
#      Built with NCCL too (config.h DMESH_HAVE_NCCL; test_ft then links
#      the NCCL and CUDA test doubles, no GPU needed), the sweep covers the
#      creation of NCCL communicators on a "cuda" mesh: nccl_lazy and
#      nccl_lazy_root (the first dmesh_get_nccl_comm of a dim made with
#      dmesh_nccl_init=lazy, rank 1 a member of it, or the rank that makes
#      its NCCL unique id) and nccl_eager (dmesh_init of a "cuda" mesh); the
#      survivors' shrunk "cuda" mesh must pass an NCCL allreduce too. They
#      run with DMESH_TIMEOUT (a non-blocking creation, which stops once the
#      MPI knows of the failure: a blocking one waits for the dead member).
#      join and join_malloc: rank np - 1 dies and the survivors respawn it;
#      the new process dies at every step of its dmesh_join (join), or its
#      allocations fail one after the other (join_malloc); every survivor
#      must return the same class, and the mesh must come back whole (a
#      respawn again). Where it dies just before or inside the merge, Open
#      MPI 5.0.7 never returns from MPI_Intercomm_merge on the parents
#      (test/trixie/merge-dead-peer.c shows it without dmesh): dmesh ends
#      them after the call's dmesh_timeout, saying so; reported, not failed.
#      respawn (with DMESH_FT_SWEEP_RESPAWN=1): rank np - 1 dies, then rank 1
#      at every step of the survivors' dmesh_respawn (and so of the new
#      processes' dmesh_join); every survivor must return the same class, and
#      a second dmesh_respawn, after a failed one, must give the whole mesh
#      back.
#      DMESH_FT_SWEEP_CALLS="CALL ..." sweeps those calls only.
# Skips (77) when only step 1 could run, and when NP is above
# DMESH_TEST_MAX_NP (the launcher would skip every run).
. "$top_srcdir/test/check.sh"
np=$1
max=$("$MPIRUN" --max-np) || exit 1
[ "$np" -le "$max" ] || check_skip "$np ranks > DMESH_TEST_MAX_NP=$max"
prog=./test/test_ft
export DMESH_TEST_TIMEOUT=${DMESH_TEST_TIMEOUT:-60}

# (the plain launch asked for: the suite may run under --with-ft ulfm, in
# DMESH_TEST_MPIEXEC_FLAGS or in configure's MPIEXEC; mpirun.sh takes it out
# of both)
DMESH_TEST_LAUNCH=plain "$MPIRUN" "$np" "$prog" >"test/ft-np$np.plain" 2>&1
rc=$?
cat "test/ft-np$np.plain"
[ $rc -eq 77 ] || check_fail "without --with-ft ulfm: exit $rc (want 77, DMESH_ERR_UNSUPPORTED checked)"
# The Fortran bindings (when built): the same check plainly.
if [ -x ./test/test_ft_fortran ]; then
    DMESH_TEST_LAUNCH=plain "$MPIRUN" "$np" ./test/test_ft_fortran >"test/ft-np$np.fortran-plain" 2>&1
    rc=$?
    [ $rc -eq 77 ] || { check_fail "test_ft_fortran without --with-ft ulfm: exit $rc (want 77)"; cat "test/ft-np$np.fortran-plain"; }
fi
grep -q '^#define DMESH_HAVE_ULFM 1' config.h || {
    [ $check_failed -eq 0 ] && check_skip "no ULFM in this build: DMESH_ERR_UNSUPPORTED checked"
    check_exit
}
DMESH_TEST_MPIEXEC_FLAGS="--with-ft ulfm"
export DMESH_TEST_MPIEXEC_FLAGS
survivors=$((np - 1))
cases="between_calls in_allreduce revoke_releases two_failures spares before_first_creation
revoke_then_new_mesh shrink_by_name"
# with NCCL (the test doubles): a "cuda" mesh shrunk through ncclCommShrink
grep -q '^#define DMESH_HAVE_NCCL 1' config.h && cases="$cases nccl_shrink"
for case in $cases; do
    want=$survivors
    [ $case = two_failures ] && want=$((np - 2))
    [ $case = revoke_then_new_mesh ] && want=$np
    CK_RUN_CASE=$case "$MPIRUN" "$np" "$prog" >"test/ft-np$np.$case" 2>&1
    rc=$?
    ok=$(grep -ac 'test_ft rank [0-9]*: 1 run, 0 failed' "test/ft-np$np.$case")
    if [ "$ok" -ne "$want" ]; then
        check_fail "$case at $np ranks: $ok of $want survivors passed (mpiexec exit $rc)"
        cat "test/ft-np$np.$case"
    else
        echo "ft $case at $np ranks: $ok survivors passed"
    fi
done
if [ -x ./test/test_ft_fortran ]; then
    "$MPIRUN" "$np" ./test/test_ft_fortran >"test/ft-np$np.fortran" 2>&1
    rc=$?
    ok=$(grep -ac 'test_ft_fortran rank [0-9]*: ok' "test/ft-np$np.fortran")
    if [ "$ok" -ne "$survivors" ]; then
        check_fail "test_ft_fortran at $np ranks: $ok of $survivors survivors passed (mpiexec exit $rc)"
        cat "test/ft-np$np.fortran"
    else
        echo "ft Fortran (dmesh_f08) at $np ranks: $ok survivors passed"
    fi
fi
# The example: rank 1 dies in the middle of step 3; the survivors shrink dp
# (or keep the shape with spares), redo the step and check every result.
for mode in shrink spares; do
    log="test/ft-np$np.resilient-$mode"
    DMESH_EXAMPLE_KILL_RANK=1 DMESH_EXAMPLE_KILL_STEP=3 "$MPIRUN" "$np" ./examples/resilient $mode >"$log" 2>&1
    rc=$?
    if grep -aq 'resilient: 6 steps, 1 recoveries, total [0-9]* (every step checked)' "$log" &&
        ! grep -aq '^resilient: rank' "$log"; then
        grep -a '^resilient:' "$log"
    else
        check_fail "examples/resilient $mode at $np ranks (mpiexec exit $rc)"
        cat "$log"
    fi
done
# The sweep runs up to DMESH_FT_SWEEP_MAX_NP ranks (default 4: CI's time;
# the cases above run at every size): at 8 it takes as long as at 4 and
# meets the same steps.
if grep -q '^#define DMESH_FAULT_INJECTION 1' config.h && [ "$np" -gt "${DMESH_FT_SWEEP_MAX_NP:-4}" ]; then
    echo "ft sweep at $np ranks: skipped (DMESH_FT_SWEEP_MAX_NP=${DMESH_FT_SWEEP_MAX_NP:-4})"
elif grep -q '^#define DMESH_FAULT_INJECTION 1' config.h; then
    runs=0
    # sweep_next STEP: the next step the sweep runs (see DMESH_FT_SWEEP_STRIDE)
    sweep_next() {
        n=$(($1 + 1))
        while [ $(((n - 2) % stride)) -ne "$offset" ]; do n=$((n + 1)); done
        echo $n
    }
    # dmesh_join's own steps (join: the new process dies at each; join_malloc:
    # its allocations fail one by one). init, create and from_comms share
    # init_first's creation steps: DMESH_FT_SWEEP_ALL=0 leaves them out (a
    # quicker run)
    calls="init_first init_hybrid flatten unflatten deserialize cart locality join join_malloc"
    [ "${DMESH_FT_SWEEP_ALL:-1}" != 1 ] || calls="init create from_comms $calls"
    # dmesh_respawn's sweep on request (DMESH_FT_SWEEP_RESPAWN=1): under Open MPI
    # 5.0.7 a death at some of its steps leaves the MPI itself stuck (user
    # guide, "Coming back whole"), so CI does not run it
    [ "${DMESH_FT_SWEEP_RESPAWN:-0}" != 1 ] || calls="$calls respawn"
    if grep -q '^#define DMESH_HAVE_NCCL 1' config.h; then
        calls="$calls nccl_lazy nccl_lazy_root nccl_eager"
    else
        echo "ft sweep at $np ranks: nccl_lazy, nccl_lazy_root, nccl_eager skipped: no NCCL in this build"
    fi
    # DMESH_FT_SWEEP_CALLS="CALL ...": those calls only (a developer's run)
    [ -z "${DMESH_FT_SWEEP_CALLS:-}" ] || calls=$DMESH_FT_SWEEP_CALLS
    # DMESH_FT_SWEEP_STRIDE=S (default 1: every step): step 1 and every S-th
    # step after it from DMESH_FT_SWEEP_OFFSET (0 to S - 1), up to the first
    # that kills nobody; with DMESH_FT_SWEEP_LAST=1 also the call's last
    # step (found going back from there). CI samples the steps this way for
    # its time, the offset changing from day to day; the full sweep is the
    # default.
    stride=${DMESH_FT_SWEEP_STRIDE:-1} offset=${DMESH_FT_SWEEP_OFFSET:-0}
    [ "$stride" -ge 1 ] && [ "$offset" -ge 0 ] && [ "$offset" -lt "$stride" ] ||
        { check_fail "DMESH_FT_SWEEP_STRIDE=$stride, DMESH_FT_SWEEP_OFFSET=$offset: want 0 <= offset < stride"; check_exit; }
    [ "$stride" -eq 1 ] ||
        echo "ft sweep at $np ranks: step 1 and one step in $stride from step $((offset + 2)) of each call$([ "${DMESH_FT_SWEEP_LAST:-0}" != 1 ] || echo ', and its last')"
    for call in $calls; do
        step=1 swept=1 merge_bounded= tenv= what= last=0 back=0 killed=0
        case $call in join*) tenv=DMESH_TIMEOUT=5 what="came back whole" ;; esac
        # NCCL's creation with a dead member waits for it; a non-blocking
        # one (dmesh_timeout) stops once the MPI knows of the failure
        case $call in nccl_*) tenv=DMESH_TIMEOUT=120 ;; esac
        while [ $step -le 200 ]; do
            log="test/ft-np$np.sweep"
            rm -f "$log".outcome.*
            env $tenv DMESH_TEST_OUTCOME=$log.outcome \
                "$MPIRUN" "$np" "$prog" sweep $call $step >"$log" 2>&1
            rc=$?
            runs=$((runs + 1))
            # each survivor's outcome, also in its file (the launcher's output
            # can be cut where a process it started for a respawn died)
            cat "$log".outcome.* >>"$log" 2>/dev/null
            line=$(grep -a "ft-sweep $call np $np step $step:" "$log" | head -n 1)
            ok=$(cat "$log".outcome.* 2>/dev/null | grep -ac 'test_ft rank [0-9]*: 1 run, 0 failed')
            want=$survivors
            case $line in *nokill*) want=$np ;; esac
            # join: rank np - 1 died first, whatever the new process met. Rank
            # 0's outcome speaks for every survivor there (its line compares
            # their classes, its checks sum over the whole mesh): Open MPI
            # 5.0.7's launcher may end a survivor still in its last steps
            # once a process it started for a respawn died (the user guide,
            # "Coming back whole"), before its own outcome is written
            case $call in join*)
                want=$survivors
                if grep -aq 'test_ft rank 0: 1 run, 0 failed' "$log".outcome.0 2>/dev/null &&
                    [ "$ok" -lt "$want" ]; then
                    echo "ft sweep $call at $np ranks: step $step: $ok of $want survivors wrote their outcome (the launcher ended the others)"
                    ok=$want
                fi
                ;;
            esac
            # respawn: rank np - 1 dies first, then rank 1 in the call
            [ $call != respawn ] || want=$((want - 1))
            rm -f "$log".outcome.*
            # join: where the new process died just before or in the merge,
            # Open MPI 5.0.7 never returns from MPI_Intercomm_merge on the
            # parents (test/trixie/merge-dead-peer.c, without dmesh): dmesh
            # bounds it (the call's dmesh_timeout, 5 s here), every survivor
            # then ends with status 1 saying so; reported, not failed
            bounded=$(grep -ac 'MPI_Intercomm_merge with the new processes.*did not return' "$log")
            if [ -z "$line" ] && [ "$bounded" -ge 1 ]; then
                echo "ft sweep $call at $np ranks: step $step: MPI_Intercomm_merge bounded on every survivor (Open MPI's)"
                merge_bounded="$merge_bounded $step"
                last=$step killed=$((killed + 1))
                [ $back -eq 0 ] || break
                step=$(sweep_next $step)
                continue
            fi
            if [ -z "$line" ] || [ "$ok" -ne "$want" ]; then
                check_fail "sweep $call step $step at $np ranks: exit $rc"
                cat "$log"
                swept=0
                break
            fi
            case $line in *nokill*)
                # nobody killed: the call has fewer steps; the steps
                # skipped since the last one that killed are tried
                # backwards, the first to kill is the call's last
                [ "$stride" -eq 1 ] || [ "${DMESH_FT_SWEEP_LAST:-0}" = 1 ] || break
                [ $((step - 1)) -gt $last ] || break
                back=1 step=$((step - 1))
                continue
                ;;
            esac
            last=$step killed=$((killed + 1))
            [ $back -eq 0 ] || break
            step=$(sweep_next $step)
        done
        if [ $swept -eq 1 ] && [ "$stride" -eq 1 ]; then
            echo "ft sweep $call at $np ranks: killed at steps 1 to $last, every survivor returned alike and ${what:-shrank}${merge_bounded:+ (steps$merge_bounded: bounded in the MPI merge)}"
        elif [ $swept -eq 1 ]; then
            echo "ft sweep $call at $np ranks: killed at $killed sampled steps, up to step $last, every survivor returned alike and ${what:-shrank}${merge_bounded:+ (steps$merge_bounded: bounded in the MPI merge)}"
        fi
    done
    echo "ft sweep at $np ranks: $runs runs"
fi
check_exit
