#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# One build and make check in the Debian 13 chroot (test/trixie/run.sh runs it
# there, in a clean environment):
#   inside.sh TOP STEP TESTS JOBS MAX_NP
# STEP quickstart: ./quickstart.sh check with Open MPI (BUILD_DIR
# _build-debian13-openmpi), then ./quickstart.sh's demo there; openmpi: the same build by hand (TESTS, when not
# empty, is make check's subset); mpich: MPICH's wrappers and mpiexec.mpich
# (_build-debian13-mpich); faults: Open MPI configured --enable-fault-injection
# (_build-debian13-faults), the fault-tolerance tests only, whose kill sweep
# needs that build. MAX_NP, when not empty, replaces the rank limit.
# Prints the pass/fail/skip counts and the logs of failing tests.
set -uo pipefail
top=$1 step=$2 tests=$3 jobs=$4 max_np=$5
cd "$top" || exit 1
case $step in
quickstart | openmpi)
    dir=$top/_build-debian13-openmpi mpi="Open MPI $(mpiexec --version | sed -n 's/.*(Open MPI) //p')"
    set -- DMESH_TEST_MAX_NP="${max_np:-8}"
    ;;
faults)
    dir=$top/_build-debian13-faults mpi="Open MPI $(mpiexec --version | sed -n 's/.*(Open MPI) //p')"
    # CUDA and NCCL probed (the host's, mounted read-only by run.sh): with
    # NCCL the kill sweep covers the creation of NCCL communicators too,
    # against the test doubles (no GPU)
    set -- --enable-fault-injection DMESH_TEST_MAX_NP="${max_np:-8}"
    tests=${tests:-test/test_ft_plan test/ft-np4.mpi test/ft-np8.mpi}
    ;;
mpich)
    dir=$top/_build-debian13-mpich mpi="MPICH $(mpichversion | sed -n 's/^MPICH Version: *//p')"
    set -- MPICC=mpicc.mpich MPIEXEC=mpiexec.mpich MPIFC=mpifort.mpich DMESH_TEST_MAX_NP="${max_np:-4}"
    ;;
*) exit 2 ;;
esac
start=$SECONDS
echo "debian13: $step: $mpi in ${dir#"$top"/}${tests:+ (TESTS=$tests)}"
rm -rf "$dir" && mkdir -p "$dir" || exit 1
out=$dir/$step.out
if [ "$step" = quickstart ]; then
    # quickstart.sh finds every package installed (run.sh installs its list)
    # and configures, builds and runs make check; then its demo in the same
    # build (dmesh-info at 8 ranks)
    BUILD_DIR=$dir CONFIGURE_FLAGS="$*" ./quickstart.sh check >"$out" 2>&1
    rc=$?
    if [ $rc -eq 0 ]; then
        if BUILD_DIR=$dir ./quickstart.sh >"$dir/demo.out" 2>&1 &&
            grep -q '^mesh: DeviceMesh(cpu, (dp=2, cp=2, tp=2)' "$dir/demo.out"; then
            echo "debian13: quickstart: its demo ran (dmesh-info at 8 ranks)"
        else
            echo "debian13: quickstart: its demo FAILED:"
            tail -n 40 "$dir/demo.out"
            rc=1
        fi
    fi
else
    [ -x configure ] && [ configure -nt configure.ac ] || autoreconf -fi >"$out" 2>&1
    (cd "$dir" && "$top/configure" "$@" >>"$out" 2>&1 && make -j"$jobs" >>"$out" 2>&1 &&
        if [ -n "$tests" ]; then
            make -j"$jobs" check TESTS="$tests" >>"$out" 2>&1
        else
            make -j"$jobs" check >>"$out" 2>&1
        fi)
    rc=$?
fi

count() { sed -n "s/^# $1: *//p" "$dir/test-suite.log" 2>/dev/null | head -n 1; }
if [ -f "$dir/test-suite.log" ]; then
    pass=$(count PASS) skip=$(count SKIP)
    fail=$(($(count FAIL) + $(count ERROR) + $(count XPASS)))
    echo "debian13: $step: $mpi: ${pass:-0} passed, $fail failed, ${skip:-0} skipped ($((SECONDS - start)) s)"
    skipped=$(cd "$dir" && grep -l -r --include='*.trs' '^:test-result: SKIP' . | sed 's|^\./||; s|\.trs$||' |
        sort | tr '\n' ' ')
    [ -z "$skipped" ] || echo "debian13: $step: skipped: $skipped"
    (cd "$dir" && grep -l -r --include='*.trs' -E '^:test-result: (FAIL|ERROR|XPASS)' . | sed 's|^\./||' |
        sort) | while read -r trs; do
        echo "--- $step: ${trs%.trs}.log"
        tail -n 60 "$dir/${trs%.trs}.log"
    done
else
    fail=0
    echo "debian13: $step: $mpi: no test-suite.log ($((SECONDS - start)) s)"
fi
# a failure outside the tests (configure, build): the end of its output
if [ $rc -ne 0 ] && [ "$fail" -eq 0 ]; then
    echo "debian13: $step FAILED (exit $rc); the end of ${out#"$top"/}:"
    tail -n 40 "$out"
fi
exit $rc
