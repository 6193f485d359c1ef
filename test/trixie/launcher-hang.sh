#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# launcher-hang.sh [-n RUNS] [-p NP] [-t SECONDS] [--plain] [MODE...]: how
# often Open MPI's launcher does not end when every process of a plain MPI
# program (no dmesh) ends with a failing status, under mpiexec --with-ft
# ulfm (Open MPI 5; run inside the Debian 13 chroot, e.g. piped to
# test/trixie/run.sh shell). Not run by make check: its counts are the ones
# the user guide reports ("Ending the job"). MODEs (default all three):
#   exit      every rank calls exit(1) after MPI_Init, without MPI_Finalize
#   finalize  every rank calls MPI_Finalize, then returns 1 from main
#   clean     every rank calls MPI_Finalize, then returns 0 (the control)
# Each run is bounded (timeout -k 5 SECONDS, default 30, scaled by the load
# as the test suite's: test/load-scale.sh); a run that lasted the bound with
# timeout's status (124, 137 after its KILL) hung. Every launch gets a
# TMPDIR of its own, removed after it (a killed launcher leaves its session
# directory). Options: -n RUNS per mode (default 30), -p NP ranks (default
# 6), --plain: without --with-ft ulfm (the control of the launch). Prints
# "MODE: k of N hung" per mode, with the launcher's statuses seen.
set -u
runs=30 np=6 bound=30 ft="--with-ft ulfm"
usage() {
    echo "usage: launcher-hang.sh [-n RUNS] [-p NP] [-t SECONDS] [--plain] [exit|finalize|clean]..." >&2
    exit 2
}
while [ $# -gt 0 ]; do
    case $1 in
    -n) [ $# -ge 2 ] || usage; runs=$2; shift 2 ;;
    -p) [ $# -ge 2 ] || usage; np=$2; shift 2 ;;
    -t) [ $# -ge 2 ] || usage; bound=$2; shift 2 ;;
    --plain) ft=; shift ;;
    -*) usage ;;
    *) break ;;
    esac
done
[ $# -gt 0 ] || set -- exit finalize clean
for m in "$@"; do
    case $m in exit | finalize | clean) ;; *) usage ;; esac
done
top=$(cd "$(dirname "$0")/../.." && pwd)
work=$(mktemp -d "${TMPDIR:-/tmp}/launcher-hang.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
# as test/mpirun.sh: IPv4 only between the processes (the chroot's TCP)
export OMPI_MCA_btl_tcp_disable_family=6

cat >"$work/ends.c" <<'EOF'
#include <mpi.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Barrier(MPI_COMM_WORLD);
    if (argc > 1 && strcmp(argv[1], "exit") == 0)
        exit(1);
    MPI_Finalize();
    return argc > 1 && strcmp(argv[1], "finalize") == 0;
}
EOF
mpicc -O2 "$work/ends.c" -o "$work/ends" || exit 1
echo "launcher-hang: $(mpiexec --version | head -n 1), $np ranks, ${ft:-plain launch}, $runs runs a mode"

for mode in "$@"; do
    hung=0 statuses='' start=$SECONDS
    for ((i = 1; i <= runs; i++)); do
        limit=$(sh "$top/test/load-scale.sh" "$bound")
        session=$(mktemp -d "$work/tmp.XXXXXX") || exit 1
        t0=$SECONDS
        TMPDIR=$session timeout -k 5 "$limit" mpiexec $ft --map-by :oversubscribe -n "$np" \
            "$work/ends" "$mode" </dev/null >"$work/out" 2>&1
        rc=$?
        rm -rf "$session"
        case " $statuses " in *" $rc "*) ;; *) statuses="$statuses $rc" ;; esac
        if { [ $rc -eq 124 ] || [ $rc -eq 137 ]; } && [ $((SECONDS - t0)) -ge "$limit" ]; then
            hung=$((hung + 1))
            echo "launcher-hang: $mode run $i: the launcher ran past its bound of $limit s (status $rc)"
            tail -n 5 "$work/out"
        fi
    done
    echo "launcher-hang: $mode: $hung of $runs hung; launcher statuses:$statuses ($((SECONDS - start)) s)"
done
