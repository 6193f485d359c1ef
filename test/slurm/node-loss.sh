#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# node-loss.sh [-n RUNS] [BUILD]: a fault-tolerant job that loses a node of
# its Slurm allocation. A real Slurm 24.11 in the Debian 13 chroot across 4
# network-namespace hosts (test/slurm/hosts.sh --chroot: one slurmd per
# host, 2 CPUs each); each run is `sbatch --wait` of
# examples/slurm-respawn.sbatch, as a user submits it: 4 nodes, 2 tasks
# each, --no-kill; Open MPI 5.0.7's launcher (mpiexec --with-ft ulfm) starts
# its daemons through Slurm (srun) and heat_respawn at 6 ranks on h1 to h3
# with a hybrid mesh (DMESH_EXAMPLE_HYBRID=2: x across the nodes, y inside
# each), h4 the spare. At step 37 rank 0 kills a node h2:
#   processes  kill-host -a h2: every process of the application on h2 at
#              once (a crash, the OOM killer; the node and its daemons
#              live). Each run must end by itself (bounded) with the job's
#              exit 0, recover once with both replacements on the spare
#              (hosts h1 h1 h4 h4 h3 h3, y inside one node, every copy held
#              on another host) and print the clean run's residual and
#              field, every bit.
#   node       kill-host h2: every process of h2, slurmd and Open MPI's
#              daemon included, as when the node dies. Open MPI 5.0.7's
#              launcher ends the job ("PRTE has lost communication with a
#              remote daemon"), fault tolerance or not (the user guide,
#              "Running under Slurm"); each run must end by itself
#              (bounded), and the script reports what it gave. After it
#              h2's slurmd starts again (the node comes back).
#   node, without dmesh: the same with test/hosts/host_loss_mpi.c (a
#              plain MPI program that shrinks and spawns on the spare) in
#              the same job script: the reproducer of the launcher's end.
#   node, the state on disk too: the node killed as above, heat_respawn
#              writing its blocks at every store
#              (DMESH_EXAMPLE_CHECKPOINT) and the job script told the
#              file the program writes at its end (RESTART_DONE): after
#              the launcher's end the script finds h2 silent and starts
#              the program again on h1 h3 h4, which goes on from step 30.
#              Each run must end by itself with the clean run's residual
#              and field.
# Then "k of n" for each. RUNS (default 1) runs of each case.
# BUILD: a build configured in the chroot (default: test/trixie/run.sh's
# _build-debian13-faults, else _build-debian13-openmpi); heat_respawn is
# made there when out of date. Output of each run in DMESH_HOSTS_LOG
# (default _build-hosts)/node-loss. Exit 77 (saying why) without the
# hosts, the chroot, Slurm in it, or the build.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)

