#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# CI (.ci/run, stages debian13 and debian14): dmesh on a newer
# Debian than the host's, in a chroot built here with debootstrap. Runs as root.
#
#   test/trixie/run.sh [STEP...]
#   DMESH_CHROOT_SUITE=forky test/trixie/run.sh [STEP...]
#
# Suites: trixie (Debian 13: Open MPI 5, MPICH 4.2; the default) and forky
# (Debian 14, testing: Open MPI 6, MPICH 5, both with the MPI-5 standard ABI).
# STEPs (default: quickstart on trixie, openmpi mpich abi on forky; MPICH 4.2,
# trixie's, sits between the host's MPICH 4.0 and forky's MPICH 5: CI asks
# for its step after the ulfm step):
#   quickstart  ./quickstart.sh check in the chroot, with Open MPI at up to 8
#               ranks, built in _build-<label>-openmpi: this is the Open MPI
#               build and make check (quickstart.sh checks that it finds every
#               package it needs on Debian 13, then configures, builds, checks)
#   openmpi     the same build and make check without quickstart.sh (for TESTS=)
#   mpich       MPICC=mpicc.mpich MPIEXEC=mpiexec.mpich MPIFC=mpifort.mpich, up
#               to 4 ranks, in _build-<label>-mpich
#   ulfm        ./quickstart.sh check configured --enable-fault-injection,
#               every test under mpiexec --with-ft ulfm, up to 4 ranks (the
#               kill sweeps at every step of every call at 4, the store's
#               and the restore's too), then every test of more than 4
#               ranks in the same build at 8: ft, the respawns,
#               heat_respawn, particles, copies and the rest of the suite;
#               then ft, respawn, copies, heat_respawn and particles at 4
#               and 8 again beside one CPU hog per core (test/repeat.sh,
#               their kill sweeps left out: test-suite-load.log)
#               (_build-<label>-faults; .ci/run's stage debian13)
#   faults      Open MPI configured --enable-fault-injection, in
#               _build-<label>-faults: the fault-tolerance tests only
#               (test_ft_plan, ft at 4 and 8 ranks under mpiexec --with-ft
#               ulfm), whose kill sweep runs in such a build: a process is
#               killed at every step of every collective call; and the
#               respawns at 8 ranks
#   abi         (forky) one build against the MPI-5 standard ABI
#               (--with-mpi-abi, plain gcc, _build-<label>-abi): its C tests
#               under Open MPI's libmpi_abi.so.1 and under MPICH's; then it is
#               installed, and examples/hello_mesh.c, built once against the
#               installed dmesh.pc, runs under both
#   setup       only build (or update) the chroot
#   shell       an interactive shell in the chroot, mounts in place
# Each build starts from an empty build directory in the clone; its
# test-suite.log stays there, where .ci/run's summary counts it. <label> is
# debian13 (trixie) or debian14 (forky).
#
# Environment:
#   DMESH_CHROOT_SUITE   trixie (default) or forky
#   DMESH_CHROOT_ROOT    the chroot (default /var/tmp/dmesh-<suite>; for trixie
#                        DMESH_TRIXIE_ROOT too). Keep it out of the clone: while
#                        this script runs, the clone is bind-mounted inside it
#                        (at the clone's own path; the build does not use git,
#                        so a git worktree, whose .git is a file naming a
#                        directory outside it, works too).
#                        A finished chroot (marker file .dmesh-<suite>-ready) is
#                        reused; an unfinished one made here is rebuilt; an
#                        other non-empty directory is refused.
#   DMESH_CHROOT_MIRROR  the Debian mirror for debootstrap (for trixie
#                        DMESH_TRIXIE_MIRROR too); default: the host's own, the
#                        first entry of the main Debian archive in
#                        /etc/apt/sources.list, sources.list.d/*.list or *.sources
#   TESTS                a subset for make check, e.g.
#                        TESTS='test/test_mesh-np4.mpi' test/trixie/run.sh openmpi
#                        (with the quickstart step, which has no TESTS, the
#                        openmpi step runs instead); for the abi step, which
#                        runs a subset by default, TESTS=all is the whole suite
#   DMESH_TEST_MAX_NP    overrides the rank limits (8 Open MPI, 4 MPICH)
#   JOBS                 make -j (default: the number of CPUs)
# For the ulfm and faults steps and a shell, the host's /usr/local/cuda (CUDA and NCCL),
# when there, is bind-mounted read-only at the same place: that build probes it.
# The tests that need Open MPI 5 (mpiexec --with-ft ulfm, MPI-4 sessions) are
# ordinary make check tests that skip elsewhere: this stage runs them.
#
# forky is Debian's testing suite: where the host's debootstrap has no script
# for it, its sid script makes it (the same layout), and its Release file may
# be past its Valid-Until date when the mirror is a snapshot, so apt's
# Valid-Until check is off inside that chroot (and only there). When the
# chroot cannot be made (the archive moved on: a package is gone), the stage
# says so and exits 77 (skipped); a dmesh failure in it is a failure.
#
# Mounts (proc, sys, dev, a tmpfs on dev/shm, the clone, CUDA) are made only where
# nothing is mounted yet, and only those made here are unmounted, in reverse
# order, on every exit (normal, error, INT, TERM). One run at a time per
# chroot (a lock next to it).
set -uo pipefail
top=$(cd "$(dirname "$0")/../.." && pwd)
suite=${DMESH_CHROOT_SUITE:-trixie}
start=$SECONDS
# quickstart.sh's own package list (it checks them with dpkg-query) and the
# build's: toolchain, autotools, hwloc, Check, Open MPI, MPICH, gfortran.
packages="build-essential autoconf automake libtool pkg-config openmpi-bin libopenmpi-dev
mpich libmpich-dev libhwloc-dev hwloc check gfortran valgrind"
case $suite in
trixie)
    label=debian13 default_steps=quickstart
    # a real Slurm over the namespace hosts in this chroot (test/slurm/
    # node-loss.sh: Open MPI 5's launcher starting its daemons through it)
    packages="$packages slurm-wlm munge"
    root=${DMESH_CHROOT_ROOT:-${DMESH_TRIXIE_ROOT:-/var/tmp/dmesh-trixie}}
    mirror=${DMESH_CHROOT_MIRROR:-${DMESH_TRIXIE_MIRROR:-}}
    ;;
