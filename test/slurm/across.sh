#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# CI: dmesh under a real Slurm across 3 network-namespace hosts and a spare
# (test/slurm/hosts.sh; nodes of 4 CPUs), with the builds of both MPIs:
#   Open MPI, srun --mpi=pmix, -N 3:
#     -n 6 and -n 12 (--ntasks-per-node 2 and 4), --distribution=block,
#       cyclic and plane=2: dmesh-info's table (a node-ordered mesh) names 3
#       hosts, each rank's node is the lowest rank of its host, and the
#       hosts group the ranks as the distribution deals them; test_comm_mpi
#       (node order, hybrid meshes, locality per dimension against each
#       host's ranks) prints the node order the distribution gives;
#     -n 6 --ntasks-per-node=2, block: test_node_find and dmesh-info
#       --hybrid 1,0:3,1;
#     -n 6 without --ntasks-per-node: Slurm fills the first node's 4 CPUs
#       (4, 1, 1): a hybrid mesh refused with DMESH_ERR_SIZE naming the
#       node sizes, test_comm_mpi's uneven case;
#     heat2d at 6 ranks, cyclic, bit for bit test/heat2d_cart on 1 rank;
#     sbatch --wait of a job script as a user writes it (#SBATCH -N 3, srun
#       inside) and of examples/slurm.sbatch: their output files checked;
#   MPICH, srun --mpi=pmi2, -N 3 -n 6 --ntasks-per-node=2 (it polls):
#     dmesh-info block and cyclic, test_comm_mpi cyclic, heat2d cyclic.
#   across.sh OPENMPI_BUILD_DIR MPICH_BUILD_DIR (either may be "-")
# Exit 77 where the hosts cannot be made (not root).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)

