#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# respawn-counts.sh BUILD [RUNS]: how often examples/heat_respawn comes back
# whole, as users run it, at 8 ranks under mpiexec --with-ft ulfm (Open MPI
# 5; run inside the Debian 13 chroot, in a build of this tree). Not run by
# make check: its counts are the ones doc/performance.md reports. Cases:
#   noargs    no arguments (the example's own problem), one kill (20 runs)
#   wrapper   through a launch wrapper (test/respawn-wrap.sh), one kill (10)
#   two       two processes of the first launch, one after the other (20)
#   again     a process, then the process that replaced it (20)
#   early     a process, then another right after the restore, before any
#             new copy: the copy the restore handed to the replacement (20)
#   spare     a spare (a process outside the mesh, SPARES=1) (20)
# RUNS (default as above) overrides every case's count; DMESH_COUNT_CASES
# (default every case) names the cases to run. Each run is bounded
# (120 s); a run ends well when mpiexec exits 0, the recoveries are the
# kills and the residual and field are the clean run's. Prints, per case,
# "k of n" that ended well, that were right (the field and the recoveries,
# whatever the launcher's status), that ended by themselves (before the
# bound), and that reached dmesh's MPI_Finalize bound (DMESH_FINALIZE_BOUND,
# 10 s here), with the launcher's statuses seen.
set -u
build=$1
runs=${2:-}
top=$(cd "$(dirname "$0")/../.." && pwd)
prog=$build/examples/heat_respawn
np=8
export DMESH_FINALIZE_BOUND=10
# the spawned processes need free slots too: --map-by covers the first launch only
export PRTE_MCA_rmaps_default_mapping_policy=:oversubscribe
# as test/mpirun.sh: IPv4 only between the processes (the chroot's TCP)
export OMPI_MCA_btl_tcp_disable_family=6
launch() { timeout -k 5 120 mpiexec --with-ft ulfm --map-by :oversubscribe --mca coll ^han -n $np "$@"; }
final() { grep -a -E '^(iteration [0-9]+: residual|field: )' "$1"; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

# reference SPARES: the clean run's lines with SPARES spares (made once)
reference() {
    [ -s "$out/want$1" ] && return 0
    launch "$prog" 96 80 200 "$1" >"$out/ref$1" 2>&1
    final "$out/ref$1" >"$out/want$1"
    [ -s "$out/want$1" ] || { echo "respawn-counts: the clean run (spares $1) printed no field"; cat "$out/ref$1"; exit 1; }
}

# count NAME N KILLS WANT_RECOVERIES [wrap | spare]: "spare" runs the
# example's own problem with one spare (SPARES=1: its last rank)
count() {
    local name=$1 n=${runs:-$2} kills=$3 rec=$4 how=${5:-} i ok=0 right=0 ended=0 bounded=0 rc
    case " ${DMESH_COUNT_CASES:-noargs wrapper two again early spare} " in *" $name "*) ;; *) return 0 ;; esac
    local start=$SECONDS t0 statuses='' spares=0 args=()
    [ "$how" != spare ] || { spares=1 args=(96 80 200 1); }
    reference $spares
    for ((i = 0; i < n; i++)); do
        # the killed rank goes round (R), and another one (S)
        local k=${kills//R/$(((i % (np - 1)) + 1))}
        k=${k//S/$((((i + 3) % (np - 1)) + 1))}
        t0=$SECONDS
        if [ "$how" = wrap ]; then
            DMESH_EXAMPLE_KILLS=$k launch "$top/test/respawn-wrap.sh" "$prog" >"$out/run" 2>&1
        else
            DMESH_EXAMPLE_KILLS=$k launch "$prog" "${args[@]}" >"$out/run" 2>&1
        fi
        rc=$?
        [ $((SECONDS - t0)) -ge 120 ] || ended=$((ended + 1))
        case " $statuses " in *" $rc "*) ;; *) statuses="$statuses $rc" ;; esac
        grep -aq 'MPI_Finalize did not return' "$out/run" && bounded=$((bounded + 1))
        final "$out/run" >"$out/got"
        if cmp -s "$out/want$spares" "$out/got" && grep -aq "^heat_respawn: $rec recoveries" "$out/run"; then
            right=$((right + 1))
            [ $rc -ne 0 ] || ok=$((ok + 1))
        fi
        if [ $rc -ne 0 ] || [ $right -lt $((i + 1)) ]; then
            echo "respawn-counts: $name run $i (kills $k): mpiexec exit $rc" >&2
            tail -n 15 "$out/run" >&2
        fi
    done
    echo "respawn-counts: $name: $ok of $n right and ended well, $right of $n right, $ended of $n ended by themselves, $bounded of $n reached the MPI_Finalize bound; launcher statuses:$statuses ($((SECONDS - start)) s)"
}

count noargs 20 "R:50" 1
count wrapper 10 "R:50" 1 wrap
count two 20 "R:50,S:120" 2
count again 20 "R:50,R:120" 2
count early 20 "0:37,1:31" 2
count spare 20 "$((np - 1)):12" 1 spare
