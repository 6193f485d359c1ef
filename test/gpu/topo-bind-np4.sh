#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# make check: device binding end to end on a simulated GPU node (CUDA test
# double, hwloc XML topology), 4 ranks; no GPU needed.
exec "$MPIRUN" 4 ./test/gpu/test_topo_bind
