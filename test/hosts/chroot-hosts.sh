# SPDX-License-Identifier: BSD-3-Clause
# Sourced by test/hosts/host-loss.sh, copies-host-loss.sh and
# test/slurm/node-loss.sh (not run by itself): chroot_hosts NAME [-n RUNS] [BUILD] reads their arguments and
# checks what they need, setting runs, build (absolute), root (the Debian
# 13 chroot: DMESH_CHROOT_ROOT, default /var/tmp/dmesh-trixie) and log
# (DMESH_HOSTS_LOG, default _build-hosts, /NAME: emptied of its *.out).
# BUILD defaults to test/trixie/run.sh's _build-debian13-faults, or else
# _build-debian13-openmpi. Exits 77, saying why, without the hosts
# (test/hosts/hosts.sh --check), the chroot or the build; needs top.
chroot_hosts() {
    local name=$1
    shift
    skip() {
        echo "$name: skipped: $*"
        exit 77
    }
    runs=1
    if [ "${1:-}" = -n ]; then
        runs=$2
        shift 2
    fi
    build=${1:-}
    if [ -z "$build" ]; then
        build=$top/_build-debian13-faults
        [ -f "$build/Makefile" ] || build=$top/_build-debian13-openmpi
    fi
    root=${DMESH_CHROOT_ROOT:-/var/tmp/dmesh-trixie}
    log=${DMESH_HOSTS_LOG:-$top/_build-hosts}/$name
    "$top/test/hosts/hosts.sh" --check >/dev/null || skip "$("$top/test/hosts/hosts.sh" --check)"
    [ -f "$root/.dmesh-trixie-ready" ] || skip "no Debian 13 chroot at $root (test/trixie/run.sh setup makes it)"
    [ -f "$build/Makefile" ] || skip "no build configured in the chroot at $build (test/trixie/run.sh openmpi makes one)"
    build=$(cd "$build" && pwd)
    case $build in "$top"/*) ;; *) skip "$build is outside the source tree (the chroot sees that tree only)" ;; esac
    mkdir -p "$log" && rm -f "$log"/*.out || { echo "$name: cannot write in $log"; exit 1; }
    log=$(cd "$log" && pwd)
    case $log in "$top"/*) ;; *) skip "$log is outside the source tree (the chroot sees that tree only)" ;; esac
}

# heat_inside BUILD LOG: on h1 in the chroot, into BUILD with Open MPI's
# consent to root and IPv4 between the hosts, heat_respawn made there
# (make's output in LOG/make.out); exits when that fails.
heat_inside() {
    cd "$1" || exit 1
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_tcp_disable_family=6
    make -j2 examples/heat_respawn >"$2/make.out" 2>&1 || { tail -n 20 "$2/make.out"; exit 1; }
}

# heat_final FILE: heat_respawn's answer in FILE (residual and field),
# wherever its lines start on a line (Open MPI 5's banner under
# --with-ft ulfm can end without a newline)
heat_final() { grep -a -o -E '(iteration [0-9]+: residual|field: FNV-1a ).*$' "$1"; }
