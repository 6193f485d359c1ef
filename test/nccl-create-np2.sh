#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# make check: NCCL creation strategies through the mesh API, on the NCCL test double, 2 ranks.
exec "$MPIRUN" 2 ./test/test_nccl_create
