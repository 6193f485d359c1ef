#!/bin/sh
# Launch a dmesh program with mpirun outside a batch system, on one machine
# or on the hosts of a host file. Not run by make check.
#
#   examples/mpirun.sh                        # 8 ranks of ./hello_mesh here
#   NP=16 HOSTFILE=hosts examples/mpirun.sh ./expert_parallel
#
# Open MPI: --map-by and --bind-to pin ranks to cores (dmesh's device binding
# uses the pinning to choose the GPU nearest to each rank); MPICH's mpiexec
# (Hydra) spells it -bind-to core. --oversubscribe allows more ranks than
# cores, for a laptop try-out.
set -eu
program=${1:-./hello_mesh}
np=${NP:-8}

if mpirun --version 2>&1 | grep -q "Open MPI"; then
    set -- mpirun -n "$np" --map-by core --bind-to core
    [ -n "${HOSTFILE:-}" ] && set -- "$@" --hostfile "$HOSTFILE"
    [ -n "${OVERSUBSCRIBE:-}" ] && set -- "$@" --oversubscribe
else
    set -- mpiexec -n "$np" -bind-to core
    [ -n "${HOSTFILE:-}" ] && set -- "$@" -f "$HOSTFILE"
fi
# DMESH_DEBUG=1 prints, on rank 0, every communicator creation and cache hit.
exec "$@" "$program"
