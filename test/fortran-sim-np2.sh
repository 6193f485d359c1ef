#!/bin/sh
# test_sim (Fortran, use mpi) at 2 ranks.
exec "$MPIRUN" 2 ./test/test_sim
