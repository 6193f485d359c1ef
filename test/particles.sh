#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# particles.sh NP: examples/particles at NP ranks, run by make check as
# test/particles-npN.mpi. The particles migrate between the cells of the
# mesh, so each process's count changes every step; the copies keep them
# with dmesh_copies_add_sized. The answer (the step, the number of
# particles and an order-free checksum) does not depend on the number of
# processes: one process gives the reference, NP must print the same line.
# With ULFM in the build, under mpiexec --with-ft ulfm: a process killed
# (one recovery); two processes one after the other; a process killed and
# then the process that replaced it, right before a store (it restores a
# count it never stored itself). Each run must recover as often as
# processes died, print the reference's line and end with mpiexec's exit 0.
# Skips (77) when NP is above DMESH_TEST_MAX_NP.
. "$top_srcdir/test/check.sh"
np=$1
max=$("$MPIRUN" --max-np) || exit 1
[ "$np" -le "$max" ] || check_skip "$np ranks > DMESH_TEST_MAX_NP=$max"
prog=./examples/particles
out=test/particles-np$np.out

answer() { grep -a '^particles: step ' "$1"; }

"$MPIRUN" 1 $prog >"$out.ref" 2>&1 || { cat "$out.ref"; check_fail "the run of one process failed"; check_exit; }
answer "$out.ref" >"$out.want"
[ -s "$out.want" ] || { cat "$out.ref"; check_fail "one process printed no answer"; check_exit; }
"$MPIRUN" "$np" $prog >"$out.run" 2>&1
answer "$out.run" >"$out.got"
if [ -s "$out.got" ] && cmp -s "$out.want" "$out.got"; then
    echo "particles.sh: $np ranks: $(cat "$out.got"), as one process"
else
    cat "$out.run"
    check_fail "$np ranks: \"$(cat "$out.got")\", one process: \"$(cat "$out.want")\""
fi
check_respawn_mpi particles.sh
DMESH_FINALIZE_BOUND=5
export DMESH_FINALIZE_BOUND

# run KILLS RECOVERIES [started]: DMESH_EXAMPLE_KILLS=KILLS (in mpiexec's
# own environment: Open MPI passes it to the processes a spawn starts);
# "started": a process that a respawn started is killed, after which Open
# MPI 5.0.7's launcher may end with status 137 once the job is done (see
# test/heat-respawn.sh): the answer must be right, the status is reported
run() {
    bound=${DMESH_TEST_TIMEOUT:-300}
    [ "${3:-}" != started ] || bound=120
    DMESH_TEST_TIMEOUT=$bound DMESH_EXAMPLE_KILLS=$1 "$MPIRUN" "$np" $prog >"$out.run" 2>&1
    rc=$?
    answer "$out.run" >"$out.got"
    right=no
    cmp -s "$out.want" "$out.got" && grep -aq "^particles: $2 recoveries" "$out.run" && right=yes
    if [ $rc -eq 0 ] && [ $right = yes ]; then
        echo "particles.sh: kills $1, $np ranks: recovered $2 times, the same answer, mpiexec exit 0"
    elif [ "${3:-}" = started ] && [ $right = yes ]; then
        echo "particles.sh: kills $1, $np ranks: recovered $2 times, the same answer; mpiexec exit $rc (Open MPI 5.0.7's launcher after a started process died: reported, not failed)"
    else
        check_fail "kills $1, $np ranks: mpiexec exit $rc"
        cat "$out.run"
    fi
}

run "1:17" 1
run "0:23,$((np - 1)):52" 2
# the replacement of rank NP/2 dies right before the store of step 40 (the
# program agrees each step's outcome: without it, the survivors whose step
# succeeded waited in the store for those that went to repair, 1 run in 3)
run "$((np / 2)):37,$((np / 2)):41" 2 started
rm -f "$out.run" "$out.got"
check_exit
