#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# hosts.sh [-n N] [-s SLOTS] [-k] [--] COMMAND [ARGS...]
# hosts.sh --check   (exit 0 where hosts can be made, else 77 saying why)
#
# Several hosts on one Linux machine, for the tests that need real nodes:
# N (default 2) network namespaces h1..hN, each with a UTS namespace of its
# own (host name hN) and an /etc/hosts that names every host, joined by veth
# links to a bridge in one more namespace (10.231.0.I/24 for host I). An rsh
# agent starts a command on another host the way ssh would on a cluster:
# inside that host's namespaces, under `env -i` with a login's PATH and HOME
# only, so that a variable reaches the ranks of the other hosts only when
# the launcher passes it (Open MPI's -x VAR). COMMAND runs on h1, as a user
# of h1 would start mpiexec, with these variables set:
#   DMESH_HOSTS        the host names, "h1 h2 ..."
#   DMESH_HOSTS_DIR    the directory of the agent, the host files and
#                      kill-host HOST (every process of HOST killed at once,
#                      as when the host dies)
#   DMESH_HOSTS_OMPI   Open MPI's mpiexec flags: --hostfile (SLOTS per host),
#                      the agent (--mca plm_rsh_agent), TCP between hosts
#   DMESH_HOSTS_MPICH  MPICH hydra's: -f (host:SLOTS lines), the agent
#                      (-launcher ssh -launcher-exec)
#   DMESH_HOSTS_CYCLIC_OMPI, DMESH_HOSTS_CYCLIC_MPICH
#                      the same with the ranks dealt out one per host in turn
#   DMESH_HOSTS_PRTE   the same for Open MPI 5 and later (PRRTE: --prtemca
#                      plm_ssh_agent)
# SLOTS: one count for every host (default 4), or one per host ("5,3").
# --chroot DIR: every host runs in the chroot DIR (a Debian made by
# test/trixie/run.sh, whose lock is taken meanwhile), COMMAND and the
# daemons the agent starts alike: hosts.sh makes a private mount namespace
# in which DIR gets /proc, /sys, /dev, a /dev/shm of its own, the source
# tree and the host files at their own paths, and each host its /etc/hosts;
# the mounts end with it.
# Everything is torn down on every exit path (the processes left in the
# namespaces, the namespaces, their bind mounts and /etc/netns entries);
# -k keeps only the directory of the agent and host files.
# Needs root, `ip netns`, `nsenter` and `unshare`; without them it exits 77
# saying why (the test suite's skip).
set -u
nhosts=2
slots=4
keep=0
check_only=0
root=
args=("$@")
while [ $# -gt 0 ]; do
    case $1 in
    -n) nhosts=$2; shift 2 ;;
    -s) slots=$2; shift 2 ;;
    -k) keep=1; shift ;;
    --check) check_only=1; shift ;;
    --chroot) root=$2; shift 2 ;;
    --) shift; break ;;
    -*) echo "hosts.sh: unknown option $1" >&2; exit 2 ;;
    *) break ;;
    esac
done
[ $# -gt 0 ] || [ "$check_only" -eq 1 ] || { echo "usage: hosts.sh [-n N] [-s SLOTS] [-k] [--] COMMAND [ARGS...]" >&2; exit 2; }
case $nhosts in
'' | *[!0-9]* | 0 | 1) echo "hosts.sh: -n $nhosts: 2 or more hosts" >&2; exit 2 ;;
esac
[ "$nhosts" -le 200 ] || { echo "hosts.sh: -n $nhosts: at most 200 hosts" >&2; exit 2; }

skip() {
    echo "hosts.sh: skipped: $*"
    exit 77
}
[ "$EUID" -eq 0 ] || skip "not root (network and UTS namespaces need root)"
for tool in ip nsenter unshare mount umount; do
    command -v "$tool" >/dev/null 2>&1 || skip "no $tool"
