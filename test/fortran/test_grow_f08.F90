! SPDX-License-Identifier: BSD-3-Clause
! dmesh_grow, dmesh_join and dmesh_respawn through the module dmesh_f08
! (TYPE(MPI_Comm) handles); the checks are in test_grow_body.inc.
program test_grow_f08
  use mpi_f08
  use dmesh_f08
  implicit none
  character(len=*), parameter :: test_name = "test_grow_f08"
#define DMESH_TEST_COMM type(MPI_Comm)
#include "test_grow_body.inc"
end program test_grow_f08
