#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# make check: the tools' options. dmesh-info --version / --config report the
# library and agree with dmesh.pc; bad options exit 2 with a message that
# names them; default names fit the shape. Run from the build directory.
. "$top_srcdir/test/check.sh"
info=./tools/dmesh-info
bench=./tools/dmesh-bench

version=$(check_pc Version)
vendor=$(check_pc mpi_vendor)
[ -n "$version" ] && [ -n "$vendor" ] || check_fail "dmesh.pc lacks Version or mpi_vendor"
check_expect 0 "dmesh-info (dmesh) $version" $info --version
check_expect 0 "library $version" $info --version
check_expect 0 "dmesh $version" $info --config
check_expect 0 "MPI: $vendor" $info --config
check_expect 0 "mpiexec: " $info --config

check_expect 2 "unknown option '--bogus'" $info --bogus
check_expect 2 "option '--shape' needs a value" $info --shape
check_expect 2 "'x' is not an integer" $info --shape 2,x
check_expect 2 "'2,,2' is not a list" $info --shape 2,,2
check_expect 2 "more than 16 values" $info --shape 1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1,1
check_expect 2 "must give 2 names" $info --shape 2,2 --names a,b,c
check_expect 2 "wants DIM:SIZES:NAMES" $info --unflatten 0
check_expect 2 "2 sizes but 1 names" $info --unflatten 0:2,2:a
check_expect 2 "'x' is not an integer" $info --unflatten x:2,2:a,b
check_expect 2 "'bogus' is not rank or node" $info --order bogus
check_expect 2 "wants IN_NODE:ACROSS" $info --hybrid 1,0
check_expect 2 "2 in-node factors but 1 across-node factors" $info --hybrid 1,0:1
check_expect 2 "no --shape or --order with it" $info --hybrid 1:1 --shape 1
if $info --config | grep -q '^hwloc: yes'; then
    check_expect 2 "'bogus' is not socket, core, numa or none" \
        $info --plan --topology /dev/null --ranks-per-node 2 --bind bogus
    check_expect 2 "unknown option '--bogus'" $info --plan --bogus 1
    check_expect 2 "'0' is not an integer" $info --plan --topology /dev/null --ranks-per-node 0
fi

check_expect 2 "unknown option '--frobnicate'" $bench --frobnicate
check_expect 2 "is not a list" $bench --shape 2,x
check_expect 2 "'3x' is not an integer" $bench --reps 3x
check_expect 2 "option '--world' needs a value" $bench --layout-only --world

# Default names fit the shape (one rank: every size is 1).
check_expect 0 "(dp=1, tp=1)" "$MPIRUN" 1 $info --shape 1,1
check_expect 0 "(d0=1, d1=1, d2=1, d3=1)" "$MPIRUN" 1 $info --shape 1,1,1,1
check_expect 0 "unflattened: DeviceMesh(cpu, (a=1, b=1, tp=1)" "$MPIRUN" 1 $info --shape 1,1 \
    --unflatten 0:1,1:a,b
# Each rank's host and node; node order and hybrid meshes.
check_expect 0 "  rank  host          node  coordinate" "$MPIRUN" 1 $info --shape 1
check_expect 0 "mesh (node order): DeviceMesh(cpu, (dp=1, tp=1)" "$MPIRUN" 1 $info --shape 1,1 \
    --order node
check_expect 0 "hybrid mesh: DeviceMesh(cpu, (dp=1, tp=1)" "$MPIRUN" 1 $info --hybrid 1,0:1,1
check_exit
