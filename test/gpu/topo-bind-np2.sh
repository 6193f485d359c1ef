#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# make check: device binding end to end on a simulated GPU node, 2 ranks (so
# that MPICH builds, DMESH_TEST_MAX_NP=2, run it too).
exec "$MPIRUN" 2 ./test/gpu/test_topo_bind
