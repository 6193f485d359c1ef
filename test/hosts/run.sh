#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# run.sh OMPI_BUILD [MPICH_BUILD]: the node-aware tests across real hosts
# (test/hosts/hosts.sh: network-namespace hosts on this machine), from
# build directories configured for Open MPI and for MPICH (either may be
# "-": left out):
#   2 hosts, 4 ranks each (MPICH: 2, it polls): test_node_find (the nodes
#     of every rule: one per host), test_comm_mpi with block and cyclic
#     placement (node order, hybrid meshes and locality checked against
#     each host's ranks: its node cases must run, none may skip), heat2d
#     across the hosts, cyclic, bit for bit the serial run on one host,
#     dmesh-info of a hybrid and a node-ordered mesh (each rank's host
#     beside its coordinate; the copies' default placement surviving a
#     host's loss for every rank); with Open MPI, DMESH_NODE set on h1 only (no
#     -x: the other host's ranks do not see it) fails with a detail that
#     says to pass it, and passes with -x DMESH_NODE (MPICH's hydra passes
#     the environment to every host);
#   2 uneven hosts, 5 + 3 ranks (MPICH: 3 + 1): a hybrid mesh refused with
#     DMESH_ERR_SIZE naming the node sizes;
#   3 hosts, 2 ranks each: test_node_find, test_comm_mpi (block and
#     cyclic) and dmesh-info.
# Open MPI's runs are not oversubscribed as it sees them (each host's
# slots are free): hosts.sh's flags make idle ranks yield the processor.
# Exit 77 when the hosts cannot be made here (hosts.sh says why).
# Environment: DMESH_HOSTS_LOG, a directory for each run's output (default:
# _build-hosts under the source tree).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
hosts=$top/test/hosts/hosts.sh

if [ "${1:-}" = --inside ]; then
    # On h1, under hosts.sh: run.sh --inside MPI BUILD CHECKS...
    mpi=$2 build=$3
    shift 3
    cd "$build" || exit 1
    export MPIRUN=$build/test/mpirun.sh DMESH_TEST_MAX_NP=16
    if [ "$mpi" = ompi ]; then
        block=$DMESH_HOSTS_OMPI cyclic=$DMESH_HOSTS_CYCLIC_OMPI
    else
        block=$DMESH_HOSTS_MPICH cyclic=$DMESH_HOSTS_CYCLIC_MPICH
    fi
    nh=$(echo $DMESH_HOSTS | wc -w)
    np=0
    most=0
    while read -r _ s; do
        np=$((np + ${s#slots=}))
        [ "${s#slots=}" -le "$most" ] || most=${s#slots=}
    done <"$DMESH_HOSTS_DIR/hostfile"
    bad=0
    # check NAME FLAGS EXPECT PROGRAM...: one run; it must pass (fail, with
    # want=fail, within its bound: mpirun.sh's 124 is a hang), print EXPECT
    # (an extended regex), and skip nothing.
    want=pass
    check() {
        local name=$1 flags=$2 expect=$3 rc start=$SECONDS
        shift 3
        out=$(DMESH_TEST_MPIEXEC_FLAGS="$flags" "$@" 2>&1)
        rc=$?
        printf '== %s hosts, %s ranks, %s: %s (%s s)\n%s\n' "$nh" "$np" "$mpi" "$name" "$((SECONDS - start))" \
            "$(printf '%s\n' "$out" | grep -vE '^(Running suite|$)')"
        if [ $rc -ne 0 ] && [ $want = pass ]; then
            echo "hosts: $name failed ($rc)"
            bad=1
        elif [ $rc -eq 0 ] && [ $want = fail ]; then
            echo "hosts: $name passed where it must fail"
            bad=1
        elif [ $rc -eq 124 ]; then
            echo "hosts: $name ran past its bound (a hang) where it must fail"
            bad=1
        elif printf '%s\n' "$out" | grep -q 'skipped'; then
            echo "hosts: $name skipped a case"
            bad=1
        elif ! printf '%s\n' "$out" | grep -qE "$expect"; then
            echo "hosts: $name: no line matching \"$expect\""
            bad=1
        fi
    }
    for what in "$@"; do
        case $what in
        node_find)
            check "test_node_find" "$block" "^dmesh_node=host: .* on host h1$" \
                "$MPIRUN" "$np" ./test/test_node_find
            ;;
        comm_block)
            check "test_comm_mpi, block" "$block" "^$nh node\(s\), even .*node order( [0-9]+)+$" \
                "$MPIRUN" "$np" ./test/test_comm_mpi
            ;;
        comm_cyclic)
            check "test_comm_mpi, cyclic" "$cyclic" "^$nh node\(s\), even .*node order 0 $nh( [0-9]+)+$" \
                "$MPIRUN" "$np" ./test/test_comm_mpi
            ;;
        comm_uneven)
            check "test_comm_mpi, uneven" "$block" "^uneven nodes refused: .*$nh node\(s\) of" \
                "$MPIRUN" "$np" ./test/test_comm_mpi
            ;;
        heat2d)
            # heat2d on dmesh across the hosts, cyclic, against the MPI_Cart_*
            # solver on 1 rank on one host: bit for bit
            check "heat2d, cyclic" "$cyclic" "^field: FNV-1a" "$MPIRUN" "$np" ./examples/heat2d
            printf '%s\n' "$out" | grep -E '^(heat2d:|iteration|field)' >"$DMESH_HOSTS_DIR/heat2d.hosts"
            "$MPIRUN" 1 ./test/heat2d_cart 2>&1 | grep -E '^(heat2d:|iteration|field)' >"$DMESH_HOSTS_DIR/heat2d.one"
            if [ -s "$DMESH_HOSTS_DIR/heat2d.one" ] && cmp -s "$DMESH_HOSTS_DIR/heat2d.hosts" "$DMESH_HOSTS_DIR/heat2d.one"; then
                echo "heat2d: $np ranks on $nh hosts = 1 rank on one host, bit for bit ($(wc -l <"$DMESH_HOSTS_DIR/heat2d.one") lines)"
            else
                echo "hosts: heat2d: $np ranks on $nh hosts and 1 rank on one host differ"
                diff "$DMESH_HOSTS_DIR/heat2d.hosts" "$DMESH_HOSTS_DIR/heat2d.one" | head -n 20
                bad=1
            fi
            ;;
        info)
            # each rank's host beside its coordinate, a hybrid mesh whose tp
            # is one host's ranks
            check "dmesh-info --hybrid 1,0:$nh,1" "$block" "^ +$((np - 1))  h$nh +[0-9]+  \(" \
                "$MPIRUN" "$np" ./tools/dmesh-info --hybrid "1,0:$nh,1" --names dp,tp
            # the copies' default placement: every copy off its owner's host,
            # while no host has more than half of the ranks
            if [ $((2 * most)) -le "$np" ] && ! printf '%s\n' "$out" |
                grep -qE "^copies in memory, partner \(default placement\): the copies of $np of $np process\(es\) survive the loss of their node"; then
                echo "hosts: dmesh-info --hybrid 1,0:$nh,1: a copy that its host's loss would take"
                bad=1
            fi
            check "dmesh-info --order node, cyclic" "$cyclic" "^ +1  h2 +1  \(1,0\)" \
                "$MPIRUN" "$np" ./tools/dmesh-info --shape "$nh,0" --names dp,tp --order node
            ;;
        env)
            # DMESH_NODE set on h1 only (Open MPI passes the caller's
            # environment to the other hosts' ranks only with -x): a mismatch
            # whose detail says so
            want=fail
            check "DMESH_NODE on h1 only" "$block" "DMESH_ERR_MISMATCH.*dmesh_node auto, rank 0 host.*-x DMESH_NODE" \
                env DMESH_NODE=host "$MPIRUN" "$np" ./tools/dmesh-info --shape "$nh,0" --order node
            want=pass
            check "DMESH_NODE on every host (-x)" "$block -x DMESH_NODE" "^ +$((np - 1))  h$nh " \
                env DMESH_NODE=host "$MPIRUN" "$np" ./tools/dmesh-info --shape "$nh,0" --order node
            ;;
        uneven)
            # uneven hosts: a hybrid mesh refused, naming the node sizes
            want=fail
            check "dmesh-info --hybrid 1,0:$nh,1, uneven" "$block" "DMESH_ERR_SIZE.* $nh node\(s\) of [0-9]+, [0-9]+" \
                "$MPIRUN" "$np" ./tools/dmesh-info --hybrid "1,0:$nh,1" --names dp,tp
            want=pass
            ;;
        esac
    done
    exit $bad
