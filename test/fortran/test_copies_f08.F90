! SPDX-License-Identifier: BSD-3-Clause
! Copies in memory through the module dmesh_f08 (TYPE(MPI_Info) and
! TYPE(MPI_Datatype) handles); the checks are in test_copies_body.inc.
program test_copies_f08
  use, intrinsic :: iso_c_binding, only: c_associated, c_long_long
  use mpi_f08
  use dmesh_f08
  implicit none
  character(len=*), parameter :: test_name = "test_copies_f08"
#define DMESH_TEST_INFO type(MPI_Info)
#include "test_copies_body.inc"
end program test_copies_f08
