#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# copies-host-loss.sh [-n RUNS] [BUILD]: the copies in memory when a whole
# host dies, on meshes of every kind, under Open MPI 5 with fault tolerance
# (mpiexec --with-ft ulfm) in the Debian 13 chroot that test/trixie/run.sh
# makes, on 3 hosts of test/hosts/hosts.sh (4 slots each): 8 ranks on h1
# and h2 (0-3 on h1), h3 the spare. test/hosts/copies_hosts.c runs for each
# case SHAPE:PLACEMENT:SCHEME (DMESH_COPIES_HOSTS_CASES, default every
# combination of the meshes 8, 2x4 and 4x2, the mesh's placement block (its
# positions in rank order: h1's first) and cyclic (its positions round the
# hosts: h1, h2, h1, ...), schemes partner and xor: 12 cases);
# at step 17 (after the store of step 15) or 20 (right before a store),
# from one run to the next, every process of h2 is killed at once
# (kill-host -a h2), and dmesh_respawn starts the 4 replacements on h3
# (DMESH_RESPAWN_HOSTS=h3). Each run must:
#   - end by itself (bounded at 120 s, scaled by the load) with exit 0;
#   - recover once, with every process's own state back (each restore is
#     checked on every process: no state of another process, the version
#     restored) and the final checksum of a run without a kill, so that no
#     state of h2 was lost with its host;
#   - report, before and after the recovery, every member's copies held
#     on another host than its own (dmesh_copies_get_partners and
#     dmesh_copies_get_survival), and the hosts h1/h2, then h1/h3.
# Then a control: the copies of the (2, 4) mesh placed along its dimension
# inside each host (dmesh_copies_dim=b): the same loss must end every
# process with DMESH_ERR_DATA_LOST. Prints "k of n" per case. Open MPI
# 5.0.7's own failures (its launcher losing a daemon while it starts the
# replacements, or crashing after the right answer: test/hosts/host-loss.sh
# says which; or prterun dying of SIGABRT or SIGSEGV in its spawn server,
# "PMIX ERROR ... pmix_server_dyn.c", when the survivors ask for the
# replacements: 2 of 120 runs) are reported and counted, not failed; a run
# they cut short is made again, twice at most per case.
# Cyclic is the mesh's rank map, not the launcher's placement, and its
# host is killed in a step only, not right before a store: Open MPI 5.0.7
# across hosts does not complete collectives over a communicator whose
# ranks go round the hosts once a host's processes are dead (a program
# without dmesh, 8 ranks block on two hosts, a step of allreduce, revoke,
# agree and shrink over a communicator split in the order h1, h2, h1, ...:
# 5 of 5 runs hung, the survivors in MPI_Allreduce with no error, with its
# failure detector on too; over MPI_COMM_WORLD's order it completes, 3 of
# 3). The copies' communicator of such a mesh goes round the hosts: a host
# lost right before a store hung the store (its agreement). Launched with
# --rank-by node, MPI_COMM_WORLD itself goes round the hosts. The user
# guide, "A host dies", says so.
# BUILD: a build configured in the chroot (default _build-debian13-faults,
# else _build-debian13-openmpi). RUNS: per case, default 1.
# Environment: DMESH_CHROOT_ROOT (default /var/tmp/dmesh-trixie);
# DMESH_HOSTS_LOG (default _build-hosts). Exit 77 (saying why) without the
# chroot, the build, or the hosts.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cases_all="8:block:partner 8:block:xor 8:cyclic:partner 8:cyclic:xor 2x4:block:partner 2x4:block:xor
    2x4:cyclic:partner 2x4:cyclic:xor 4x2:block:partner 4x2:block:xor 4x2:cyclic:partner 4x2:cyclic:xor"

