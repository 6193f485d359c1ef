#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Write a SimGrid platform and its host files for RANKS simulated MPI ranks:
#   platform.sh [-c CORES] [-p PREFIX] RANKS
# writes PREFIX.xml (default PREFIX: cluster-RANKS), a cluster of
# ceil(RANKS/CORES) hosts of CORES cores each (default 8: one rank a core),
# and the host files PREFIX.block (ranks 8h..8h+7 on host h) and
# PREFIX.cyclic (rank r on host r mod HOSTS) for smpirun -hostfile.
#
# The model: each core computes at 100 Gflop/s; inside a host, ranks talk
# over the loopback (100 GB/s, 0.1 us); each host has a private link to the
# backbone (25 GB/s, 1 us, full duplex, like one 200 Gb/s NIC); the backbone
# is fat (10 TB/s, 0.5 us), so placement and message sizes, not the
# backbone, set the costs.
set -eu
cores=8
prefix=
while [ $# -gt 1 ]; do
    case $1 in
    -c) cores=$2; shift 2 ;;
    -p) prefix=$2; shift 2 ;;
    *) break ;;
    esac
done
[ $# -eq 1 ] || { echo "usage: $0 [-c CORES] [-p PREFIX] RANKS" >&2; exit 2; }
ranks=$1
case $ranks$cores in *[!0-9]*) echo "$0: RANKS and CORES are numbers" >&2; exit 2 ;; esac
[ "$ranks" -gt 0 ] && [ "$cores" -gt 0 ] || { echo "$0: RANKS and CORES must be positive" >&2; exit 2; }
prefix=${prefix:-cluster-$ranks}
hosts=$(((ranks + cores - 1) / cores))
cat >"$prefix.xml" <<XML
<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<!-- $ranks ranks: $hosts hosts of $cores cores (test/smpi/platform.sh) -->
<platform version="4.1">
  <cluster id="cluster" prefix="node-" suffix="" radical="0-$((hosts - 1))"
           speed="100Gf" core="$cores"
           bw="25GBps" lat="1us" sharing_policy="SPLITDUPLEX"
           loopback_bw="100GBps" loopback_lat="0.1us"
           bb_bw="10TBps" bb_lat="0.5us" bb_sharing_policy="SHARED"/>
</platform>
XML
awk -v n="$ranks" -v c="$cores" 'BEGIN { for (r = 0; r < n; r++) print "node-" int(r / c) }' >"$prefix.block"
awk -v n="$ranks" -v h="$hosts" 'BEGIN { for (r = 0; r < n; r++) print "node-" (r % h) }' >"$prefix.cyclic"
