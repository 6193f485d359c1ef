#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Build and run the outside CMake project of this directory against an
# installed dmesh: run.sh PREFIX BUILD_DIR [MPIEXEC...]. Used by .ci/run.
set -eu
prefix=$1
build=$2
shift 2
[ $# -gt 0 ] || set -- mpiexec
here=$(cd "$(dirname "$0")" && pwd)
rm -rf "$build"
cmake -S "$here" -B "$build" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release
cmake --build "$build"
# The Fortran-only project (no C language enabled), in its own build tree.
cmake -S "$here/fortran-only" -B "$build/fortran-only" -DCMAKE_PREFIX_PATH="$prefix" \
    -DCMAKE_BUILD_TYPE=Release
cmake --build "$build/fortran-only"
OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM
for np in 1 2; do
    "$@" -n "$np" "$build/consumer_c"
    "$@" -n "$np" "$build/consumer_f08"
    "$@" -n "$np" "$build/fortran-only/consumer_mpi"
    "$@" -n "$np" "$build/fortran-only/consumer_f08_only"
done
echo "cmake-consumer: C, Fortran and Fortran-only programs built with find_package(dmesh) ran"
