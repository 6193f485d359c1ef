#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# CI: dmesh under a real one-node Slurm (test/slurm/one-node.sh), with the
# builds of both MPIs:
#   MPICH    srun --mpi=pmi2   runs hello_mesh at 4 ranks
#   Open MPI srun --mpi=pmix   runs hello_mesh at 4 ranks
#   MPICH    srun --mpi=pmix   Debian's MPICH has no PMIx: 4 singletons, which
#                              the library's launch check must stop, on every
#                              task, with its message
#   run.sh OPENMPI_BUILD_DIR MPICH_BUILD_DIR
# Installs slurm-wlm and munge when missing (root, apt).
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
ompi=$(cd "$1" && pwd)
mpich=$(cd "$2" && pwd)
. "$top/test/slurm/lib.sh"
slurm_install || exit 1
dir=$(mktemp -d /tmp/dmesh-slurm.XXXXXX)
eval "$("$top/test/slurm/one-node.sh" start "$dir")" || exit 1
trap '"$top/test/slurm/one-node.sh" stop "$dir"' EXIT
fail=0
for b in "$ompi" "$mpich"; do
    make -C "$b" examples/hello_mesh >/dev/null || { echo "FAIL: cannot build hello_mesh in $b"; exit 1; }
done

ran() { # NAME BUILD PMI: 4 ranks, each prints its coordinate
    local out
    out=$(cd "$2" && timeout -k 10 120 srun -n 4 --mpi="$3" examples/hello_mesh 2>&1)
    if [ $? -ne 0 ] || [ "$(grep -c '^rank [0-3]: (dp, pp, tp)' <<<"$out")" -ne 4 ]; then
        echo "FAIL: $1: srun --mpi=$3"
        echo "$out"
        fail=1
    else
        echo "ok: $1: srun -n 4 --mpi=$3 ran 4 ranks"
    fi
}
ran "Open MPI" "$ompi" pmix
ran MPICH "$mpich" pmi2

out=$(cd "$mpich" && timeout -k 10 120 srun -n 4 --mpi=pmix examples/hello_mesh 2>&1)
if [ $? -eq 0 ]; then
    echo "FAIL: MPICH under srun --mpi=pmix ran as singletons and succeeded"
    fail=1
elif [ "$(grep -c 'MPI_COMM_WORLD has 1 rank, but the launcher started 4 processes' <<<"$out")" -ne 4 ]; then
    echo "FAIL: MPICH under srun --mpi=pmix: not every task gave the launch message"
    echo "$out"
    fail=1
else
    echo "ok: MPICH under srun --mpi=pmix: every task stopped with the launch message"
fi
exit $fail
