#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# repeat.sh: run one test N times with CPU hogs beside it, and count the
# runs that pass (a flaky test shows itself under load, where timings
# change):
#   test/repeat.sh [-n N] [-d SECONDS] [-l HOGS] [-t SECONDS] [-k DIR] TEST
#   test/repeat.sh [-n N] [-d SECONDS] [-l HOGS] [-t SECONDS] [-k DIR] -- COMMAND [ARG]...
# TEST is a name of make check's TESTS (test/test_topo_bind-np4.mpi), run
# from a configured build directory through make check (only the programs
# it needs are built: test/check-programs.sh); COMMAND is any command, run
# as it is. Options:
#   -n N        the runs (default 20)
#   -d SECONDS  start no run after SECONDS of wall time (as many runs as
#               time allows, up to N): the count is of the runs made
#   -l HOGS     CPU hogs beside the runs (default: the cores online; 0: none)
#   -t SECONDS  the bound of each run (default 600), scaled by the load as
#               make check's (test/load-scale.sh); a run past it fails
#   -k DIR      where the logs of the failing runs are kept (default
#               repeat-logs in the current directory)
# The hogs are busy loops, started here and ended here by their process ids
# on every exit (normal, error, INT, TERM, HUP); each is bounded by timeout
# as well (N runs' worth of bounds), so that none outlives a killed script.
# A run that exits 77 (skipped) counts apart. Prints one line per failing
# run, then "k of N passed" (and the skipped ones); exits 0 when every run
# that was not skipped passed, 1 otherwise, 2 on a usage error.
n=20
deadline=
mode=
hogs=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
bound=600
keep=repeat-logs
usage() {
    echo "usage: repeat.sh [-n N] [-d SECONDS] [-l HOGS] [-t SECONDS] [-k DIR] TEST | -- COMMAND [ARG]..." >&2
    exit 2
}
number() {
    case $1 in '' | *[!0-9]*) usage ;; esac
}
while [ $# -gt 0 ]; do
    case $1 in
    -n) [ $# -ge 2 ] || usage; number "$2"; n=$2; shift 2 ;;
    -d) [ $# -ge 2 ] || usage; number "$2"; deadline=$2; shift 2 ;;
    -l) [ $# -ge 2 ] || usage; number "$2"; hogs=$2; shift 2 ;;
    -t) [ $# -ge 2 ] || usage; number "$2"; bound=$2; shift 2 ;;
    -k) [ $# -ge 2 ] || usage; keep=$2; shift 2 ;;
    --) shift; mode=command; break ;;
    -*) usage ;;
    *) break ;;
    esac
done
[ $# -ge 1 ] && [ "$n" -ge 1 ] || usage
here=$(cd "$(dirname "$0")" && pwd)
scale="$here/load-scale.sh"
if [ "$mode" = command ] || [ $# -gt 1 ] || [ -x "$1" ]; then
    mode=command
elif [ -f Makefile ]; then
    mode=test
    name=$1
    srcdir=$(sed -n 's/^abs_top_srcdir = *//p' Makefile)
    programs=$("$here/check-programs.sh" "$srcdir" "$name") || exit 2
else
    echo "repeat.sh: $1: no command, and no configured build here to find a test in" >&2
    exit 2
fi
mkdir -p "$keep" || exit 2
# the programs are built once, before the runs: a build failure is no run's
if [ "$mode" = test ] && [ -n "$programs" ] && ! make $programs >"$keep/build.$$.log" 2>&1; then
    tail -n 20 "$keep/build.$$.log"
    echo "repeat.sh: $name: its programs do not build ($keep/build.$$.log)" >&2
    exit 2
fi
rm -f "$keep/build.$$.log"
log=$keep/repeat.$$.log

pids=
cleanup() {
    for p in $pids; do
        kill -TERM "$p" 2>/dev/null
    done
    for p in $pids; do
        wait "$p" 2>/dev/null
    done
    pids=
}
trap cleanup EXIT
trap 'cleanup; exit 130' INT
trap 'cleanup; exit 143' TERM
trap 'cleanup; exit 129' HUP

# the hogs: busy loops, each bounded by timeout as well
life=$(((bound + 60) * n))
i=0
while [ "$i" -lt "$hogs" ]; do
    timeout "$life" sh -c 'while :; do :; done' &
    pids="$pids $!"
    i=$((i + 1))
done

pass=0 skip=0 run=1
start=$(date +%s)
while [ "$run" -le "$n" ]; do
    if [ -n "$deadline" ] && [ $(($(date +%s) - start)) -ge "$deadline" ]; then
        echo "repeat.sh: -d $deadline: stopped after $((run - 1)) runs"
        break
    fi
    limit=$("$scale" "$bound")
    if [ "$mode" = test ]; then
        rm -f "$name.trs" "${name%.*}.trs"
        timeout -k 10 "$limit" make check TESTS="$name" check_PROGRAMS="$programs" \
            TEST_SUITE_LOG=repeat-suite.log >"$log" 2>&1
        rc=$?
        # make check's status is 2 for a failure: the test's own result decides
        # (its .trs: the name without a registered extension, .mpi or .sh)
        trs=$name.trs
        [ -f "${name%.*}.trs" ] && trs=${name%.*}.trs
        if [ -f "$trs" ] && grep -q '^:test-result: SKIP' "$trs"; then
            rc=77
        elif [ -f "$trs" ] && grep -q '^:test-result: PASS' "$trs" && [ "$rc" -eq 0 ]; then
            rc=0
        elif [ "$rc" -eq 0 ]; then
            rc=1
        fi
        [ "$rc" -eq 0 ] || [ "$rc" -eq 77 ] || [ ! -f "${trs%.trs}.log" ] ||
            cat "${trs%.trs}.log" >>"$log"
    else
        timeout -k 10 "$limit" "$@" >"$log" 2>&1
        rc=$?
    fi
    case $rc in
    0) pass=$((pass + 1)) ;;
    77) skip=$((skip + 1)) ;;
    *)
        mv "$log" "$keep/run-$run.log"
        echo "run $run: exit $rc (load $(cut -d' ' -f1 /proc/loadavg 2>/dev/null)): $keep/run-$run.log"
        ;;
    esac
    run=$((run + 1))
done
rm -f "$log"
ran=$((run - 1 - skip))
echo "$pass of $ran passed${skip:+ ($skip skipped)} (with $hogs CPU hogs)" | sed 's/ (0 skipped)//'
[ "$pass" -eq "$ran" ]
