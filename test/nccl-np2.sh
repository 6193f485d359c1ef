#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# make check: NCCL pairing against the NCCL test double (no GPU), 2 ranks,
# so that MPICH builds (DMESH_TEST_MAX_NP=2) run it too.
exec "$MPIRUN" 2 ./test/test_nccl_pairing
