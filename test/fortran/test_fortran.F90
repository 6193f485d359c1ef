! SPDX-License-Identifier: BSD-3-Clause
! Test of the Fortran module dmesh with `use mpi` (INTEGER handles).
! The checks, shared with test_fortran_f08, are in test_fortran_body.inc.
! Prints "test_fortran: N passed, N failed" (totals over ranks) from rank 0
! and exits non-zero on any failure.
program test_fortran
  use mpi
  use dmesh
  implicit none
  character(len=*), parameter :: test_name = "test_fortran"
#define DMESH_TEST_COMM integer
#define DMESH_TEST_GROUP integer
#include "test_fortran_body.inc"
end program test_fortran
