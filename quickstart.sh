#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# dmesh quick start for a fresh Debian machine.
#   ./quickstart.sh         install what is missing, build, run the 8-rank demo
#   ./quickstart.sh check   install what is missing, build, run make check
#   ./quickstart.sh smpi    the same with SimGrid's SMPI (libsimgrid-dev) in
#                           _build-smpi (configure --with-smpi), make check-smpi
# Environment: BUILD_DIR (default _build), CONFIGURE_FLAGS, MAKEFLAGS.
set -eu

top=$(cd "$(dirname "$0")" && pwd)
build=${BUILD_DIR:-$top/_build}
what=${1:-demo}

packages="build-essential autoconf automake libtool pkg-config openmpi-bin libopenmpi-dev
mpich libmpich-dev libhwloc-dev hwloc check gfortran valgrind"
if [ "$what" = smpi ]; then
    packages="build-essential autoconf automake libtool pkg-config check libsimgrid-dev"
    build=${BUILD_DIR:-$top/_build-smpi}
    CONFIGURE_FLAGS="--with-smpi --without-cuda --without-nccl --without-hwloc ${CONFIGURE_FLAGS:-}"
fi

install_packages() {
    command -v dpkg-query >/dev/null 2>&1 || return 0
    missing=
    for p in $packages; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
    done
    [ -n "$missing" ] || return 0
    if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
        echo "quickstart: please install:$missing" >&2
        exit 1
    fi
    echo "quickstart: installing$missing"
    apt-get update -qq
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null
}

build() {
    cd "$top"
    [ -x configure ] && [ configure -nt configure.ac ] || autoreconf -fi
    mkdir -p "$build"
    cd "$build"
    [ -f Makefile ] || "$top/configure" ${CONFIGURE_FLAGS:-}
    make -j"$(nproc 2>/dev/null || echo 2)"
}

install_packages
build
case "$what" in
demo)
    echo "quickstart: mpiexec -n 8 tools/dmesh-info"
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
        "$build/test/mpirun.sh" 8 "$build/tools/dmesh-info"
    ;;
check)
    make -j"$(nproc 2>/dev/null || echo 2)" check
    ;;
smpi)
    make check-smpi
    ;;
*)
    echo "usage: $0 [check|smpi]" >&2
    exit 2
    ;;
esac
