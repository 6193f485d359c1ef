#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# make check: a program started as 8 Slurm tasks whose MPI does not speak
# the launcher's process-management interface runs as 8 separate 1-rank
# jobs. examples/hello_mesh, started alone (a singleton) in the environment
# srun gives such a task, must fail with the library's message naming the
# cure; without that environment, or with DMESH_LAUNCH_CHECK=false, it runs.
set -u
prog=examples/hello_mesh
[ -x "$prog" ] || { echo "skipped: $prog not built"; exit 77; }
OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM
out=launch-check.out
fail=0
if env SLURM_PROCID=0 SLURM_STEP_NUM_TASKS=8 timeout -k 10 "$(sh "$top_srcdir/test/load-scale.sh" 120)" "$prog" >"$out" 2>&1; then
    echo "FAIL: a 1-rank world in an 8-task step was accepted"
    fail=1
elif ! grep -q "MPI_COMM_WORLD has 1 rank, but the launcher started 8 processes" "$out" ||
    ! grep -q -- "--mpi=pmi2" "$out"; then
    echo "FAIL: the message does not say what happened and what to do:"
    fail=1
fi
cat "$out"
env SLURM_PROCID=0 SLURM_STEP_NUM_TASKS=8 DMESH_LAUNCH_CHECK=false timeout -k 10 "$(sh "$top_srcdir/test/load-scale.sh" 120)" "$prog" >"$out" 2>&1 ||
    { echo "FAIL: DMESH_LAUNCH_CHECK=false did not turn the check off"; cat "$out"; fail=1; }
timeout -k 10 "$(sh "$top_srcdir/test/load-scale.sh" 120)" "$prog" >"$out" 2>&1 || { echo "FAIL: a plain singleton failed"; cat "$out"; fail=1; }
rm -f "$out"
exit $fail