fi

ompi=${1:?usage: run.sh OMPI_BUILD [MPICH_BUILD]}
mpich=${2:--}
log=${DMESH_HOSTS_LOG:-$top/_build-hosts}
"$hosts" --check || exit $?
mkdir -p "$log" && rm -f "$log"/*.log && touch "$log/.written" || { echo "hosts: cannot write in $log"; exit 1; }
failed=0
skip=0
ran=0

# hosts N SLOTS MPI BUILD CHECKS...: one set of hosts, the checks on them.
hosts() {
    local n=$1 slots=$2 mpi=$3 build=$4 rc start=$SECONDS
    shift 4
    [ "$build" != - ] || return 0
    (cd "$build" && make -j2 examples/heat2d test/heat2d_cart test/test_comm_mpi test/test_node_find \
        tools/dmesh-info >/dev/null) || { echo "hosts: cannot build the tests in $build"; failed=1; return; }
    "$hosts" -n "$n" -s "$slots" "$0" --inside "$mpi" "$(cd "$build" && pwd)" "$@" \
        >"$log/$mpi-$n-$slots.log" 2>&1
    rc=$?
    if [ $rc -eq 77 ]; then
        cat "$log/$mpi-$n-$slots.log"
        skip=1
        return
    fi
    ran=$((ran + 1))
    grep -E '^(==|hosts:|uneven|[0-9]+ node|100%|[0-9]+ rank\(s\):|heat2d:|dmesh-info:|copies in memory|  rank| +[0-9]+  h[0-9])' "$log/$mpi-$n-$slots.log"
    echo "hosts: $n hosts ($slots ranks each), $mpi: $([ $rc -eq 0 ] && echo ok || echo FAILED), $((SECONDS - start)) s"
    [ $rc -eq 0 ] || { tail -n 40 "$log/$mpi-$n-$slots.log"; failed=1; }
}

hosts 2 4 ompi "$ompi" node_find comm_block comm_cyclic heat2d info env
hosts 2 5,3 ompi "$ompi" uneven
hosts 3 2 ompi "$ompi" node_find comm_block comm_cyclic info
hosts 2 2 mpich "$mpich" node_find comm_block comm_cyclic heat2d info
hosts 2 3,1 mpich "$mpich" uneven
hosts 3 2 mpich "$mpich" node_find comm_block comm_cyclic info
[ "$skip" -eq 0 ] || [ "$ran" -gt 0 ] || exit 77
[ "$skip" -eq 0 ] || { echo "hosts: some runs were skipped"; exit 1; }
exit $failed
