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

stop() {
    for d in slurmd slurmctld munged; do
        [ -f "$dir/$d.pid" ] && kill "$(cat "$dir/$d.pid")" 2>/dev/null || true
    done
    sleep 1
}

if [ "$cmd" = stop ]; then
    stop
    exit 0
fi

mkdir -p "$dir/key" "$dir/munge" "$dir/spool/ctld" "$dir/spool/d" "$dir/log"
chmod 700 "$dir/key"
chmod 755 "$dir" "$dir/munge"
dd if=/dev/urandom of="$dir/key/munge.key" bs=1024 count=1 status=none
chmod 400 "$dir/key/munge.key"
munged --force --key-file="$dir/key/munge.key" --socket="$dir/munge/socket" \
    --pid-file="$dir/munged.pid" --log-file="$dir/log/munged.log" --seed-file="$dir/key/seed"
cat >"$dir/slurm.conf" <<EOC
ClusterName=dmeshci
SlurmctldHost=$node
AuthType=auth/munge
AuthInfo=socket=$dir/munge/socket
CredType=cred/munge
SlurmUser=root
SlurmdUser=root
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldPort=16817
SlurmdPort=16818
SlurmdSpoolDir=$dir/spool/d
StateSaveLocation=$dir/spool/ctld
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd.log
SlurmdParameters=config_overrides
NodeName=$node CPUs=8 State=UNKNOWN
PartitionName=ci Nodes=$node Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
EOC
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
tail -n 20 "$dir/log/slurmctld.log" "$dir/log/slurmd.log" >&2 || true
stop
exit 1