done
ip netns list >/dev/null 2>&1 || skip "ip netns does not work here ($(ip netns list 2>&1 | head -n 1))"
if [ -n "$root" ]; then
    [ -x "$root/usr/bin/nsenter" ] && [ -x "$root/bin/sh" ] || skip "no chroot at $root"
fi
[ "$check_only" -eq 0 ] || exit 0
# In a chroot: this script again, in a mount namespace of its own (its
# mounts end with it), holding the chroot's lock (test/trixie/run.sh's).
if [ -n "$root" ] && [ -z "${DMESH_HOSTS_PRIVATE:-}" ]; then
    exec 9>"$root.lock" || exit 1
    flock -w 900 9 || { echo "hosts.sh: $root is in use (lock $root.lock)" >&2; exit 1; }
    DMESH_HOSTS_PRIVATE=1 exec unshare --mount --propagation private bash "$0" "${args[@]}"
fi
src=$(cd "$(dirname "$0")/../.." && pwd)

# The slot count of each host.
IFS=, read -r -a count <<<"$slots"
if [ "${#count[@]}" -eq 1 ]; then
    for ((i = 1; i < nhosts; i++)); do count[i]=${count[0]}; done
fi
[ "${#count[@]}" -eq "$nhosts" ] || { echo "hosts.sh: -s $slots: one count, or one per host" >&2; exit 2; }
for c in "${count[@]}"; do
    case $c in '' | *[!0-9]* | 0) echo "hosts.sh: -s $slots: counts >= 1" >&2; exit 2 ;; esac
done

tag=dmh$$
run=/run/dmesh-hosts/$tag
dir=$(mktemp -d "${TMPDIR:-/tmp}/dmesh-hosts.XXXXXX") || exit 1
made=()

