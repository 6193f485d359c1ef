! SPDX-License-Identifier: BSD-3-Clause
! dmesh_start, dmesh_agree_step and dmesh_repair through the module
! dmesh_f08 (TYPE(MPI_Comm) and TYPE(MPI_Info) handles); the checks are in
! test_start_body.inc.
program test_start_f08
  use, intrinsic :: iso_c_binding, only: c_associated
  use mpi_f08
  use dmesh_f08
  implicit none
  character(len=*), parameter :: test_name = "test_start_f08"
#define DMESH_TEST_COMM type(MPI_Comm)
#define DMESH_TEST_INFO type(MPI_Info)
#include "test_start_body.inc"
end program test_start_f08
