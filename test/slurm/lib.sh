# SPDX-License-Identifier: BSD-3-Clause
# shellcheck shell=bash
# Shell functions of the Slurm tests (sourced by one-node.sh, hosts.sh and
# run.sh): Debian's slurm-wlm and munge installed when missing, a munged
# and a slurm.conf in a private directory.

# slurm_install: slurm-wlm and munge, from Debian's archive when missing
# (root, apt-get), as CI has nothing installed beforehand.
slurm_install() {
    command -v slurmd >/dev/null 2>&1 && command -v munged >/dev/null 2>&1 && return 0
    [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1 || { echo "slurm-wlm missing"; return 1; }
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge >/dev/null ||
        { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq slurm-wlm munge >/dev/null; }
}

# slurm_munge DIR [BACKGROUND]: a munged with a fresh key, its socket in
# DIR/munge; with BACKGROUND it stays in the foreground of a background
# job whose PID goes to DIR/munged.pid (else it daemonizes and writes it).
slurm_munge() {
    local dir=$1
    mkdir -p "$dir/key" "$dir/munge" "$dir/log" || return 1
    chmod 700 "$dir/key" && chmod 755 "$dir" "$dir/munge" || return 1
    dd if=/dev/urandom of="$dir/key/munge.key" bs=1024 count=1 status=none || return 1
    chmod 400 "$dir/key/munge.key"
    set -- --force --key-file="$dir/key/munge.key" --socket="$dir/munge/socket" \
        --pid-file="$dir/munged.pid" --log-file="$dir/log/munged.log" --seed-file="$dir/key/seed"
    if [ -n "${2:-}" ]; then
        munged --foreground "$@" </dev/null >>"$dir/log/munged.out" 2>&1 &
        echo $! >"$dir/munged.pid"
    else
        munged "$@"
    fi
}

# slurm_conf DIR CONTROLLER: the settings every test cluster shares on
# stdout (no cgroups, no accounting, root runs everything, CPUs as the
# unit, nodes may be oversubscribed); each node's spool, log and PID file
# carry its name (%n), so that several slurmd share one file system. The
# caller adds its NodeName and PartitionName lines.
slurm_conf() {
    local dir=$1
    cat <<EOC
ClusterName=dmeshci
SlurmctldHost=$2
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
SlurmdPidFile=$dir/slurmd-%n.pid
SlurmctldPort=16817
SlurmdPort=16818
SlurmdSpoolDir=$dir/spool/d-%n
StateSaveLocation=$dir/spool/ctld
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd-%n.log
SlurmdParameters=config_overrides
EOC
}