if [ "${1:-}" = --inside ]; then
    # On h1 in the chroot, under hosts.sh: --inside BUILD RUNS LOG
    build=$2 runs=$3 log=$4
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl_tcp_disable_family=6
    (cd "$build" && make -j2 lib/libdmesh.la) >"$log/make.out" 2>&1 &&
        mpicc -O2 -I"$top/include" -I"$build/include" "$top/test/hosts/copies_hosts.c" \
            -o "$log/copies_hosts" -L"$build/lib/.libs" -ldmesh -Wl,-rpath,"$build/lib/.libs" \
            >>"$log/make.out" 2>&1 || { tail -n 20 "$log/make.out"; exit 1; }
    cd "$log" || exit 1
    steps=30
    export DMESH_RESPAWN_HOSTS=h3 DMESH_FINALIZE_BOUND=5
    # launch SHAPE PLACEMENT SCHEME: 8 ranks on h1 and h2 (the spare h3 empty)
    launch() {
        # 4 a host on h1 and h2, ranks 0-3 on h1 (h3 stays free for the
        # replacements: a job's --host would keep them off it). The
        # placement cyclic is the mesh's (copies_hosts's ORDER: its
        # positions go round the hosts), not the launcher's: with the
        # launcher's (--rank-by node), Open MPI 5.0.7 does not complete
        # an agreement across hosts once a host is lost (see above).
        # --mca coll ^han: Open MPI's hierarchical collectives (HAN, chosen
        # when a job spans hosts) are not fault-tolerant: a revoke does not
        # reach their inner communicators (the user guide, "A host dies").
        # the bound scales with the load (test/load-scale.sh)
        timeout -k 5 "$(sh "$top/test/load-scale.sh" "${DMESH_COPIES_HOSTS_BOUND:-120}")" mpiexec --with-ft ulfm $DMESH_HOSTS_PRTE \
            --mca coll ^han --map-by ppr:4:node --prtemca hwloc_default_binding_policy none -n 8 -x COPIES_HOSTS_KILL \
            -x DMESH_RESPAWN_HOSTS -x DMESH_FINALIZE_BOUND ./copies_hosts "$1" "$2" "$3" $steps "$4" ${5:+"$5"}
    }
    final() { grep -a -o -E 'copies_hosts: [0-9x]+ [a-z]+ [a-z]+: .*$' "$1"; }
    unset COPIES_HOSTS_KILL
    launch 8 block partner 0 >clean.out 2>&1
    rc=$?
    want=$(final clean.out | sed 's/.*checksum //')
    if [ $rc -ne 0 ] || [ -z "$want" ]; then
        echo "copies-host-loss: the run without a kill failed (exit $rc)"
        tail -n 30 clean.out
        exit 1
    fi
    echo "copies-host-loss: run without a kill: checksum $want"
    export COPIES_HOSTS_KILL="$DMESH_HOSTS_DIR/kill-host -a h2"
    bad=0 total=0 rights=0
    summary=
    for c in ${DMESH_COPIES_HOSTS_CASES:-$cases_all}; do
        IFS=: read -r shape place scheme <<<"$c"
        case $place in
        block) before="h1 h1 h1 h1 h2 h2 h2 h2" after="h1 h1 h1 h1 h3 h3 h3 h3" ;;
        *) before="h1 h2 h1 h2 h1 h2 h1 h2" after="h1 h3 h1 h3 h1 h3 h1 h3" ;;
        esac
        right=0 ompi=0 i=0 extra=0
        while [ $i -lt $((runs + extra)) ]; do
            i=$((i + 1)) total=$((total + 1))
            out=$c.$i.out
            t0=$SECONDS
            # the kill in a step (17, after the store of 15) or right before a
            # store (20), from one run to the next; cyclic: in a step only
            # (Open MPI 5.0.7: see above)
            kill=$((total % 2 ? 17 : 20))
            [ "$place" = block ] || kill=17
            launch "$shape" "$place" "$scheme" $kill >"$out" 2>&1
            rc=$?
            ok=0
            if [ "$(final "$out")" = "copies_hosts: $shape $place $scheme: 1 recoveries, 0 restores gave another's state, checksum $want" ] &&
                grep -aq "after 0 recoveries: hosts $before; copies held on other hosts: yes" "$out" &&
                grep -aq "after 1 recoveries: hosts $after; copies held on other hosts: yes" "$out"; then
                ok=1
            fi
            note=
            if [ $ok -eq 1 ] && [ $rc -eq 0 ]; then
                right=$((right + 1)) what="the right answer"
            elif grep -aq 'PRTE has lost communication with a remote daemon' "$out" && [ $ok -eq 0 ]; then
                what="Open MPI: the launcher lost a daemon and ended the job (reported)"
                ompi=$((ompi + 1))
                [ $extra -ge 2 ] || extra=$((extra + 1))
            elif grep -aq 'PMIX ERROR: .*pmix_server_dyn\.c' "$out" && [ $rc -gt 128 ] && [ $rc -ne 137 ] &&
                [ $ok -eq 0 ]; then
                what="Open MPI: the launcher died of signal $((rc - 128)) in its spawn server (reported)"
                ompi=$((ompi + 1))
                [ $extra -ge 2 ] || extra=$((extra + 1))
            elif [ $ok -eq 1 ] && [ $rc -gt 128 ] && [ $rc -ne 137 ]; then
                right=$((right + 1)) ompi=$((ompi + 1))
                what="the right answer; Open MPI: the launcher ended by signal $((rc - 128)) after it (reported)"
            else
                bad=$((bad + 1))
                what="FAILED (exit $rc): $(grep -a -o -E 'copies_hosts: .*' "$out" | tr '\n' ' ')"
            fi
            echo "copies-host-loss: $c run $i (kill at step $kill): exit $rc, $((SECONDS - t0)) s: $what"
            case $what in FAILED*) tail -n 30 "$out" ;; esac
        done
        rights=$((rights + right))
        summary="$summary $c:$right/$((i - ompi))"
    done
    # The control: the copies along b of the (2, 4) mesh, inside each host
    # (dmesh_copies_dim): the same loss must end every process with
    # DMESH_ERR_DATA_LOST, saying so, by itself (the test can fail)
    launch 2x4 block partner 17 b >control.out 2>&1
    rc=$?
    if [ $rc -ne 0 ] && [ $rc -ne 124 ] && [ $rc -ne 137 ] &&
        grep -aq "after 0 recoveries: hosts h1 h1 h1 h1 h2 h2 h2 h2; copies held on other hosts: no" control.out &&
        grep -aq "copies_hosts: the copies: DMESH_ERR_DATA_LOST" control.out; then
        echo "copies-host-loss: control (copies inside each host): DMESH_ERR_DATA_LOST, exit $rc, as it must"
    else
        echo "copies-host-loss: control (copies inside each host): FAILED (exit $rc, no DMESH_ERR_DATA_LOST)"
        tail -n 30 control.out
        bad=$((bad + 1))
    fi
    echo "copies-host-loss: right answer, k of n per case:$summary"
    echo "copies-host-loss: $rights of $total runs right, $bad failed"
    [ $bad -eq 0 ]
    exit $?
fi

# shellcheck source=test/hosts/chroot-hosts.sh
. "$top/test/hosts/chroot-hosts.sh"
chroot_hosts copies-host-loss "$@"
start=$SECONDS
"$top/test/hosts/hosts.sh" -n 3 -s 4 --chroot "$root" "$0" --inside "$build" "$runs" "$log"
rc=$?
echo "copies-host-loss: $((SECONDS - start)) s ($([ $rc -eq 0 ] && echo ok || echo FAILED))"
exit $rc
