! SPDX-License-Identifier: BSD-3-Clause
! Dimensions by index or by name through the generic interfaces of the
! module dmesh_f08 with `use mpi_f08` (TYPE(MPI_Comm) handles); the checks,
! shared with test_names, are in test_names_body.inc. Prints
! "test_names_f08: N passed, N failed" (totals over ranks) from rank 0 and
! exits non-zero on any failure.
program test_names_f08
  use mpi_f08
  use dmesh_f08
  implicit none
  character(len=*), parameter :: test_name = "test_names_f08"
#define DMESH_TEST_COMM type(MPI_Comm)
#define DMESH_TEST_GROUP type(MPI_Group)
#include "test_names_body.inc"
end program test_names_f08
