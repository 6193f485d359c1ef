#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# make check: the Fortran module test (test_fortran_f08) on 2 ranks.
exec "$MPIRUN" 2 ./test/test_fortran_f08
