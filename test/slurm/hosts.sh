#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# test/slurm/hosts.sh [-n N] [-e SPARE] [-c CPUS] [--chroot DIR] [--] COMMAND [ARGS...]
#
# A real Slurm across the network-namespace hosts of test/hosts/hosts.sh:
# N (default 3) compute hosts and SPARE (default 0) more, h1..hN+SPARE, in
# one partition "ci". munged and slurmctld run on h1 (its address
# 10.231.0.1, as SlurmctldHost), and one slurmd per host inside that host's
# network and UTS namespaces (`slurmd -N hI`, started through hosts.sh's
# agent as ssh would start it), declared NodeName=hI NodeAddr=10.231.0.I
# CPUs=CPUS (default 4) in slurm.conf: srun's tasks on hI run in hI's
# namespaces, as they would on a node of a cluster. COMMAND runs on h1 with
# SLURM_CONF set, once every node is idle; its exit status is this
# script's. $DMESH_HOSTS_DIR/slurm/start-slurmd HOST starts a node's
# slurmd again (after a command killed the node).
# Every daemon is started in the foreground of a background job and
# stopped by its PID; hosts.sh then kills what is left in the namespaces
# (a slurmstepd, a task) and removes them, on every exit path. Exit 77
# where the hosts cannot be made (hosts.sh --check says why).
# Needs root and the Debian packages slurm-wlm and munge (installed when
# missing). --chroot DIR: every host, its daemons and COMMAND run in the
# chroot DIR (hosts.sh --chroot; test/trixie/run.sh setup installs Slurm
# there: Debian 13's 24.11 with its Open MPI 5).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/test/slurm/lib.sh"

if [ "${1:-}" = --inside ]; then
    # On h1, under hosts.sh: hosts.sh --inside N SPARE CPUS COMMAND...
    n=$2 spare=$3 cpus=$4
    shift 4
    unset TMPDIR
    all=$((n + spare))
    dir=$DMESH_HOSTS_DIR/slurm
    pids=()
    stop() {
        local rc=$? p
        trap - EXIT INT TERM HUP
        [ -f "$dir/munged.pid" ] && pids+=("$(cat "$dir/munged.pid")")
        for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
        # at most 10 s for them to end, then SIGKILL (hosts.sh's teardown
        # follows, which must not wait on a daemon that hangs)
        for _ in $(seq 1 20); do
            for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null && break; done || break
            sleep 0.5
        done
        for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null; done
        exit "$rc"
    }
    trap stop EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    trap 'exit 129' HUP
    mkdir -p "$dir/spool/ctld" "$dir/log" || exit 1
    slurm_munge "$dir" background || exit 1
    {
        slurm_conf "$dir" "h1(10.231.0.1)"
        for ((i = 1; i <= all; i++)); do
            echo "NodeName=h$i NodeAddr=10.231.0.$i NodeHostname=h$i CPUs=$cpus State=UNKNOWN"
        done
        echo "PartitionName=ci Nodes=h[1-$all] Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES"
    } >"$dir/slurm.conf"
    export SLURM_CONF=$dir/slurm.conf
    slurmctld -D -i -f "$SLURM_CONF" </dev/null >"$dir/log/slurmctld.out" 2>&1 &
    pids+=($!)
    # start-slurmd HOST: HOST's slurmd, in the foreground (its PID is the
    # caller's $!), also for a command that brings a killed node back.
    # In slurmd's mount namespace (ip netns exec makes one; its mounts end
    # with slurmd and the tasks): a /tmp of the host's own, as a node's is
    # (Slurm's PMIx plugin makes /tmp/spmix_appdir_UID_STEP on each node,
    # and fails where another node made it); under /sys/fs/cgroup, which
    # the namespace's own sysfs leaves empty, the name=systemd hierarchy
    # Slurm 22.05's slurmd looks for (no cgroup is made: proctrack and task
    # use none). exec: the agent's chain ends in slurmd itself
    cat >"$dir/start-slurmd" <<EOS
#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# start-slurmd HOST (test/slurm/hosts.sh): HOST's slurmd in the foreground
h=\$1
mkdir -p "$dir/spool/d-\$h" "$dir/tmp-\$h" && chmod 1777 "$dir/tmp-\$h" || exit 1
exec "$DMESH_HOSTS_DIR/agent" "\$h" "mount --bind $dir/tmp-\$h /tmp &&
    mount -t tmpfs -o mode=755 cgroup /sys/fs/cgroup && mkdir /sys/fs/cgroup/systemd &&
    mount -t cgroup -o none,name=systemd cgroup /sys/fs/cgroup/systemd &&
    exec slurmd -D -N \$h -f $SLURM_CONF" </dev/null >>"$dir/log/slurmd-\$h.out" 2>&1
EOS
    chmod +x "$dir/start-slurmd" || exit 1
    for ((i = 1; i <= all; i++)); do
        "$dir/start-slurmd" "h$i" &
        pids+=($!)
    done
    up=0
    for _ in $(seq 1 60); do
        up=$(sinfo -h -N -o '%N %T' 2>/dev/null | grep -cE ' (idle|mixed)$')
        [ "$up" -lt "$all" ] || break
        for p in "${pids[@]}"; do kill -0 "$p" 2>/dev/null || break 2; done
        sleep 1
    done
    if [ "$up" -lt "$all" ]; then
        echo "slurm hosts: $up of $all nodes came up:" >&2
        sinfo -N >&2
        tail -n 20 "$dir"/log/*.log >&2
        exit 1
    fi
    "$@"
    exit $?
fi

n=3 spare=0 cpus=4 chroot=()
while [ $# -gt 0 ]; do
    case $1 in
    -n) n=$2; shift 2 ;;
    -e) spare=$2; shift 2 ;;
    -c) cpus=$2; shift 2 ;;
    --chroot) chroot=(--chroot "$2"); shift 2 ;;
    --) shift; break ;;
    -*) echo "slurm hosts: unknown option $1" >&2; exit 2 ;;
    *) break ;;
    esac
done
[ $# -gt 0 ] || { echo "usage: test/slurm/hosts.sh [-n N] [-e SPARE] [-c CPUS] [--chroot DIR] [--] COMMAND [ARGS...]" >&2; exit 2; }
"$top/test/hosts/hosts.sh" --check || exit $?
if [ ${#chroot[@]} -eq 0 ]; then
    slurm_install || exit 1
# looked for inside the chroot: Debian's slurmd is a link through
# /etc/alternatives, absolute, which the host would resolve in its own /etc
elif ! chroot "${chroot[1]}" /usr/bin/test -x /usr/sbin/slurmd ||
    ! chroot "${chroot[1]}" /usr/bin/test -x /usr/sbin/munged; then
    echo "slurm hosts: skipped: no Slurm in ${chroot[1]} (test/trixie/run.sh setup installs it)"
    exit 77
fi
# hosts.sh's directory (the slurm.conf, spools, logs and munged's socket)
# under /var/tmp: each slurmd gets a /tmp of its own, which hides /tmp.
# hosts.sh and everything under it in a process group of their own, to
# which a signal to this script goes on (hosts.sh alone would wait for
# its command before its teardown; the daemons' stop runs on h1 first).
TMPDIR=/var/tmp setsid "$top/test/hosts/hosts.sh" -n "$((n + spare))" "${chroot[@]}" -- \
    "$0" --inside "$n" "$spare" "$cpus" "$@" &
child=$!
trap 'kill -TERM -- "-$child" 2>/dev/null' INT TERM HUP
wait "$child"
rc=$?
while kill -0 "$child" 2>/dev/null; do
    wait "$child"
    rc=$?
done
exit "$rc"
