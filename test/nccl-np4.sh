#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# make check: NCCL pairing against the NCCL test double (no GPU), 4 ranks.
exec "$MPIRUN" 4 ./test/test_nccl_pairing
