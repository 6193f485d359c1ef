#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# test_sim (Fortran, use mpi) at 2 ranks.
exec "$MPIRUN" 2 ./test/test_sim
