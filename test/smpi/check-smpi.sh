#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# make check-smpi: run PROGRAM under smpirun at each of RANKS simulated
# ranks, on each PLACEMENT (block, cyclic) of a cluster of 8-core hosts
# written by platform.sh into the directory of PROGRAM:
#   check-smpi.sh SRCDIR PROGRAM SMPIRUN 'RANKS...' 'PLACEMENTS...' [CFG...]
# CFG: more of smpirun's options (--cfg=smpi/allgather:bruck). Each run is
# bounded by DMESH_SMPI_TIMEOUT seconds (default 600) and must print
# PROGRAM's "ok" line ("NAME: N ranks: ok"). Prints one line per run with
# its wall time.
set -u
srcdir=$1 program=$2 smpirun=$3 ranks=$4 placements=$5
shift 5
dir=$(dirname "$program") name=$(basename "$program")
failed=0
for n in $ranks; do
    "$srcdir/platform.sh" -p "$dir/cluster-$n" "$n" || exit 1
    for placement in $placements; do
        log=$dir/$name-$n-$placement.log
        start=$(date +%s)
        # communication only: the model's time, not this machine's speed
        timeout -k 30 "${DMESH_SMPI_TIMEOUT:-600}" $smpirun -platform "$dir/cluster-$n.xml" \
            -hostfile "$dir/cluster-$n.$placement" -np "$n" \
            --cfg=smpi/simulate-computation:no --cfg=smpi/host-speed:100Gf \
            --log=root.thres:warning "$@" "$program" >"$log" 2>&1
        rc=$?
        secs=$(($(date +%s) - start))
        if [ $rc -eq 0 ] && grep -q "^$name: $n ranks: ok" "$log"; then
            echo "PASS: $n ranks, $placement placement ($secs s): $(grep "^$name:" "$log")"
        else
            echo "FAIL: $n ranks, $placement placement (exit $rc, $secs s); $log:"
            tail -n 30 "$log"
            failed=1
        fi
    done
done
exit $failed
