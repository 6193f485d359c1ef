#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Launch a dmesh program with mpirun outside a batch system, on one machine
# or on the hosts of a host file. Not run by make check.
#
#   examples/mpirun.sh                        # 8 ranks of dmesh-info (installed with dmesh)
#   NP=16 HOSTFILE=hosts examples/mpirun.sh ./expert_parallel
#   OVERSUBSCRIBE=1 examples/mpirun.sh ./hello_mesh   # more ranks than cores
#
# Pinning: each rank is bound to a core (Open MPI --map-by core --bind-to
# core, MPICH -bind-to core); dmesh's device binding uses it to choose the
# GPU nearest to each rank. With more ranks than cores (OVERSUBSCRIBE=1, or
# NP above this machine's core count without a host file) ranks are not
# bound: binding two ranks to one core is refused by Open MPI and would only
# slow them down. dmesh then falls back to local rank modulo device count.
set -eu
program=${1:-dmesh-info}
np=${NP:-8}
cores=$(nproc 2>/dev/null || echo 1)
over=${OVERSUBSCRIBE:-}
[ -z "${HOSTFILE:-}" ] && [ "$np" -gt "$cores" ] && over=1

if mpirun --version 2>&1 | grep -q "Open MPI"; then
    # (Open MPI 4 and 5.) Its TCP transport, where it is used, keeps to IPv4:
    # over IPv6 it warns "Unable to find reachable pairing" for every pair of
    # hosts whose IPv6 addresses cannot reach each other.
    OMPI_MCA_btl_tcp_disable_family=${OMPI_MCA_btl_tcp_disable_family:-6}
    export OMPI_MCA_btl_tcp_disable_family
    set -- mpirun -n "$np"
    if [ -n "$over" ]; then
        set -- "$@" --oversubscribe --bind-to none
    else
        set -- "$@" --map-by core --bind-to core
    fi
    [ -n "${HOSTFILE:-}" ] && set -- "$@" --hostfile "$HOSTFILE"
else
    set -- mpiexec -n "$np"
    if [ -n "$over" ]; then
        set -- "$@" -bind-to none
    else
        set -- "$@" -bind-to core
    fi
    [ -n "${HOSTFILE:-}" ] && set -- "$@" -f "$HOSTFILE"
fi
# DMESH_DEBUG=1 prints, on rank 0, every communicator creation and cache hit.
exec "$@" "$program"
