#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# One build and make check in the Debian chroot (test/trixie/run.sh runs it
# there, in a clean environment):
#   inside.sh TOP STEP TESTS JOBS MAX_NP [LABEL]
# LABEL (default debian13) names the build directories _build-LABEL-STEP.
# STEP ulfm: ./quickstart.sh check configured --enable-fault-injection,
# every test under mpiexec --with-ft ulfm, up to 4 ranks (BUILD_DIR
# _build-LABEL-faults; the kill sweeps at every step of every call among
# them, at 4), then every test of more than 4 ranks there at 8
# (test-suite-faults8.log): the fault-tolerance tests (ft, the respawns,
# heat_respawn, particles, copies) and the rest of the suite; then those
# fault-tolerance tests at 4 and 8 beside one CPU hog per core
# (test-suite-load.log).
# STEP quickstart: ./quickstart.sh check with Open MPI (BUILD_DIR
# _build-LABEL-openmpi), then ./quickstart.sh's demo there; openmpi: the same build by hand (TESTS, when not
# empty, is make check's subset); mpich: MPICH's wrappers and mpiexec.mpich
# (_build-LABEL-mpich); faults: Open MPI configured --enable-fault-injection
# (_build-LABEL-faults), the fault-tolerance tests only, whose kill sweep
# needs that build; abi: one build against the MPI-5 standard ABI
# (_build-LABEL-abi, --with-mpi-abi, plain gcc), whose tests run under Open
# MPI's libmpi_abi.so.1 (the one ldconfig chose) and then under MPICH's
# (LD_LIBRARY_PATH to a directory holding a libmpi_abi.so.1 link to
# libmpi_abi_mpich.so.1, and mpiexec.mpich; its test-suite-mpich.log), then
# installed, and examples/hello_mesh.c built once with gcc and pkg-config's
# flags for the installed dmesh.pc runs under both. MAX_NP, when not empty,
# replaces the rank limit.
# Prints the pass/fail/skip counts and the logs of failing tests.
set -uo pipefail
top=$1 step=$2 tests=$3 jobs=$4 max_np=$5 label=${6:-debian13}
cd "$top" || exit 1
ompi_version() { mpiexec --version | sed -n 's/.*(Open MPI) //p'; }
case $step in
quickstart | openmpi)
    dir=$top/_build-$label-openmpi mpi="Open MPI $(ompi_version)"
    set -- DMESH_TEST_MAX_NP="${max_np:-8}"
    ;;
ulfm)
    # the whole suite under mpiexec --with-ft ulfm, as a fault-tolerant
    # program is launched (the tests that need a plain launch ask for it:
    # DMESH_TEST_LAUNCH=plain in their scripts), in a build configured
    # --enable-fault-injection (quickstart.sh's CONFIGURE_FLAGS), up to 4
    # ranks: the fault-tolerance tests at 4 among them, with the kill sweeps
    # at every step of every call (the store's and the restore's too); then
    # every test of more than 4 ranks in the same build at 8: ft, the
    # respawns, heat_respawn, particles, copies and the rest of the suite
    dir=$top/_build-$label-faults mpi="Open MPI $(ompi_version), mpiexec --with-ft ulfm"
    set -- --enable-fault-injection DMESH_TEST_MAX_NP="${max_np:-4}"
    export DMESH_TEST_MPIEXEC_FLAGS="--with-ft ulfm"
    # heat_respawn's kill of a middle and of the last rank too (DMESH_TEST_*:
    # the library's strict check of the environment lets such names pass)
    export DMESH_TEST_HEAT_RESPAWN_ALL=1
    ;;
faults)
    dir=$top/_build-$label-faults mpi="Open MPI $(ompi_version)"
    # CUDA and NCCL probed (the host's, mounted read-only by run.sh): with
    # NCCL the kill sweep covers the creation of NCCL communicators too,
    # against the test doubles (no GPU)
    set -- --enable-fault-injection DMESH_TEST_MAX_NP="${max_np:-8}"
    tests=${tests:-test/test_ft_plan test/ft-np4.mpi test/ft-np8.mpi test/respawn-np8.mpi test/heat-respawn-np8.mpi test/test_copies_plan test/copies-np4.mpi test/copies-np8.mpi test/particles-np8.mpi}
    ;;
mpich)
    dir=$top/_build-$label-mpich mpi="MPICH $(mpichversion | sed -n 's/^MPICH Version: *//p')"
    set -- MPICC=mpicc.mpich MPIEXEC=mpiexec.mpich MPIFC=mpifort.mpich DMESH_TEST_MAX_NP="${max_np:-4}"
    ;;
