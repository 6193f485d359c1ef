#!/bin/sh
# test_sim (Fortran, use mpi) at 4 ranks.
exec "$MPIRUN" 4 ./test/test_sim
