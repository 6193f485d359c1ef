#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# make check: the Fortran module test (test_fortran) on 4 ranks.
exec "$MPIRUN" 4 ./test/test_fortran
