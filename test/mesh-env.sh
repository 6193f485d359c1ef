#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# mesh-env.sh NP: test_mesh_failure's "env" case at NP ranks, with bad
# DMESH_CHECK and DMESH_TIMEOUT set before the processes start: the library
# reads its variables once per process (make check runs it as
# test/mesh-env-np2.mpi, from the build directory).
DMESH_CHECK=bogus
DMESH_TIMEOUT=never
CK_RUN_CASE=env
export DMESH_CHECK DMESH_TIMEOUT CK_RUN_CASE
exec "$MPIRUN" "${1:-2}" ./test/test_mesh_failure