abi)
    dir=$top/_build-$label-abi mpi="standard ABI, Open MPI $(ompi_version)'s libmpi_abi.so.1"
    # MPICH's libmpi_abi.so.1: its library, whatever ldconfig chose
    mpich_abi=$(ls /usr/lib/*/libmpi_abi_mpich.so.1* 2>/dev/null | head -n 1)
    [ -n "$mpich_abi" ] || { echo "$label: abi: MPICH's libmpi_abi_mpich.so.1 is missing"; exit 1; }
    # up to 2 ranks; without TESTS a subset (it runs twice, under each
    # MPI): meshes, errors through the handlers, communicators, saving,
    # copies, respawn's plain cases, the examples, the tools; TESTS=all:
    # the whole suite under each
    set -- --with-mpi-abi --prefix="$dir/prefix" DMESH_TEST_MAX_NP="${max_np:-2}"
    tests=${tests:-test/test_layout test/test_mesh-np2.mpi test/test_mesh_errors-np2.mpi test/test_errors-np2.mpi test/errors-fatal-np2.mpi test/test_comm_mpi-np2.mpi test/test_sub_comm-np2.mpi test/test_serialize-np2.mpi test/test_mesh_sim-np2.mpi test/test_handout-np2.mpi test/sessions-np2.mpi test/copies-np2.mpi test/respawn-np2.mpi examples/hello_mesh-np2.mpi examples/flatten-np2.mpi test/info-ranks-np2.mpi test/test_version}
    [ "$tests" != all ] || tests=
    ;;
*) exit 2 ;;
esac
start=$SECONDS
echo "$label: $step: $mpi in ${dir#"$top"/}${tests:+ (TESTS=$tests)}"
rm -rf "$dir" && mkdir -p "$dir" || exit 1
out=$dir/$step.out

# report LOG WHAT: the counts of a make check (its test-suite log), the
# skipped tests and the logs of the failing ones; sets fail.
report() {
    local log=$dir/$1 what=$2 pass skip skipped
    count() { sed -n "s/^# $1: *//p" "$log" 2>/dev/null | head -n 1; }
    if [ ! -f "$log" ]; then
        fail=0
        echo "$label: $step: $what: no ${log##*/} ($((SECONDS - start)) s)"
        return
    fi
    pass=$(count PASS) skip=$(count SKIP)
    fail=$(($(count FAIL) + $(count ERROR) + $(count XPASS)))
    echo "$label: $step: $what: ${pass:-0} passed, $fail failed, ${skip:-0} skipped ($((SECONDS - start)) s)"
    skipped=$(cd "$dir" && grep -l -r --include='*.trs' '^:test-result: SKIP' . | sed 's|^\./||; s|\.trs$||' |
        sort | tr '\n' ' ')
    [ -z "$skipped" ] || echo "$label: $step: skipped: $skipped"
    # cases a test left out, with their reason (mt_one_node: "skipped: NAME: ...")
    skipped=$(cd "$dir" && cat test/*.log examples/*.log 2>/dev/null |
        sed -n 's/^skipped: \([a-z_0-9]*\): .*/\1/p' | sort -u | tr '\n' ' ')
    [ -z "$skipped" ] || echo "$label: $step: cases skipped (see their logs): $skipped"
    (cd "$dir" && grep -l -r --include='*.trs' -E '^:test-result: (FAIL|ERROR|XPASS)' . | sed 's|^\./||' |
        sort) | while read -r trs; do
        echo "--- $step: ${trs%.trs}.log"
        tail -n 60 "$dir/${trs%.trs}.log"
    done
}

# installed_hello: the installed dmesh (make install of the ABI build),
# examples/hello_mesh.c built once by gcc with nothing but pkg-config's flags
# for the installed dmesh.pc, then run at 4 ranks under Open MPI's launcher
# and library and under MPICH's: each run must print the 4 ranks'
# coordinates; with the wrong library under a launcher (Open MPI's under
# mpiexec.mpich) every process is a singleton, which dmesh's launch check
# must refuse.
installed_hello() {
    local prefix=$dir/prefix pc hello=$dir/hello_mesh-installed want got rc=0
    pc="env PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config"
    (cd "$dir" && make install >>"$out" 2>&1) || { echo "$label: abi: make install FAILED"; return 1; }
    # shellcheck disable=SC2046 # pkg-config's flags are word lists
    gcc "$top/examples/hello_mesh.c" -o "$hello" $($pc --cflags --libs dmesh) \
        -Wl,-rpath,"$($pc --variable=libdir dmesh)" >>"$out" 2>&1 ||
        { echo "$label: abi: gcc \$(pkg-config --cflags --libs dmesh) hello_mesh.c FAILED"; return 1; }
    want=$(printf 'rank %d:\n' 0 1 2 3)
    got=$(OMPI_MCA_btl_tcp_disable_family=6 PRTE_MCA_mapby=:oversubscribe \
        timeout -k 10 120 mpiexec --oversubscribe -n 4 "$hello" 2>&1)
    if [ "$(printf '%s\n' "$got" | grep -o '^rank [0-9]*:' | sort)" = "$want" ]; then
        echo "$label: abi: the installed hello_mesh ran at 4 ranks under Open MPI $(ompi_version)" \
            "($(ldd "$hello" | sed -n 's/^[[:space:]]*\(libmpi_abi[^ ]*\) => \([^ ]*\).*/\1 => \2/p'))"
    else
        echo "$label: abi: the installed hello_mesh FAILED under Open MPI:"
        printf '%s\n' "$got" | tail -n 20
        rc=1
    fi
    got=$(LD_LIBRARY_PATH=$dir/mpich-abi timeout -k 10 120 mpiexec.mpich -n 4 "$hello" 2>&1)
    if [ "$(printf '%s\n' "$got" | grep -o '^rank [0-9]*:' | sort)" = "$want" ]; then
        echo "$label: abi: the same binary ran at 4 ranks under MPICH $(mpichversion |
            sed -n 's/^MPICH Version: *//p') ($(LD_LIBRARY_PATH=$dir/mpich-abi ldd "$hello" |
            sed -n 's/^[[:space:]]*\(libmpi_abi[^ ]*\) => \([^ ]*\).*/\1 => \2/p'))"
    else
        echo "$label: abi: the installed hello_mesh FAILED under MPICH:"
        printf '%s\n' "$got" | tail -n 20
        rc=1
    fi
    # the wrong library under a launcher (Open MPI's, as ldconfig has it,
    # under MPICH's mpiexec): every process alone, which dmesh's launch
    # check must refuse instead of running 4 meshes of 1
    got=$(timeout -k 10 120 mpiexec.mpich -n 4 "$hello" 2>&1)
    if printf '%s\n' "$got" | grep -q 'MPI_COMM_WORLD has 1 rank, but the launcher started 4'; then
        echo "$label: abi: Open MPI's libmpi_abi.so.1 under mpiexec.mpich: refused by the launch check"
    else
        echo "$label: abi: Open MPI's libmpi_abi.so.1 under mpiexec.mpich: no launch-check error:"
        printf '%s\n' "$got" | tail -n 20
        rc=1
    fi
    return $rc
}

