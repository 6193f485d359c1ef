#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# recover-time.sh [-n RUNS] [BUILD]: the time a whole host's loss costs,
# against a relaunch (doc/performance.md, "Time to recover, against a
# relaunch"). Not a test and not in CI: it prints figures.
#
# Under Open MPI 5 with fault tolerance (mpiexec --with-ft ulfm) in the
# Debian 13 chroot that test/trixie/run.sh makes, on 5 hosts of
# test/hosts/hosts.sh with 2 slots each, examples/heat_respawn runs at 8
# ranks (96 x 80 points, 60 steps, a copy every 10) two to a host on h1 to
# h4, with a hybrid mesh (DMESH_EXAMPLE_HYBRID=2: y inside each host, x
# across the four). Each run is a pair, in this order:
#   - a clean run (no kill): from mpiexec to its first line (MPI started,
#     the mesh made: what a relaunch pays before it can read a state from
#     disk), and from that line to its last (the 60 steps, the answer out);
#   - a kill run: at step 37 (after the copy of step 30) rank 0 writes the
#     time and kills both processes of h2 at once (kill-host -a h2, as when
#     the host dies); dmesh_respawn starts both replacements on the spare h5
#     (DMESH_RESPAWN_HOSTS=h5), which restore their blocks from the copies
#     held on other hosts. From the kill to the program's last line, and the
#     run's time lost to the kill (its first line to its last, less the
#     clean run's).
# Every output line is stamped as it arrives. A kill run whose answer is
# not the clean run's (residual and field) is reported as WRONG and its
# times left out. Prints each run's figures in s, then exits 0 when every
# kill run gave the clean answer.
# BUILD, the chroot, exit 77: as test/hosts/host-loss.sh. RUNS: default 10.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)

# stamp: each line of standard input with the time it arrived
stamp() { while IFS= read -r l; do printf '%s %s\n' "$(date +%s.%N)" "$l"; done; }

# first_last FILE: the stamps of the program's first line in FILE (the mesh
# made) and of its last (its answer out; MPI_Finalize, bounded after a
# repair, comes after it)
first_last() {
    awk '/heat_respawn: after 0 recoveries/ && f == "" { f = $1 }
         / heat_respawn: [0-9]+ recoveries$/ { l = $1 } END { print f, l }' "$1"
}

if [ "${1:-}" = --inside ]; then
    build=$2 runs=$3 log=$4
    # shellcheck source=test/hosts/chroot-hosts.sh
    . "$top/test/hosts/chroot-hosts.sh"
    heat_inside "$build" "$log"
    launch() {
        # --mca coll ^han: Open MPI's hierarchical collectives are not
        # fault-tolerant (the user guide, "A host dies")
        timeout -k 5 "$(sh "$top/test/load-scale.sh" 120)" mpiexec --with-ft ulfm --mca coll ^han \
            $DMESH_HOSTS_PRTE --map-by ppr:2:node -n 8 \
            -x DMESH_EXAMPLE_HYBRID -x DMESH_EXAMPLE_KILLS -x DMESH_EXAMPLE_KILL_COMMAND \
            -x DMESH_RESPAWN_HOSTS -x DMESH_FINALIZE_BOUND ./examples/heat_respawn 96 80 60 2>&1
    }
    export DMESH_EXAMPLE_HYBRID=2 DMESH_EXAMPLE_KILLS='' DMESH_EXAMPLE_KILL_COMMAND='' \
        DMESH_RESPAWN_HOSTS=h5 DMESH_FINALIZE_BOUND=5
    wrong=0
    echo "recover-time: run: kill to the answer, time lost to the kill, a launch to the first line," \
        "60 steps clean (s)"
    for i in $(seq 1 "$runs"); do
        t0=$(date +%s.%N)
        DMESH_EXAMPLE_KILLS='' launch | stamp >"$log/clean$i.out"
        heat_final "$log/clean$i.out" >"$log/want"
        read -r c1 c2 < <(first_last "$log/clean$i.out")
        rm -f "$log/killed"
        DMESH_EXAMPLE_KILLS=0:37 DMESH_EXAMPLE_KILL_COMMAND="date +%s.%N > $log/killed; $DMESH_HOSTS_DIR/kill-host -a h2" \
            launch | stamp >"$log/kill$i.out"
        heat_final "$log/kill$i.out" >"$log/got"
        read -r k1 k2 < <(first_last "$log/kill$i.out")
        if [ -s "$log/want" ] && cmp -s "$log/want" "$log/got" && [ -s "$log/killed" ] &&
            grep -aq 'heat_respawn: 1 recoveries' "$log/kill$i.out"; then
            awk -v i="$i" -v t0="$t0" -v c1="$c1" -v c2="$c2" -v k1="$k1" -v k2="$k2" -v kt="$(cat "$log/killed")" \
                'BEGIN { printf "recover-time: run %d: %.2f %.2f %.2f %.2f\n", i, k2 - kt, (k2 - k1) - (c2 - c1), c1 - t0, c2 - c1 }'
        else
            wrong=$((wrong + 1))
            echo "recover-time: run $i: WRONG: $(grep -a -o -E 'heat_respawn: .*' "$log/kill$i.out" | tr '\n' ' ')"
        fi
        grep -a -o 'heat_respawn: after [1-9].*' "$log/kill$i.out" | sed 's/^/    /'
    done
    echo "recover-time: $((runs - wrong)) of $runs kill runs gave the clean run's answer"
    [ $wrong -eq 0 ]
    exit $?
fi

# shellcheck source=test/hosts/chroot-hosts.sh
. "$top/test/hosts/chroot-hosts.sh"
chroot_hosts recover-time "$@"
[ "$runs" -gt 1 ] || [ "${1:-}" = -n ] || runs=10
"$top/test/hosts/hosts.sh" -n 5 -s 2 --chroot "$root" "$0" --inside "$build" "$runs" "$log"
