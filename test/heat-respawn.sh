#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# heat-respawn.sh NP: examples/heat_respawn at NP ranks, run by make check
# as test/heat-respawn-npN.mpi. A run without a failure gives the reference
# (its final residual and field hash, every bit); with ULFM in the build,
# under mpiexec --with-ft ulfm, the first rank, a middle one and the last
# die at step 37 (after the copy of step 30), and then a spare (a process
# outside the mesh, SPARES=1) at step 12: each run must recover once, print
# the reference's lines and end with mpiexec's exit 0. Without ULFM only
# the reference runs. Skips (77) when NP is above DMESH_TEST_MAX_NP.
. "$top_srcdir/test/check.sh"
np=$1
max=$("$MPIRUN" --max-np) || exit 1
[ "$np" -le "$max" ] || check_skip "$np ranks > DMESH_TEST_MAX_NP=$max"
prog=./examples/heat_respawn
out=test/heat-respawn-np$np.out
args="48 40 60"

# final LOG: the lines that must not change (the residual and the field)
final() { grep -a -E '^(iteration [0-9]+: residual|field: )' "$1"; }

"$MPIRUN" "$np" $prog $args >"$out.ref" 2>&1 || { cat "$out.ref"; check_fail "reference run failed"; check_exit; }
final "$out.ref" >"$out.want"
[ -s "$out.want" ] || { cat "$out.ref"; check_fail "the reference run printed no field"; check_exit; }
echo "heat-respawn.sh: reference at $np ranks: $(tr '\n' ' ' <"$out.want")"
check_respawn_mpi heat-respawn.sh
# Open MPI 5.0.7's MPI_Finalize may not return after a failure: the example
# bounds it (5 s) and says so; the count is reported below
DMESH_EXAMPLE_FINALIZE_BOUND=5
export DMESH_EXAMPLE_FINALIZE_BOUND
bounded=0

for k in "0 37 0" "$((np / 2)) 37 0" "$((np - 1)) 37 0" "$((np - 1)) 12 1"; do
    set -- $k
    if [ "$3" -eq 0 ]; then want=$out.want; else
        "$MPIRUN" "$np" $prog $args "$3" >"$out.ref1" 2>&1
        final "$out.ref1" >"$out.want1"
        want=$out.want1
    fi
    DMESH_EXAMPLE_KILL_RANK=$1 DMESH_EXAMPLE_KILL_STEP=$2 "$MPIRUN" "$np" $prog $args "$3" >"$out.run" 2>&1
    rc=$?
    final "$out.run" >"$out.got"
    if [ $rc -eq 0 ] && cmp -s "$want" "$out.got" && [ -s "$want" ] &&
        grep -aq '^heat_respawn: 1 recoveries' "$out.run"; then
        echo "heat-respawn.sh: rank $1 killed at step $2 (spares $3), $np ranks: recovered once, the same residual and field, mpiexec exit 0"
        ! grep -aq 'MPI_Finalize did not return' "$out.run" || bounded=$((bounded + 1))
    else
        check_fail "rank $1 killed at step $2 (spares $3), $np ranks: mpiexec exit $rc"
        cat "$out.run"
    fi
done
echo "heat-respawn.sh: runs at $np ranks whose MPI_Finalize was bounded: $bounded of 4"
rm -f "$out.run" "$out.got" "$out.ref1" "$out.want1"
check_exit
