! SPDX-License-Identifier: BSD-3-Clause
! Dimensions by index or by name through the generic interfaces of the
! module dmesh with `use mpi` (INTEGER handles); the checks, shared with
! test_names_f08, are in test_names_body.inc. Prints "test_names: N passed,
! N failed" (totals over ranks) from rank 0 and exits non-zero on any
! failure.
program test_names
  use mpi
  use dmesh
  implicit none
  character(len=*), parameter :: test_name = "test_names"
#define DMESH_TEST_COMM integer
#define DMESH_TEST_GROUP integer
#include "test_names_body.inc"
end program test_names