ns() { echo "$tag-h$1"; }
teardown() {
    local rc=$? n pids
    trap - EXIT INT TERM HUP
    for n in "${made[@]}"; do
        # processes left in the namespace (a launcher's daemon, a rank)
        pids=$(ip netns pids "$n" 2>/dev/null)
        [ -z "$pids" ] || kill -KILL $pids 2>/dev/null
        ip netns del "$n" 2>/dev/null
        rm -rf "/etc/netns/$n"
    done
    for f in "$run"/*.uts; do
        [ -e "$f" ] || continue
        umount "$f" 2>/dev/null
    done
    rm -rf "$run"
    rmdir /run/dmesh-hosts 2>/dev/null
    [ -z "$root" ] || { umount "$root$dir" 2>/dev/null; rmdir "$root$dir" 2>/dev/null; }
    if [ "$keep" -eq 0 ]; then rm -rf "$dir"; else echo "hosts.sh: host files kept in $dir" >&2; fi
    exit "$rc"
}
trap teardown EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

fail() {
    echo "hosts.sh: $*" >&2
    exit 1
}

# One namespace for the switch, then one per host: its link to the
# bridge, its address, its UTS namespace (held by a bind mount) and its
# /etc/hosts (ip netns exec mounts /etc/netns/NAME/hosts over /etc/hosts).
mkdir -p "$run" || fail "cannot make $run"
sw=$tag-sw
ip netns add "$sw" || fail "ip netns add $sw failed"
made+=("$sw")
ip -n "$sw" link add br0 type bridge && ip -n "$sw" link set br0 up &&
    ip -n "$sw" link set lo up || fail "no bridge in $sw"
hosts="127.0.0.1 localhost"
for ((i = 1; i <= nhosts; i++)); do
    hosts="$hosts
10.231.0.$i h$i"
done
for ((i = 1; i <= nhosts; i++)); do
    n=$(ns "$i")
    ip netns add "$n" || fail "ip netns add $n failed"
    made+=("$n")
    ip -n "$n" link add eth0 type veth peer name p$i netns "$sw" &&
        ip -n "$sw" link set "p$i" master br0 && ip -n "$sw" link set "p$i" up &&
        ip -n "$n" addr add "10.231.0.$i/24" dev eth0 && ip -n "$n" link set eth0 up &&
        ip -n "$n" link set lo up || fail "no link for h$i"
    mkdir -p "/etc/netns/$n" && printf '%s\n' "$hosts" >"/etc/netns/$n/hosts" ||
        fail "cannot write /etc/netns/$n/hosts"
    touch "$run/h$i.uts" && unshare --uts="$run/h$i.uts" hostname "h$i" ||
        fail "no UTS namespace for h$i"
done

# The chroot's mounts (private to this mount namespace).
if [ -n "$root" ]; then
    # (a chroot made by debootstrap has no /etc/hosts to mount over)
    mkdir -p "$root$dir" "$root$src" && { [ -e "$root/etc/hosts" ] || touch "$root/etc/hosts"; } &&
        mount -t proc proc "$root/proc" && mount --rbind /sys "$root/sys" &&
        mount --rbind /dev "$root/dev" &&
        mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs "$root/dev/shm" &&
        mount --bind "$src" "$root$src" && mount --bind "$dir" "$root$dir" ||
        fail "cannot mount in $root"
    # the host's CUDA and NCCL where they are (read-only, at the same place),
    # as test/trixie/run.sh mounts them for the builds that probe them
    if [ -d /usr/local/cuda/include ]; then
        mkdir -p "$root/usr/local/cuda" &&
            mount --bind -o ro "$(readlink -f /usr/local/cuda)" "$root/usr/local/cuda" ||
            fail "cannot mount /usr/local/cuda in $root"
    fi
fi

# The agent: AGENT [ssh options] HOST COMMAND...: like ssh, the command's
# words are joined and run by a shell on HOST, with a login's environment
# (Open MPI's run-as-root consent included, as a root login's profile
# would set it; nothing else of the caller's environment).
cat >"$dir/agent" <<EOF
#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# rsh agent of test/hosts/hosts.sh: AGENT [-x|-T|-o OPT...] HOST COMMAND...
while :; do
    case \$1 in
    -o | -l | -p) shift 2 ;;
    -*) shift ;;
    *) break ;;
    esac
done
host=\$1
shift
case \$host in
h[0-9]*) ;;
*) echo "agent: unknown host \$host" >&2; exit 255 ;;
esac
EOF
if [ -n "$root" ]; then
    # started in the chroot: back to hosts.sh's root (nsenter), into the
    # host's namespaces, and into the chroot again with the host's /etc/hosts
    cat >>"$dir/agent" <<EOF
exec nsenter -t $$ -m -r -w ip netns exec "$tag-\$host" nsenter --uts="$run/\$host.uts" \\
    sh -c 'mount --bind /etc/hosts "\$0/etc/hosts" && exec chroot "\$0" /usr/bin/env -i \\
    PATH=/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin HOME=/root LANG=C.UTF-8 \\
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 sh -c "\$1"' "$root" "\$*"
EOF
else
    cat >>"$dir/agent" <<EOF
[ -e "$run/\$host.uts" ] || { echo "agent: unknown host \$host" >&2; exit 255; }
exec ip netns exec "$tag-\$host" nsenter --uts="$run/\$host.uts" \\
    env -i PATH=/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin HOME=\${HOME:-/root} \\
    OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 LANG=C.UTF-8 \\
    sh -c "\$*"
EOF
fi
chmod +x "$dir/agent"

# kill-host [-a] HOST: every process of HOST killed at once (SIGKILL), as
# when a host dies: the launcher's daemon and the ranks on it; with -a the
# application's processes only (the children of Open MPI's daemon, prted,
# which lives on, itself forked once: Open MPI 5.0.7 ends the job when a daemon dies, see the
# user guide); from h1 or from the chroot alike (it runs in hosts.sh's
# mount namespace).
cat >"$dir/kill-host" <<EOF
#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# kill-host [-a] HOST (test/hosts/hosts.sh): every process of HOST killed at
# once; -a: the processes that the launcher's daemon (prted) started only
apps=0
[ "\$1" != -a ] || { apps=1; shift; }
case \$1 in
h[0-9]*) ;;
*) echo "kill-host: unknown host \$1" >&2; exit 2 ;;
esac
exec nsenter -t $$ -m -r -w sh -c 'p=\$(ip netns pids "$tag-\$0") || exit 2
if [ "\$1" = 1 ]; then
    d= a=
    for q in \$p; do
        [ "\$(cat /proc/\$q/comm 2>/dev/null)" != prted ] || d="\$d \$q"
    done
    for q in \$p; do
        case " \$d " in *" \$q "*) continue ;; esac
        s=\$(cat /proc/\$q/stat 2>/dev/null) && s=\${s##*) } && set -- \$s
        for x in \$d; do [ "\${2:-}" != "\$x" ] || a="\$a \$q"; done
    done
    p=\$a
fi
[ -n "\$p" ] || { echo "kill-host: no process on \$0" >&2; exit 1; }
kill -KILL \$p && echo "kill-host: \$0: killed \$(echo \$p | wc -w) process(es)"' "\$1" "\$apps"
EOF
chmod +x "$dir/kill-host"

# Host files: block (SLOTS per host) and cyclic (one slot each: hydra and
# --map-by node deal the ranks out host by host).
: >"$dir/hostfile"
: >"$dir/hosts.mpich"
: >"$dir/hosts1.mpich"
names=
for ((i = 1; i <= nhosts; i++)); do
    echo "h$i slots=${count[i - 1]}" >>"$dir/hostfile"
    echo "h$i:${count[i - 1]}" >>"$dir/hosts.mpich"
    echo "h$i:1" >>"$dir/hosts1.mpich"
    names="$names${names:+ }h$i"
done
# Open MPI: the agent; TCP between hosts (vader on one host), not over
# loopback; idle ranks yield the processor (the hosts share this machine's
# cores: each host's slots look free to Open MPI, which would otherwise poll).
ompi="--hostfile $dir/hostfile --mca plm_rsh_agent $dir/agent --mca btl self,vader,tcp"
ompi="$ompi --mca btl_tcp_if_include eth0 --mca oob_tcp_if_include eth0 --mca mpi_yield_when_idle 1"
mpich="-launcher ssh -launcher-exec $dir/agent"
export DMESH_HOSTS="$names" DMESH_HOSTS_DIR="$dir"
export DMESH_HOSTS_OMPI="$ompi" DMESH_HOSTS_CYCLIC_OMPI="$ompi --map-by node"
export DMESH_HOSTS_MPICH="-f $dir/hosts.mpich $mpich" DMESH_HOSTS_CYCLIC_MPICH="-f $dir/hosts1.mpich $mpich"
# Open MPI 5 and later: the launcher's parameters are PRRTE's
prte="--hostfile $dir/hostfile --prtemca plm_ssh_agent $dir/agent --prtemca oob_tcp_if_include eth0"
export DMESH_HOSTS_PRTE="$prte --mca btl self,sm,tcp --mca btl_tcp_if_include eth0 --mca mpi_yield_when_idle 1"

# COMMAND on h1 (not exec: the trap tears down after it), in the chroot at
# this directory with --chroot.
if [ -n "$root" ]; then
    ip netns exec "$(ns 1)" nsenter --uts="$run/h1.uts" sh -c 'mount --bind /etc/hosts "$0/etc/hosts" &&
        wd=$1 && shift && exec chroot "$0" /bin/sh -c '"'"'cd "$0" && exec "$@"'"'"' "$wd" "$@"' \
        "$root" "$PWD" "$@"
else
    ip netns exec "$(ns 1)" nsenter --uts="$run/h1.uts" "$@"
fi
