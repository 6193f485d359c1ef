#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# A real one-node Slurm for CI: munged, slurmctld and slurmd started by
# PID in a private directory (no systemd), proctrack/linuxproc, the node
# declared with 8 CPUs so that 8 tasks fit a small machine.
#   test/slurm/one-node.sh start DIR     prints the variables to export
#   test/slurm/one-node.sh stop DIR
# Needs root and the Debian packages slurm-wlm and munge.
set -euo pipefail
cmd=$1
dir=$(mkdir -p "$2" && cd "$2" && pwd)
node=$(hostname -s)
. "$(dirname "$0")/lib.sh"

stop() {
    for d in "slurmd-$node" slurmctld munged; do
        [ -f "$dir/$d.pid" ] && kill "$(cat "$dir/$d.pid")" 2>/dev/null || true
    done
    sleep 1
}

if [ "$cmd" = stop ]; then
    stop
    exit 0
fi

mkdir -p "$dir/spool/ctld" "$dir/spool/d-$node" "$dir/log"
slurm_munge "$dir"
{
    slurm_conf "$dir" "$node"
    cat <<EOC
NodeName=$node CPUs=8 State=UNKNOWN
PartitionName=ci Nodes=$node Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
EOC
} >"$dir/slurm.conf"
export SLURM_CONF=$dir/slurm.conf
slurmctld -c -i
slurmd -c
for i in $(seq 1 30); do
    if sinfo -h -o %T 2>/dev/null | grep -E '^(idle|mixed)' >/dev/null; then
        echo "export SLURM_CONF=$dir/slurm.conf"
        exit 0
    fi
    sleep 1
done
echo "one-node Slurm did not come up:" >&2
tail -n 20 "$dir/log/slurmctld.log" "$dir/log/slurmd-$node.log" >&2 || true
stop
exit 1
