#!/bin/sh
# make check: the Fortran module test (test_fortran) on 4 ranks.
exec "$MPIRUN" 4 ./test/test_fortran
