! SPDX-License-Identifier: BSD-3-Clause
! The Fortran simulation-code routines through the module dmesh_f08 (use
! mpi_f08). The checks, shared with test_sim, are in test_sim_body.inc.
program test_sim_f08
  use mpi_f08
  use dmesh_f08
  implicit none
  character(len=*), parameter :: test_name = "test_sim_f08"
#define DMESH_TEST_COMM type(MPI_Comm)
#include "test_sim_body.inc"
end program test_sim_f08
