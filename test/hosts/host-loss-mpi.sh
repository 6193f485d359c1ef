#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# host-loss-mpi.sh [-n N]: what Open MPI 5 with fault tolerance does when a host
# dies, without dmesh (test/hosts/host_loss_mpi.c, a plain MPI program), on 3
# hosts of test/hosts/hosts.sh in the Debian 13 chroot (DMESH_CHROOT_ROOT,
# default /var/tmp/dmesh-trixie), 4 ranks on h1 and h2, the spare h3 empty:
#   daemon   kill-host h2: every process of h2, Open MPI's daemon (prted)
#            included, as when the host dies. Measured with Open MPI 5.0.7:
#            the launcher prints "PRTE has lost communication with a remote
#            daemon ... We cannot recover from this failure, and therefore
#            will terminate the job" and ends the job at once (the survivors
#            never get to MPIX_Comm_shrink), with exit status 0.
#   one-slot kill-host -a h2 (h2's ranks only; its daemon lives), spawn of 2
#            processes with info host=h3: refused ("not enough slots": Open
#            MPI reads the key as its launcher's --host, where h3 is 1 slot).
#   counted  the same with host=h3:2: both start on h3 (h1 h1 h3 h3);
#            N times (default 1).
# Each run is bounded at 20 s: after the spawn, Open MPI 5.0.7's
# MPI_Finalize did not return (the user guide's "The end of the job"; rank
# 0 prints "finalize" before it and "done" after it).
# Exit 77 without the chroot or the hosts; else 0 (it reports, it does
# not judge).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)

if [ "${1:-}" = --inside ]; then
    n=$2
    cd "$DMESH_HOSTS_DIR" || exit 1
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_tcp_disable_family=6
    mpicc "$top/test/hosts/host_loss_mpi.c" -o host_loss_mpi || exit 1
    cases="daemon:h3:2: one-slot:h3:-a"
    for ((i = 0; i < n; i++)); do cases="$cases counted:h3:2:-a"; done
    for c in $cases; do
        name=${c%%:*} rest=${c#*:}
        opt=${rest##*:} host=${rest%:*}
        host=${host%:}
        t0=$SECONDS
        # the bound scales with the load (test/load-scale.sh)
        KILL_CMD="$DMESH_HOSTS_DIR/kill-host $opt h2" SPAWN_HOST=$host timeout -k 5 "$(sh "$top/test/load-scale.sh" 20)" \
            mpiexec --with-ft ulfm $DMESH_HOSTS_PRTE -n 4 -x KILL_CMD -x SPAWN_HOST ./host_loss_mpi \
            >"$name.out" 2>&1
        rc=$?
        echo "== $name (kill-host $opt h2, host=$host): launcher exit $rc after $((SECONDS - t0)) s"
        tr -d '\000' <"$name.out" |
            grep -E '^(start|survivors|spawn|merged|finalize|done)|lost communication|terminate the job|not enough slots' |
            sed 's/^/    /'
    done
    exit 0
fi

n=1
if [ "${1:-}" = -n ]; then
    n=$2
    shift 2
fi
root=${DMESH_CHROOT_ROOT:-/var/tmp/dmesh-trixie}
"$top/test/hosts/hosts.sh" --check >/dev/null || { "$top/test/hosts/hosts.sh" --check; exit 77; }
[ -f "$root/.dmesh-trixie-ready" ] || { echo "host-loss-mpi: skipped: no Debian 13 chroot at $root"; exit 77; }
"$top/test/hosts/hosts.sh" -n 3 -s 2 --chroot "$root" "$0" --inside "$n"