if [ "${1:-}" = --inside ]; then
    # On h1, SLURM_CONF set: across.sh --inside OMPI_BUILD MPICH_BUILD
    ompi=$2 mpich=$3
    out=$DMESH_HOSTS_DIR/out
    mkdir -p "$out" || exit 1
    bad=0
    # Open MPI's ranks talk TCP over the hosts' links and yield when idle
    # (the hosts share this machine's cores); srun passes the environment
    export OMPI_MCA_btl=self,vader,tcp OMPI_MCA_btl_tcp_if_include=eth0 OMPI_MCA_mpi_yield_when_idle=1
    # lows NP DIST PER: the lowest rank of each rank's node when srun deals
    # NP ranks over 3 nodes, PER each, by DIST (block, cyclic, plane=2)
    lows() {
        local np=$1 dist=$2 per=$3 r n
        declare -a node low
        for ((r = 0; r < np; r++)); do
            case $dist in
            block) n=$((r / per)) ;;
            cyclic) n=$((r % 3)) ;;
            plane=2) n=$((r / 2 % 3)) ;;
            esac
            node[r]=$n
            [ -n "${low[n]:-}" ] || low[n]=$r
        done
        for ((r = 0; r < np; r++)); do printf '%s ' "${low[node[r]]}"; done
    }
    # order NP DIST PER: test_comm_mpi's node order: the ranks by (node,
    # rank), nodes by their lowest rank
    order() {
        local l i
        read -r -a l <<<"$(lows "$@")"
        for i in "${!l[@]}"; do echo "${l[i]} $i"; done | sort -n -k1,1 -k2,2 | awk '{ printf " %s", $2 }'
    }
    # table FILE NP WANT: dmesh-info's table in FILE has NP rows on 3
    # hosts; each row's node is the lowest rank of its host; those lows are
    # WANT (lows' output)
    table() {
        awk -v np="$2" -v want="$3" '
            /^ +[0-9]+  h[0-9]+ +[0-9]+  \(/ {
                r = $1; host[r] = $2; node[r] = $3; rows++
                if (!($2 in low) || r < low[$2]) low[$2] = r
            }
            END {
                if (rows != np) { print "table: " rows " rows, not " np; exit 1 }
                for (h in low) hosts++
                if (hosts != 3) { print "table: " hosts " hosts, not 3"; exit 1 }
                split(want, w, " ")
                for (r = 0; r < np; r++) {
                    if (node[r] != low[host[r]]) { print "table: rank " r " on " host[r] ": node " node[r] ", not " low[host[r]]; exit 1 }
                    if (node[r] != w[r + 1]) { print "table: rank " r ": node " node[r] ", the distribution gives " w[r + 1]; exit 1 }
                }
                print "table: " np " ranks on 3 hosts, each node the lowest rank of its host"
            }' "$1"
    }
    # check NAME EXPECT WANT SRUN_ARGS...: one srun from the build's
    # directory; it must end as WANT (pass or fail; a failure within its
    # bound: timeout's 124 or 137 after 120 s is a hang), print EXPECT (an
    # extended regex) and skip nothing; its output is in $o
    check() {
        local name=$1 expect=$2 want=$3 rc start=$SECONDS
        shift 3
        o=$out/$(echo "$name" | tr -c 'A-Za-z0-9=\n' _)
        timeout -k 5 120 srun "$@" >"$o" 2>&1
        rc=$?
        # Open MPI 4.1 under srun on this loaded machine, about 1 run in 20:
        # a rank on h1 dies with SIGSEGV at a null address, and a rank of
        # another host then says "failed to TCP connect to a peer MPI
        # process ... Operation now in progress" (the job fails or hangs);
        # once the two ranks on h1 died so (test_comm_mpi -n 6 cyclic)
        # without that line, and the others waited until the timeout.
        # Not understood yet: that run, and only that, is run again, twice
        # at most (one retry met it again in a CI run, with SMPI's
        # simulation beside it), and each retry is printed (grep "once
        # more" in the stage's output)
        local tries=0
        while [ $rc -ne 0 ] && [ "$want" = pass ] && [ $tries -lt 2 ] &&
            grep -qE 'failed to TCP connect|Failing at address: \(nil\)' "$o"; do
            tries=$((tries + 1))
            echo "== $name: exit $rc after Open MPI's TCP connect failure or null-address SIGSEGV; once more:"
            grep -E 'Signal:|Local host|connect\(\)' "$o" | head -n 4
            timeout -k 5 120 srun "$@" >"$o" 2>&1
            rc=$?
        done
        echo "== $name: rc $rc ($((SECONDS - start)) s)"
        grep -E '^(table|dmesh_node|[0-9]+ node|uneven|100%|heat2d|field|.*DMESH_ERR)' "$o" | head -n 8
        if { [ $rc -ne 0 ] && [ "$want" = pass ]; } || { [ $rc -eq 0 ] && [ "$want" = fail ]; }; then
            echo "slurm hosts: $name: exit $rc, wanted $want"
        elif { [ $rc -eq 124 ] || [ $rc -eq 137 ]; } && [ $((SECONDS - start)) -ge 120 ]; then
            echo "slurm hosts: $name: exit $rc after $((SECONDS - start)) s: it ran past its bound of 120 s (a hang), wanted $want"
        elif grep -q skipped "$o"; then
            echo "slurm hosts: $name skipped a case"
        elif ! grep -qE "$expect" "$o"; then
            echo "slurm hosts: $name: no line matching \"$expect\""
        else
            return 0
        fi
        tail -n 30 "$o"
        bad=1
        return 1
    }
    # info NAME MPI NP PER DIST: dmesh-info's node-ordered mesh, its table
    info() {
        local flags=(-N 3 -n "$3" --ntasks-per-node="$4" --distribution="$5" --mpi="$2")
        check "$1: dmesh-info -n $3 --distribution=$5" "^ +0  h" pass "${flags[@]}" \
            tools/dmesh-info --shape 3,0 --names dp,tp --order node || return
        table "$o" "$3" "$(lows "$3" "$5" "$4")" >>"$o" || bad=1
        tail -n 1 "$o"
    }
    # comm NAME MPI NP PER DIST: test_comm_mpi, the distribution's node order
    comm() {
        check "$1: test_comm_mpi -n $3 --distribution=$5" \
            "^3 node\(s\), even rank\(s\) per node; node order$(order "$3" "$5" "$4")\$" pass \
            -N 3 -n "$3" --ntasks-per-node="$4" --distribution="$5" --mpi="$2" test/test_comm_mpi
    }
    # heat NAME MPI: heat2d at 6 ranks, cyclic, and heat2d_cart on 1 rank
    heat() {
        check "$1: heat2d -n 6, cyclic" "^field: FNV-1a" pass -N 3 -n 6 --ntasks-per-node=2 \
            --distribution=cyclic --mpi="$2" examples/heat2d || return
        grep -E '^(heat2d:|iteration|field)' "$o" >"$out/heat2d.$1"
        check "$1: heat2d_cart -n 1" "^field: FNV-1a" pass -N 1 -n 1 --mpi="$2" test/heat2d_cart || return
        grep -E '^(heat2d:|iteration|field)' "$o" >"$out/heat2d.one"
        if cmp -s "$out/heat2d.$1" "$out/heat2d.one"; then
            echo "heat2d: 6 ranks on 3 hosts = 1 rank, bit for bit ($(wc -l <"$out/heat2d.one") lines)"
        else
            echo "slurm hosts: heat2d: 6 ranks on 3 hosts and 1 rank differ"
            diff "$out/heat2d.$1" "$out/heat2d.one" | head -n 20
            bad=1
        fi
    }

    if [ "$ompi" != - ]; then
        cd "$ompi" || exit 1
        for d in block cyclic plane=2; do
            info ompi pmix 6 2 "$d"
            comm ompi pmix 6 2 "$d"
            info ompi pmix 12 4 "$d"
            comm ompi pmix 12 4 "$d"
        done
        check "ompi: test_node_find -n 6" "^dmesh_node=host: .* on host h[0-9]+$" pass \
            -N 3 -n 6 --ntasks-per-node=2 --mpi=pmix test/test_node_find
        check "ompi: dmesh-info --hybrid 1,0:3,1" "^ +5  h[0-9]+ +4  \(" pass \
            -N 3 -n 6 --ntasks-per-node=2 --mpi=pmix tools/dmesh-info --hybrid 1,0:3,1 --names dp,tp
        check "ompi: uneven 4, 1, 1: dmesh-info --hybrid 1,0:3,1" \
            "DMESH_ERR_SIZE.* 3 node\(s\) of 4, 1, 1" fail \
            -N 3 -n 6 --mpi=pmix tools/dmesh-info --hybrid 1,0:3,1 --names dp,tp
        check "ompi: uneven 4, 1, 1: test_comm_mpi" "^uneven nodes refused: .*3 node\(s\) of 4, 1, 1" pass \
            -N 3 -n 6 --mpi=pmix test/test_comm_mpi
        heat ompi pmix
        # sbatch: a job script as a user writes it, and the example's
        cat >"$out/job.sbatch" <<EOS
#!/bin/bash
#SBATCH -N 3
#SBATCH --ntasks-per-node=2
#SBATCH -o $out/job-%j.out
srun --mpi=pmix tools/dmesh-info --shape 3,0 --names dp,tp --order node
EOS
        start=$SECONDS
        timeout -k 5 120 sbatch --wait -Q "$out/job.sbatch" >/dev/null 2>&1
        rc=$?
        echo "== ompi: sbatch job.sbatch (#SBATCH -N 3): rc $rc ($((SECONDS - start)) s)"
        f=$(ls "$out"/job-*.out 2>/dev/null | head -n 1)
        if [ $rc -ne 0 ] || [ -z "$f" ] || ! table "$f" 6 "$(lows 6 block 2)"; then
            echo "slurm hosts: sbatch job.sbatch: no good table in its output"
            cat "$f" 2>/dev/null | tail -n 30
            bad=1
        fi
        start=$SECONDS
        timeout -k 5 120 sbatch --wait -Q -N 3 --ntasks-per-node=2 --cpus-per-task=1 -o "$out/example-%j.out" \
            "$top/examples/slurm.sbatch" "$ompi/tools/dmesh-info" >/dev/null 2>&1
        rc=$?
        echo "== ompi: sbatch examples/slurm.sbatch -N 3: rc $rc ($((SECONDS - start)) s)"
        f=$(ls "$out"/example-*.out 2>/dev/null | head -n 1)
        if [ $rc -ne 0 ] || [ -z "$f" ] || ! grep -qE '^ +5  h[0-9]+ +4  \(' "$f"; then
            echo "slurm hosts: sbatch examples/slurm.sbatch: no rank 5 on its node 4 in its output"
            cat "$f" 2>/dev/null | tail -n 30
            bad=1
        else
            echo "examples/slurm.sbatch: 6 ranks on 3 hosts, rank 5's node is 4"
        fi
    fi
    if [ "$mpich" != - ]; then
        cd "$mpich" || exit 1
        info mpich pmi2 6 2 block
        info mpich pmi2 6 2 cyclic
        comm mpich pmi2 6 2 cyclic
        heat mpich pmi2
    fi
    exit $bad
fi

ompi=${1:?usage: across.sh OPENMPI_BUILD_DIR MPICH_BUILD_DIR}
mpich=${2:--}
for b in "$ompi" "$mpich"; do
    [ "$b" != - ] || continue
    make -C "$b" -j2 examples/heat2d test/heat2d_cart test/test_comm_mpi test/test_node_find \
        tools/dmesh-info >/dev/null || { echo "slurm hosts: cannot build the tests in $b"; exit 1; }
done
[ "$ompi" = - ] || ompi=$(cd "$ompi" && pwd)
[ "$mpich" = - ] || mpich=$(cd "$mpich" && pwd)
start=$SECONDS
"$top/test/slurm/hosts.sh" -n 3 -e 1 -- "$top/test/slurm/across.sh" --inside "$ompi" "$mpich"
rc=$?
echo "slurm hosts: $([ $rc -eq 0 ] && echo ok || { [ $rc -eq 77 ] && echo skipped; } || echo FAILED), $((SECONDS - start)) s"
exit $rc
