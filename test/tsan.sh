#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# tsan.sh SRCDIR BUILDDIR: dmesh's threads tests under ThreadSanitizer.
# Configures SRCDIR in BUILDDIR (emptied first) with Open MPI's mpicc
# driving clang (OMPI_CC=clang) and -fsanitize=thread, without CUDA, NCCL
# and Fortran, builds the library and the two threads tests only, and runs
#   test_handle_threads at 1 rank: mesh handles made, read and freed at
#     once by 8 threads (the handle table, the universe's reference count);
#   test_copies_threads at 2 and 4 ranks, twice each: 3 threads open,
#     store, restore and free copies on meshes of their own while the main
#     thread queries their handles (the copies' process-wide lists, the
#     large buffers, the identities drawn); the MPI's own locks order the
#     threads' accesses differently from run to run, so that a race shows
#     in some runs only (one in four, for one that CI met);
# each under mpiexec with TSAN_OPTIONS log_path (one log per process) and
# exitcode=0. Each run must pass as it does without the sanitizer; then
# test/tsan-reports.py sorts the reports: Open MPI is not built with
# ThreadSanitizer, and its own locks and reused memory give reports that
# are not dmesh's (counted, printed as a number); any report whose stacks
# are all in code built with the sanitizer (the library, the tests) fails.
# Open MPI only (the host's mpiexec); needs clang and python3. Skips (77)
# without them or with an MPI other than Open MPI.
set -u
src=${1:?usage: tsan.sh SRCDIR BUILDDIR}
dir=${2:?usage: tsan.sh SRCDIR BUILDDIR}
src=$(cd "$src" && pwd) || exit 1
command -v clang >/dev/null 2>&1 || { echo "tsan: skipped: no clang"; exit 77; }
command -v python3 >/dev/null 2>&1 || { echo "tsan: skipped: no python3"; exit 77; }
mpiexec --version 2>/dev/null | grep -q -E 'Open MPI|OpenRTE' || { echo "tsan: skipped: mpiexec is not Open MPI's"; exit 77; }
rm -rf "$dir" && mkdir -p "$dir/logs" && cd "$dir" || exit 1
export OMPI_CC=clang OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
flags="-g -O1 -fsanitize=thread"
if ! "$src/configure" CC=mpicc CFLAGS="$flags" LDFLAGS="-fsanitize=thread" --without-cuda --without-nccl \
    --disable-fortran >configure.out 2>&1; then
    tail -n 30 configure.out
    exit 1
fi
jobs=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 2)
if ! make -j"$jobs" lib/libdmesh.la test/test_handle_threads test/test_copies_threads >make.out 2>&1; then
    tail -n 30 make.out
    exit 1
fi
rc=0
# run PROGRAM NP PASSED [ROUND]: the program at NP ranks; NP lines must
# match PASSED
run() {
    bound=$(sh "$src/test/load-scale.sh" 600)
    out=logs/$1-np$2${4:+-$4}.out
    TSAN_OPTIONS="log_path=$dir/logs/$1-np$2${4:+-$4} exitcode=0" timeout -k 10 "$bound" \
        mpiexec --oversubscribe -n "$2" -x TSAN_OPTIONS "./test/$1" >"$out" 2>&1
    status=$?
    n=$(grep -c "$3" "$out")
    if [ $status -ne 0 ] || [ "$n" -ne "$2" ]; then
        echo "tsan: $1 at $2 ranks FAILED: exit $status, $n of $2 processes passed"
        tail -n 20 "$out"
        rc=1
    else
        echo "tsan: $1 at $2 ranks${4:+ (run $4)}: $n of $2 processes passed"
    fi
}
run test_handle_threads 1 ' 0 failed checks$'
for round in 1 2; do
    run test_copies_threads 2 ': passed$' $round
    run test_copies_threads 4 ': passed$' $round
done
# the logs of the processes that reported (none: no file)
set -- logs/test_*-np*.[0-9]*
if [ -e "$1" ]; then
    python3 "$src/test/tsan-reports.py" libdmesh "$@" || rc=1
else
    echo "tsan: 0 reports"
fi
exit $rc