if [ "$step" = ulfm ]; then
    BUILD_DIR=$dir CONFIGURE_FLAGS="$*" ./quickstart.sh check >"$out" 2>&1
    rc=$?
    report test-suite.log "$mpi"
    ulfm_fail=$fail
    if [ -f "$dir/Makefile" ]; then
        mpi="Open MPI $(ompi_version), the tests of more than 4 ranks, at 8"
        # the whole suite at its usual sizes under --with-ft ulfm: the tests
        # of 5 to 8 ranks (the fault-tolerance tests among them: at 4 ranks
        # they ran in the suite, with the kill sweeps at every step of every
        # call, ft.sh's and copies.sh's defaults; at 8 they meet the same
        # steps), 27 tests, about 7 minutes at a load of 20
        above=$(make -s -C "$dir" list-tests-above-4 | tr '\n' ' ')
        (cd "$dir" && make -j"$jobs" check TESTS="${tests:-$above}" \
            DMESH_TEST_MAX_NP=8 TEST_SUITE_LOG=test-suite-faults8.log >>"$out" 2>&1) || rc=1
        report test-suite-faults8.log "$mpi"
        ulfm_fail=$((ulfm_fail + fail))
        # the fault-tolerant cases with the cores shared, as CI's machine
        # and many users' nodes are: one busy loop per core beside them
        # (test/repeat.sh starts them and ends them by their process ids
        # on every exit, and bounds each by timeout). A kill, two kills, a
        # replacement killed, a grown process killed, the copies restored:
        # ft, respawn, copies, heat_respawn and particles at 4 and 8 ranks,
        # about 5 minutes. Their kill sweeps ran quiet above: not again
        # here (DMESH_FT_SWEEP_MAX_NP=3). The harnesses' bounds scale with
        # the load (test/load-scale.sh).
        mpi="Open MPI $(ompi_version), the fault-tolerant cases beside $jobs CPU hogs"
        load_tests="test/ft-np4.mpi test/ft-np8.mpi test/respawn-np4.mpi test/respawn-np8.mpi test/copies-np4.mpi"
        load_tests="$load_tests test/copies-np8.mpi test/heat-respawn-np4.mpi test/heat-respawn-np8.mpi"
        load_tests="$load_tests test/particles-np4.mpi test/particles-np8.mpi"
        (cd "$dir" && "$top/test/repeat.sh" -n 1 -l "$jobs" -t 3600 -k "$dir/load-logs" -- \
            env DMESH_FT_SWEEP_MAX_NP=3 make -j"$jobs" check TESTS="$load_tests" \
            DMESH_TEST_MAX_NP=8 TEST_SUITE_LOG=test-suite-load.log >>"$out" 2>&1) || rc=1
        report test-suite-load.log "$mpi"
    fi
    fail=$((fail + ulfm_fail))
