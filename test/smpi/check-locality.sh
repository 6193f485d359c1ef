#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# make check-smpi: node-aware meshes (test/smpi/locality) at each of RANKS
# simulated ranks on a cluster of 8-core hosts (platform.sh), with block
# and cyclic placement and an uneven one (cyclic over one host more, so
# that hosts hold 7 or 8 ranks):
#   check-locality.sh SRCDIR PROGRAM SMPIRUN 'RANKS...'
# Each run is bounded by DMESH_SMPI_TIMEOUT seconds (default 600) and must
# print PROGRAM's "ok" line; the allreduce times are printed as measured.
set -u
srcdir=$1 program=$2 smpirun=$3 ranks=$4
dir=$(dirname "$program")
failed=0
for n in $ranks; do
    p=$dir/locality-$n
    "$srcdir/platform.sh" -p "$p" "$n" || exit 1
    hosts=$(((n + 7) / 8 + 1))
    awk -v n="$n" -v h="$hosts" 'BEGIN { for (r = 0; r < n; r++) print "node-" (r % h) }' >"$p.uneven"
    # the platform has one host fewer than the uneven placement names
    sed "s/radical=\"0-[0-9]*\"/radical=\"0-$((hosts - 1))\"/" "$p.xml" >"$p-uneven.xml"
    for placement in block cyclic uneven; do
        xml=$p.xml
        [ "$placement" = uneven ] && xml=$p-uneven.xml
        log=$dir/locality-$n-$placement.log
        # cyclic under DMESH_DEBUG: the hint that node order keeps tp in a node
        debug=0
        [ "$placement" = cyclic ] && debug=1
        DMESH_DEBUG=$debug timeout -k 30 "${DMESH_SMPI_TIMEOUT:-600}" $smpirun -platform "$xml" -hostfile "$p.$placement" \
            -np "$n" --cfg=smpi/simulate-computation:no --cfg=smpi/host-speed:100Gf \
            --log=root.thres:warning "$program" "$placement" >"$log" 2>&1
        rc=$?
        hint=ok
        [ $debug = 1 ] && ! grep -q "dim 1 (tp) is spread across nodes; dmesh_order=node" "$log" && hint=missing
        if [ $rc -eq 0 ] && [ $hint = ok ] && grep -q "^locality: $n ranks, $placement: ok" "$log"; then
            echo "PASS: $(grep '^locality:.*allreduce' "$log")"
        else
            echo "FAIL: $n ranks, $placement placement (exit $rc, DMESH_DEBUG hint $hint); $log:"
            tail -n 30 "$log"
            failed=1
        fi
    done
done
exit $failed