forky)
    # no valgrind, quickstart.sh or faults step here: the Debian 13 stages
    # run them (this stage's time goes to the MPIs that are new)
    label=debian14 default_steps="openmpi mpich abi"
    root=${DMESH_CHROOT_ROOT:-/var/tmp/dmesh-forky}
    mirror=${DMESH_CHROOT_MIRROR:-}
    packages=${packages% valgrind}
    ;;
*)
    echo "DMESH_CHROOT_SUITE=$suite: trixie or forky" >&2
    exit 1
    ;;
esac
root=${root%/}
ready=$root/.dmesh-$suite-ready
packages=$(echo $packages) # one line

say() { echo "$label: $*"; }
die() {
    say "$*" >&2
    exit 1
}
# skip MESSAGE: the chroot cannot be made here (not dmesh's failure)
skip() {
    say "SKIPPED: $*" >&2
    exit 77
}

[ "$(id -u)" -eq 0 ] || die "needs root (debootstrap, mount, chroot)"
case $root/ in
/ | [!/]*) die "the chroot $root: must be an absolute path, not /" ;;
"$top"/*) die "the chroot $root: must be outside the clone $top" ;;
esac
case $top/ in
"$root"/*) die "the clone $top is inside the chroot $root" ;;
esac
steps=${*:-$default_steps}
for s in $steps; do
    case $s in
    quickstart | ulfm | openmpi | mpich | faults | setup | shell) ;;
    abi) [ "$suite" = forky ] || die "step abi: forky only (Debian 13 has no MPI with the standard ABI)" ;;
    *) die "unknown step $s (quickstart, ulfm, openmpi, mpich, faults, abi, setup, shell)" ;;
    esac
done
if [ -n "${TESTS:-}" ]; then
    steps=$(echo " $steps " | sed 's/ quickstart / openmpi /')
fi

mkdir -p "$(dirname "$root")" || exit 1
exec 9>"$root.lock" || die "cannot open $root.lock"
flock -w 3600 9 || die "$root is in use (lock $root.lock)"

# --- mounts -----------------------------------------------------------------
mounted=() # made here, in order
child=

cleanup() {
    local i
    if [ -n "$child" ]; then
        kill -TERM -- "-$child" 2>/dev/null
        wait "$child" 2>/dev/null
        child=
    fi
    for ((i = ${#mounted[@]} - 1; i >= 0; i--)); do
        umount -R "${mounted[i]}" 2>/dev/null || {
            sleep 1
            umount -R "${mounted[i]}" 2>/dev/null
        } || {
            say "umount ${mounted[i]} busy: detached (lazy)" >&2
            umount -R -l "${mounted[i]}"
        }
    done
    mounted=()
}
trap cleanup EXIT
trap 'cleanup; exit 130' INT
trap 'cleanup; exit 143' TERM

# mount_at [-f] DIR MOUNT-ARGS...: mounts at $root/DIR unless something is
# mounted there already (someone else's: left alone, also on exit); -f mounts
# over what is there (dev/shm in the /dev mounted here: the host's).
mount_at() {
    local force=
    [ "$1" = -f ] && { force=1; shift; }
    local at=$root/$1
    shift
    mkdir -p "$at" || return 1
    if [ -z "$force" ] && mountpoint -q "$at"; then
        say "$at: already mounted, used as it is"
        return 0
    fi
    mount "$@" "$at" || return 1
    mounted+=("$at")
    # bind mounts do not pass mounts back to the host (shared propagation)
    case " $* " in
    *" --bind "* | *" --rbind "*) mount --make-rslave "$at" ;;
    esac
}

mount_all() {
    mount_at proc -t proc proc &&
        mount_at sys --rbind /sys &&
        mount_at dev --rbind /dev || return 1
    # a tmpfs of its own over the host's /dev/shm, unless /dev is someone else's
    local shm=
    [ "${mounted[${#mounted[@]} - 1]:-}" = "$root/dev" ] && shm=-f
    mount_at $shm dev/shm -t tmpfs -o mode=1777,nosuid,nodev tmpfs &&
        mount_at "${top#/}" --bind "$top" || return 1
    # for the faults step (and a shell, to work in its build), the host's
    # CUDA and NCCL (headers, and the libraries configure links against),
    # read-only where the host has them: that build compiles its NCCL paths
    # and runs them against the NCCL and CUDA test doubles (the other builds
    # stay CPU-only)
    case " $steps " in
    *" faults "* | *" ulfm "* | *" shell "*) [ ! -d /usr/local/cuda/include ] ||
        mount_at usr/local/cuda --bind -o ro "$(readlink -f /usr/local/cuda)" || return 1 ;;
    esac
    # the clone's path may be mounted already (another run): it must be this clone
    [ "$(stat -c %d:%i "$top")" = "$(stat -c %d:%i "$root$top")" ] ||
        die "$root$top is mounted but is not $top"
}

# in_chroot COMMAND...: a clean environment in the chroot; the command runs in
# its own session, so that INT and TERM stop it (and its ranks) before unmounting.
in_chroot() {
    setsid chroot "$root" /usr/bin/env -i \
        PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
        HOME=/root TERM=dumb LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive \
        OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 "$@" &
    child=$!
    wait "$child"
    local rc=$?
    child=
    return $rc
}

# --- the chroot -------------------------------------------------------------
# The host's mirror of the main Debian archive: the first deb entry whose
# suite is the host's release (or stable, testing, unstable, sid), with the
# component main, that is no security archive. Nothing here names a host.
host_mirror() {
    local code f
    code=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
    for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
        [ -f "$f" ] || continue
        case $f in
        *.sources)
            awk -v code="$code" 'BEGIN { RS = ""; FS = "\n" }
            {
                types = uris = suites = comps = ""; enabled = "yes"
                for (i = 1; i <= NF; i++) {
                    if ($i ~ /^[ \t]*#/ || $i !~ /:/) continue
                    k = tolower($i); sub(/:.*/, "", k)
                    v = $i; sub(/^[^:]*:[ \t]*/, "", v)
                    if (k == "types") types = v; else if (k == "uris") uris = v
                    else if (k == "suites") suites = v; else if (k == "components") comps = v
                    else if (k == "enabled") enabled = tolower(v)
                }
                if (enabled == "no" || (" " types " ") !~ / deb / || (" " comps " ") !~ / main /) next
                split(uris, u, /[ \t]+/); n = split(suites, s, /[ \t]+/)
                if (u[1] ~ /security/) next
                for (j = 1; j <= n; j++)
                    if (s[j] == code || s[j] ~ /^(stable|testing|unstable|sid)$/) { print u[1]; exit }
            }' "$f"
            ;;
        *)
            awk -v code="$code" '$1 == "deb" {
                i = 2
                if ($i ~ /^\[/) { while (i <= NF && $i !~ /\]$/) i++; i++ }
                if ($i ~ /security/) next
                if ($(i + 1) != code && $(i + 1) !~ /^(stable|testing|unstable|sid)$/) next
                for (j = i + 2; j <= NF; j++) if ($j == "main") { print $i; exit }
            }' "$f"
            ;;
        esac
    done | head -n 1
}