elif [ "$step" = quickstart ]; then
    # quickstart.sh finds every package installed (run.sh installs its list)
    # and configures, builds and runs make check; then its demo in the same
    # build (dmesh-info at 8 ranks, whatever limit make check ran under:
    # the launcher's limit from the environment wins over the build's)
    BUILD_DIR=$dir CONFIGURE_FLAGS="$*" ./quickstart.sh check >"$out" 2>&1
    rc=$?
    if [ $rc -eq 0 ]; then
        if DMESH_TEST_MAX_NP=8 BUILD_DIR=$dir ./quickstart.sh >"$dir/demo.out" 2>&1 &&
            grep -q '^mesh: DeviceMesh(cpu, (dp=2, cp=2, tp=2)' "$dir/demo.out"; then
            echo "$label: quickstart: its demo ran (dmesh-info at 8 ranks)"
        else
            echo "$label: quickstart: its demo FAILED:"
            tail -n 40 "$dir/demo.out"
            rc=1
        fi
    fi
    report test-suite.log "$mpi"
else
    [ -x configure ] && [ configure -nt configure.ac ] || autoreconf -fi >"$out" 2>&1
    (cd "$dir" && "$top/configure" "$@" >>"$out" 2>&1 && make -j"$jobs" >>"$out" 2>&1 &&
        if [ -n "$tests" ]; then
            programs=$("$top/test/check-programs.sh" "$top" $tests) &&
                make -j"$jobs" check TESTS="$tests" check_PROGRAMS="$programs" >>"$out" 2>&1
        else
            make -j"$jobs" check >>"$out" 2>&1
        fi)
    rc=$?
    report test-suite.log "$mpi"
    if [ "$step" = abi ] && [ -f "$dir/lib/.libs/libdmesh.so" ]; then
        # one libdmesh for every MPI: it needs libmpi_abi.so.1 and no
        # implementation's own library
        needed=$(objdump -p "$dir/lib/.libs/libdmesh.so" | sed -n 's/^ *NEEDED *//p' | tr '\n' ' ')
        case " $needed " in
        *" libmpi_abi.so.1 "*) ;;
        *) echo "$label: abi: libdmesh.so does not need libmpi_abi.so.1 (NEEDED: $needed)"; rc=1 ;;
        esac
        case " $needed " in
        *" libmpi.so"* | *" libmpich.so"* | *" libopen_mpi.so"* | *" libmpi_abi_"*)
            echo "$label: abi: libdmesh.so needs an implementation's library (NEEDED: $needed)"; rc=1 ;;
        esac
        mkdir -p "$dir/mpich-abi" && ln -sf "$mpich_abi" "$dir/mpich-abi/libmpi_abi.so.1" || exit 1
        mpi="standard ABI, MPICH $(mpichversion | sed -n 's/^MPICH Version: *//p')'s libmpi_abi.so.1"
        echo "$label: $step: the same build's tests under $mpi (LD_LIBRARY_PATH, mpiexec.mpich)"
        (cd "$dir" && LD_LIBRARY_PATH=$dir/mpich-abi DMESH_TEST_MPIEXEC=mpiexec.mpich \
            make -j"$jobs" check ${tests:+TESTS="$tests" check_PROGRAMS="$("$top/test/check-programs.sh" "$top" $tests)"} \
            TEST_SUITE_LOG=test-suite-mpich.log >>"$out" 2>&1) ||
            rc=1
        ompi_fail=$fail
        report test-suite-mpich.log "$mpi"
        fail=$((fail + ompi_fail))
        installed_hello || rc=1
    fi
fi
# a failure outside the tests (configure, build): the end of its output
if [ $rc -ne 0 ] && [ "$fail" -eq 0 ]; then
    echo "$label: $step FAILED (exit $rc); the end of ${out#"$top"/}:"
    tail -n 40 "$out"
fi
exit $rc
