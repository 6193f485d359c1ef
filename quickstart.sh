#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# dmesh quick start for a fresh Debian machine.
#   ./quickstart.sh         install what is missing, build, run the 8-rank demo
#   ./quickstart.sh check   install what is missing, build, run make check
#   ./quickstart.sh install [PREFIX]
#                           install what is missing, build, make install into
#                           PREFIX (default: configure's, /usr/local)
#   ./quickstart.sh smpi    the same with SimGrid's SMPI (libsimgrid-dev) in
#                           _build-smpi (configure --with-smpi), make check-smpi
# Environment: BUILD_DIR (default _build), CONFIGURE_FLAGS (passed to
# configure), MAKEFLAGS. A build directory configured by this script with
# other flags is configured again; one configured by hand is kept as it is
# (the script says so) unless CONFIGURE_FLAGS is set.
set -eu

top=$(cd "$(dirname "$0")" && pwd)
build=${BUILD_DIR:-$top/_build}
what=${1:-demo}
if [ "$what" = install ] && [ -n "${2:-}" ]; then
    CONFIGURE_FLAGS="${CONFIGURE_FLAGS:-} --prefix=$2"
fi

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

# Configure unless the build directory has a configuration made with the
# same flags; the flags of the last configuration are in quickstart-flags.
configure_build() {
    flags=${CONFIGURE_FLAGS:-}
    if [ -f Makefile ] && [ -f quickstart-flags ]; then
        old=$(cat quickstart-flags)
        [ "$old" != "$flags" ] || return 0
        echo "quickstart: CONFIGURE_FLAGS changed (\"$old\" -> \"$flags\"): configuring $build again"
    elif [ -f Makefile ] && [ -z "$flags" ]; then
        echo "quickstart: keeping the configuration of $build (made by hand; ./config.status --config" \
            "shows its flags): set CONFIGURE_FLAGS, or remove $build, to configure again"
        return 0
    fi
    "$top/configure" $flags
    printf '%s\n' "$flags" >quickstart-flags
}

build() {
    cd "$top"
    [ -x configure ] && [ configure -nt configure.ac ] || autoreconf -fi
    mkdir -p "$build"
    cd "$build"
    configure_build
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
install)
    make install
    [ "$(id -u)" -ne 0 ] || ! command -v ldconfig >/dev/null 2>&1 || ldconfig
    pcdir=$(printf 'p:\n\t@echo $(pkgconfigdir)\n' | make -s -f Makefile -f - p)
    echo "quickstart: installed; build against it with"
    echo "  PKG_CONFIG_PATH=$pcdir pkg-config --cflags --libs dmesh"
    ;;
smpi)
    make check-smpi
    ;;
*)
    echo "usage: $0 [check|install [PREFIX]|smpi]" >&2
    exit 2
    ;;
esac
