#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# mesh-env.sh NP: test_mesh_failure's "env" case at NP ranks, in processes
# started with bad DMESH_CHECK and DMESH_TIMEOUT (the library reads its
# variables once per process, so they must be set before it starts). make
# check runs it from the build directory as test/mesh-env-np2.mpi
# (test/mpirun.sh --test).
DMESH_CHECK=bogus
DMESH_TIMEOUT=never
CK_RUN_CASE=env
export DMESH_CHECK DMESH_TIMEOUT CK_RUN_CASE
exec "$MPIRUN" "$1" ./test/test_mesh_failure