if [ "${1:-}" = --inside ]; then
    # On h1 in the chroot, SLURM_CONF set: node-loss.sh --inside BUILD RUNS LOG
    build=$2 runs=$3 log=$4
    # shellcheck source=test/hosts/chroot-hosts.sh
    . "$top/test/hosts/chroot-hosts.sh"
    heat_inside "$build" "$log"
    mpicc "$top/test/hosts/host_loss_mpi.c" -o "$log/host_loss_mpi" >>"$log/make.out" 2>&1 ||
        { tail -n 20 "$log/make.out"; exit 1; }
    # TCP over the hosts' links for the launcher and the ranks, which yield
    # when idle (the hosts share this machine's cores)
    export MPIEXEC_FLAGS="--prtemca oob_tcp_if_include eth0 --mca btl self,sm,tcp
        --mca btl_tcp_if_include eth0 --mca mpi_yield_when_idle 1"
    export DMESH_EXAMPLE_HYBRID=2 DMESH_FINALIZE_BOUND=5
    # job OUT PROGRAM...: sbatch --wait of the example job script, bounded
    # (test/load-scale.sh); its exit status (124: it did not end)
    job() {
        local out=$1
        shift
        timeout -k 5 "$(sh "$top/test/load-scale.sh" 150)" sbatch --wait -N 4 --ntasks-per-node=2 \
            -o "$out" "$top/examples/slurm-respawn.sbatch" "$@" >/dev/null 2>>"$log/sbatch.err"
    }
    # idle: every node idle again (a killed node's slurmd started anew)
    # and no job left: a job that ended while a node of it was silent
    # stays completing until that node's slurmd takes Slurm's next
    # request to end it (sent again about once a minute), and holds the
    # nodes the next job needs
    idle() {
        local _
        for _ in $(seq 1 150); do
            [ "$(sinfo -h -N -o '%T' | grep -c '^idle$')" -eq 4 ] && [ -z "$(squeue -h)" ] && return 0
            sleep 1
        done
        echo "node-loss: the nodes did not come back idle:"
        sinfo -N
        squeue
        return 1
    }
    args="48 40 60"
    DMESH_EXAMPLE_KILLS='' job "$log/clean.out" ./examples/heat_respawn $args
    rc=$?
    heat_final "$log/clean.out" >"$log/want"
    if [ $rc -ne 0 ] || [ ! -s "$log/want" ]; then
        echo "node-loss: the clean job failed (exit $rc)"
        tail -n 30 "$log/clean.out"
        exit 1
    fi
    echo "node-loss: clean job on h1 h2 h3: $(tr '\n' ' ' <"$log/want")"
    start_want='heat_respawn: after 0 recoveries: hosts h1 h1 h2 h2 h3 h3; y inside one node: yes; copies held on other hosts: yes'
    after_want='heat_respawn: after 1 recoveries: hosts h1 h1 h4 h4 h3 h3; y inside one node: yes; copies held on other hosts: yes'
    p_ended=0 p_right=0 p_zero=0 n_ended=0 n_lost=0 n_right=0 m_ended=0 m_lost=0 r_ended=0 r_right=0 bad=0
    for ((i = 1; i <= runs; i++)); do
        # the node's processes
        idle || exit 1
        out=$log/processes$i.out
        t0=$SECONDS
        DMESH_EXAMPLE_KILLS=0:37 DMESH_EXAMPLE_KILL_COMMAND="$DMESH_HOSTS_DIR/kill-host -a h2" \
            job "$out" ./examples/heat_respawn $args
        rc=$?
        [ $rc -eq 124 ] || [ $rc -eq 137 ] || p_ended=$((p_ended + 1))
        [ $rc -ne 0 ] || p_zero=$((p_zero + 1))
        heat_final "$out" >"$log/got"
        if cmp -s "$log/want" "$log/got" && grep -aq 'heat_respawn: 1 recoveries' "$out" &&
            grep -aqE "$start_want" "$out" && grep -aqE "$after_want" "$out"; then
            p_right=$((p_right + 1))
            echo "node-loss: run $i, h2's processes: job exit $rc, $((SECONDS - t0)) s: recovered once on h4, the clean run's answer"
        else
            echo "node-loss: run $i, h2's processes: job exit $rc, $((SECONDS - t0)) s: WRONG"
            tail -n 30 "$out"
            bad=$((bad + 1))
        fi
        [ $rc -eq 0 ] || bad=$((bad + 1))
        # the node (slurmd and Open MPI's daemon with it), with dmesh and without
        for what in heat_respawn mpi restart; do
            idle || exit 1
            out=$log/node-$what$i.out
            t0=$SECONDS
            if [ $what = mpi ]; then
                KILL_CMD="$DMESH_HOSTS_DIR/kill-host h2" SPAWN_HOST=h4:2 job "$out" "$log/host_loss_mpi"
            elif [ $what = restart ]; then
                # the state on disk as well; the job script starts the
                # program again on the nodes that answer; the kill once
                ck=$log/ckpt$i
                rm -rf "$ck" && mkdir -p "$ck" || exit 1
                DMESH_EXAMPLE_CHECKPOINT=$ck RESTART_DONE=$ck/done DMESH_EXAMPLE_KILLS=0:37 \
                    DMESH_EXAMPLE_KILL_COMMAND="[ -e $ck/killed ] || { touch $ck/killed; $DMESH_HOSTS_DIR/kill-host h2; }" \
                    job "$out" ./examples/heat_respawn $args
            else
                DMESH_EXAMPLE_KILLS=0:37 DMESH_EXAMPLE_KILL_COMMAND="$DMESH_HOSTS_DIR/kill-host h2" \
                    job "$out" ./examples/heat_respawn $args
            fi
            rc=$?
            ended=1 lost=0 right=0
            [ $rc -ne 124 ] && [ $rc -ne 137 ] || { ended=0 bad=$((bad + 1)); }
            ! grep -aq 'PRTE has lost communication with a remote daemon' "$out" || lost=1
            heat_final "$out" >"$log/got"
            [ $what = mpi ] || ! cmp -s "$log/want" "$log/got" || right=1
            if [ $what = restart ]; then
                grep -aq '^heat_respawn: restarted from the checkpoint of step 30$' "$out" &&
                    grep -aq 'slurm-respawn: a node no longer answers; restart 1 on h1 h3 h4$' "$out" &&
                    [ -e "$ck/done" ] || right=0
                [ $right = 1 ] || bad=$((bad + 1))
            fi
            echo "node-loss: run $i, node h2 ($what): job exit $rc, $((SECONDS - t0)) s:" \
                "$([ $ended = 1 ] && echo ended by itself || echo DID NOT END)," \
                "$([ $lost = 1 ] && echo "the launcher lost h2's daemon and ended the job" || echo "no launcher message")$([ $right = 1 ] && echo ", the clean run's answer")"
            grep -a -o -E '^(start|survivors|spawn|merged|finalize|done).*|(slurm-respawn|heat_respawn): (after|restarted|[0-9]+ recoveries|a node).*' "$out" |
                sed 's/^/    /'
            if [ $what = mpi ]; then
                m_ended=$((m_ended + ended)) m_lost=$((m_lost + lost))
            elif [ $what = restart ]; then
                r_ended=$((r_ended + ended)) r_right=$((r_right + right))
            else
                n_ended=$((n_ended + ended)) n_lost=$((n_lost + lost)) n_right=$((n_right + right))
            fi
            # the node comes back (a subshell's job: hosts.sh's teardown
            # ends it with the namespaces)
            ("$DMESH_HOSTS_DIR/slurm/start-slurmd" h2 &)
        done
    done
    echo "node-loss: h2's processes: of $runs runs $p_ended ended by themselves, $p_right recovered with" \
        "the clean run's answer, $p_zero with the job's exit 0"
    echo "node-loss: node h2: of $runs runs $n_ended ended by themselves, $n_lost ended by the launcher" \
        "(lost daemon), $n_right with the clean run's answer; without dmesh: $m_ended ended by" \
        "themselves, $m_lost ended by the launcher"
    echo "node-loss: node h2, the state on disk too (the job script starts the program again): of" \
        "$runs runs $r_ended ended by themselves, $r_right went on from step 30 on h1 h3 h4 with the" \
        "clean run's answer"
    idle >/dev/null
    [ $bad -eq 0 ]
    exit $?
fi

# shellcheck source=test/hosts/chroot-hosts.sh
. "$top/test/hosts/chroot-hosts.sh"
chroot_hosts node-loss "$@"
start=$SECONDS
# test/slurm/hosts.sh skips (77, saying why) where the chroot has no Slurm
"$top/test/slurm/hosts.sh" -n 3 -e 1 -c 2 --chroot "$root" -- "$0" --inside "$build" "$runs" "$log"
rc=$?
case $rc in 0) how=ok ;; 77) how=skipped ;; *) how=FAILED ;; esac
echo "node-loss: $((SECONDS - start)) s ($how)"
exit $rc