setup() {
    local mirror
    if [ -f "$ready" ]; then
        say "reusing the chroot $root"
        return 0
    fi
    # an unfinished chroot of this script ($root.partial): start again, but
    # never through a mount; a directory it did not make is left alone
    if [ -n "$(ls -A "$root" 2>/dev/null)" ] && [ ! -f "$root.partial" ]; then
        die "$root is not empty and was not made by this script: choose another DMESH_CHROOT_ROOT"
    fi
    if awk -v r="$root" '$2 == r || index($2, r "/") == 1 { found = 1 } END { exit !found }' \
        /proc/self/mounts; then
        die "$root is unfinished and has mounts: unmount them first"
    fi
    rm -rf --one-file-system "$root" && touch "$root.partial" || return 1
    mirror=${mirror:-$(host_mirror)}
    mirror=${mirror%/}
    [ -n "$mirror" ] || die "no Debian mirror in the host's apt sources: set DMESH_CHROOT_MIRROR"
    if ! command -v debootstrap >/dev/null 2>&1; then
        say "installing debootstrap"
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap >/dev/null ||
            return 2
    fi
    # a suite newer than the host's debootstrap knows: testing is made as sid is
    local script= scripts=/usr/share/debootstrap/scripts how=
    if [ ! -e "$scripts/$suite" ] && [ -e "$scripts/sid" ]; then
        script=$scripts/sid how=" with the sid script"
    fi
    say "debootstrap --variant=minbase $suite $root$how (the host's mirror)"
    timeout -k 30 1200 debootstrap --variant=minbase "$suite" "$root" "$mirror" $script \
        >"$root.debootstrap.log" 2>&1 ||
        { tail -n 30 "$root.debootstrap.log"; return 2; }
    # a throwaway system: dpkg need not sync every file
    echo force-unsafe-io >"$root/etc/dpkg/dpkg.cfg.d/dmesh-unsafe-io"
    # testing from a snapshot mirror: its Release file's Valid-Until may have
    # passed; this chroot's apt only (never the host's) takes it as it is
    if [ "$suite" = forky ]; then
        echo 'Acquire::Check-Valid-Until "false";' >"$root/etc/apt/apt.conf.d/99dmesh-no-valid-until"
    fi
    return 0
}

