#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# test_sim (Fortran, use mpi) at 4 ranks.
exec "$MPIRUN" 4 ./test/test_sim
