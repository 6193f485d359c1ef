#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# node-double.sh NP: node finding under the PMPI interposer of
# test/node_double (LD_PRELOAD on the ranks only, through
# DMESH_TEST_LAUNCHER), at NP ranks of this one machine:
#   one-process shared splits (MPICH 5 built for ch4:ucx): test_node_find
#     expects one node of NP ranks (auto, host) and NP nodes (shared), also
#     as DMESH_NODE=shared sets it for meshes without the info key;
#   fake hosts, the first half "a" and the rest "b": two nodes; one host
#     per rank: NP nodes (each with test_node_find_chunk too, the path of
#     many splits: one hash per allreduce); then
#     test_copies on two hosts placed block and cyclic: no copy on its
#     owner's host, and a whole host's copies lost at once come back;
#   two names whose host hashes collide (test_node_find --collide), with
#     the split by host and with one-process splits: still two nodes, told
#     apart by their names;
#   with the CUDA double (test_topo_bind's case "split", in builds with CUDA
#     and hwloc), one-process splits and 4 devices: each device is chosen by
#     NP/4 ranks (two at 8 ranks), not every rank device 0.
# Each run is one short mpiexec.
. "$top_srcdir/test/check.sh"
np=${1:-4}
lib=./test/.libs/libnode_double.so
[ -f "$lib" ] || check_skip "no $lib (a build without shared libraries)"
lib=$(cd "$(dirname "$lib")" && pwd)/$(basename "$lib")

# run NAME VARIABLE=VALUE... -- PROGRAM: one run with the interposer.
run() {
    name=$1
    shift
    vars=
    while [ "$1" != -- ]; do
        vars="$vars $1"
        shift
    done
    shift
    out=$(DMESH_TEST_LAUNCHER="env LD_PRELOAD=$lib$vars" "$MPIRUN" "$np" "$@" 2>&1)
    rc=$?
    printf '== %s (%s)\n%s\n' "$name" "$vars" "$out"
    [ "$rc" -eq 0 ] || check_fail "$name: $* exited with $rc"
}

# halves A B: the first half of the NP ranks on host A, the rest on B.
halves() {
    list=
    i=0
    while [ "$i" -lt "$np" ]; do
        if [ "$i" -lt $((np / 2)) ]; then list=$list${list:+,}$1; else list=$list${list:+,}$2; fi
        i=$((i + 1))
    done
    echo "$list"
}

[ "$np" -le "$("$MPIRUN" --max-np)" ] || check_skip "$np ranks > DMESH_TEST_MAX_NP"
# test_node_find, and test_node_find_chunk where built (the splits' hosts
# in allreduces of one hash each: the path of many splits)
finders=./test/test_node_find
[ -x ./test/test_node_find_chunk ] && finders="$finders ./test/test_node_find_chunk"
gpu=no
[ -x ./test/gpu/test_topo_bind ] && [ $((np % 4)) -eq 0 ] && gpu=yes
# the node cases at up to 4 ranks; 8 is for the devices
[ "$np" -le 4 ] || [ "$gpu" = yes ] || check_skip "at $np ranks only the device case runs (CUDA and hwloc)"
if [ "$np" -le 4 ]; then
    for prog in $finders; do
        run "one-process shared splits" DMESH_TEST_SPLIT_ONE=1 -- $prog
        run "one-process shared splits, DMESH_NODE=shared" DMESH_TEST_SPLIT_ONE=1 DMESH_NODE=shared -- \
            $prog
        run "fake hosts" DMESH_TEST_FAKE_HOSTS="$(halves a b)" -- $prog
        run "fake hosts, one per rank" DMESH_TEST_FAKE_HOSTS="a,b,c,d,e,f,g,h" -- $prog
    done
    if [ -x ./test/test_copies ] && [ $((np % 2)) -eq 0 ]; then
        run "copies on two hosts, block" DMESH_TEST_FAKE_HOSTS="$(halves a b)" -- \
            ./test/test_copies hosts
        run "copies on two hosts, cyclic" \
            DMESH_TEST_FAKE_HOSTS="$(echo "a,b,a,b,a,b,a,b" | cut -d, -f1-"$np")" -- \
            ./test/test_copies hosts
    fi
    pair=$(./test/test_node_find --collide) || check_fail "no two names of one hash found"
    hosts=$(halves "${pair% *}" "${pair#* }")
    for prog in $finders; do
        run "colliding hosts" DMESH_TEST_EXPECT_COLLISION=1 DMESH_TEST_FAKE_HOSTS="$hosts" -- $prog
        run "colliding hosts, one-process shared splits" DMESH_TEST_EXPECT_COLLISION=1 \
            DMESH_TEST_SPLIT_ONE=1 DMESH_TEST_FAKE_HOSTS="$hosts" -- $prog
    done
fi
if [ "$gpu" = yes ]; then
    run "4 devices, one-process shared splits" DMESH_TEST_SPLIT_ONE=1 CK_RUN_CASE=split -- \
        ./test/gpu/test_topo_bind
fi
check_exit