# The packages (again when the list changed since the chroot was made).
install_packages() {
    [ -f "$ready" ] && [ "$(cat "$ready")" = "$packages" ] && return 0
    say "apt-get install --no-install-recommends $packages"
    in_chroot timeout -k 30 1200 sh -c "apt-get update -qq && apt-get install -y -qq --no-install-recommends $packages" \
        >"$root.apt.log" 2>&1 || { tail -n 30 "$root.apt.log"; return 2; }
    echo "$packages" >"$ready" && rm -f "$root.partial"
}

# --- run --------------------------------------------------------------------
t0=$SECONDS
# debootstrap or apt failing (the archive moved on, no network) is no
# failure of dmesh: the stage says so and is skipped
setup
rc=$?
[ $rc -ne 2 ] || skip "the $suite chroot cannot be made (debootstrap failed; $root.debootstrap.log)"
[ $rc -eq 0 ] || die "setup of $root failed"
mount_all || die "mounting in $root failed"
install_packages
rc=$?
[ $rc -ne 2 ] || skip "the $suite packages cannot be installed ($root.apt.log)"
[ $rc -eq 0 ] || die "installing packages in $root failed"
say "chroot ready in $((SECONDS - t0)) s: $(in_chroot sh -c 'mpiexec --version | head -n 1; mpichversion | head -n 1' | tr '\n' ' ')"

status=0
for s in $steps; do
    case $s in
    setup) ;;
    shell)
        chroot "$root" /usr/bin/env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
            HOME=/root TERM="${TERM:-dumb}" LANG=C.UTF-8 OMPI_ALLOW_RUN_AS_ROOT=1 \
            OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 /bin/bash -i || status=1
        ;;
    *)
        in_chroot /bin/bash "$top/test/trixie/inside.sh" "$top" "$s" "${TESTS:-}" "${JOBS:-$(nproc)}" \
            "${DMESH_TEST_MAX_NP:-}" "$label" || status=1
        ;;
    esac
done
say "stage took $((SECONDS - start)) s ($(if [ $status -eq 0 ]; then echo ok; else echo FAILED; fi))"
exit $status
