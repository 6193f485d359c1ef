#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# heat-restart.sh NP: examples/heat_respawn at NP ranks with its state on
# disk as well (DMESH_EXAMPLE_CHECKPOINT), run by make check as
# test/heat-restart-npN.mpi: the way back when the copies in memory go with
# the job (a node lost where the launcher ends the job, a launch without
# fault tolerance). Launched plainly (DMESH_TEST_LAUNCH=plain: without
# --with-ft ulfm a process's death ends the job, as a lost node's does):
#   1. a clean run gives the reference (its residual and field, every bit);
#   2. rank 1 dies at step 37: the job ends, not done (no field printed,
#      no done file), with the blocks of steps 20 and 30 on disk; the
#      launcher's status is not 0, or 0 from MPICH 4.2's mpiexec, which
#      exits 0 in some runs in which a process was killed (13 of 20 for a
#      two-process MPI program whose rank 1 raises SIGKILL, without dmesh):
#      reported, not failed; a launcher that did not end (mpirun.sh's 124:
#      it ran past its bound) fails;
#   3. the same command again goes on from step 30 and gives the
#      reference, and writes done;
#   4. one block's newest file removed (a process that died before writing
#      it): the next run goes back to the step before, which every block
#      kept, and gives the reference again.
# Skips (77) when NP is above DMESH_TEST_MAX_NP.
. "$top_srcdir/test/check.sh"
np=$1
max=$("$MPIRUN" --max-np) || exit 1
[ "$np" -le "$max" ] || check_skip "$np ranks > DMESH_TEST_MAX_NP=$max"
DMESH_TEST_LAUNCH=plain
export DMESH_TEST_LAUNCH
prog=./examples/heat_respawn
out=test/heat-restart-np$np.out
dir=test/heat-restart-np$np.dir
args="48 40 60"
final() { grep -a -E '^(iteration [0-9]+: residual|field: )' "$1"; }
# blocks STEP: how many blocks of STEP are on disk
blocks() {
    set -- "$dir"/heat-*-step"$1"-*
    [ -e "$1" ] && echo $# || echo 0
}

rm -rf "$dir"
mkdir -p "$dir" || { check_fail "cannot make $dir"; check_exit; }
"$MPIRUN" "$np" $prog $args >"$out.ref" 2>&1 || { cat "$out.ref"; check_fail "reference run failed"; check_exit; }
final "$out.ref" >"$out.want"
[ -s "$out.want" ] || { cat "$out.ref"; check_fail "the reference run printed no field"; check_exit; }
DMESH_EXAMPLE_CHECKPOINT=$dir
export DMESH_EXAMPLE_CHECKPOINT

# 2. the kill ends the job
DMESH_EXAMPLE_KILLS=1:37 "$MPIRUN" "$np" $prog $args >"$out.run" 2>&1
rc=$?
final "$out.run" >"$out.got"
[ ! -s "$out.got" ] || { cat "$out.run"; check_fail "the killed run printed its field"; }
check_in_bound $rc "the run killed at step 37" || cat "$out.run"
if [ $rc -eq 0 ]; then
    # the launcher's: MPICH 4.2's mpiexec, say (the header)
    "$MPIRUN" --version | grep -q '^HYDRA' ||
        check_fail "a process killed at step 37 without fault tolerance: mpiexec exit 0"
    note=" (MPICH's mpiexec: its own status after a killed process, reported, not failed)"
fi
[ ! -e "$dir/done" ] || check_fail "the killed run wrote done"
for step in 20 30; do
    n=$(blocks $step)
    [ "$n" -eq "$np" ] || check_fail "after the kill: $n blocks of step $step on disk, not $np"
done
[ "$(blocks 40)" -eq 0 ] || check_fail "after the kill at step 37: a block of step 40 on disk"
echo "heat-restart.sh: rank 1 killed at step 37: mpiexec exit $rc${note:-}, the blocks of steps 20 and 30 on disk"

# again RUN STEP: the same command goes on from STEP with the reference
again() {
    rm -f "$dir/done"
    "$MPIRUN" "$np" $prog $args >"$out.run" 2>&1
    rc=$?
    final "$out.run" >"$out.got"
    if [ $rc -eq 0 ] && cmp -s "$out.want" "$out.got" && [ -e "$dir/done" ] &&
        grep -aq "^heat_respawn: restarted from the checkpoint of step $2\$" "$out.run"; then
        echo "heat-restart.sh: $1: went on from step $2, the same residual and field, done written"
    else
        check_fail "$1: mpiexec exit $rc, not the reference from step $2"
        cat "$out.run"
    fi
}
again "the same command again" 30
# 4. the newest step (50) of one block missing: back to 40, which every block has
set -- "$dir"/heat-*-step50-*
[ -e "$1" ] || check_fail "no block of step 50 after the run"
rm -f "$1"
again "one block's newest file gone" 40
rm -rf "$dir" "$out.run" "$out.got" "$out.ref"
check_exit
