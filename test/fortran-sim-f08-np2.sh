#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# test_sim_f08 (Fortran, use mpi_f08) at 2 ranks.
exec "$MPIRUN" 2 ./test/test_sim_f08
