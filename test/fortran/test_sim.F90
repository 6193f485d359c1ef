! SPDX-License-Identifier: BSD-3-Clause
! The Fortran simulation-code routines through the module dmesh (use mpi).
! The checks, shared with test_sim_f08, are in test_sim_body.inc.
program test_sim
  use mpi
  use dmesh
  implicit none
  character(len=*), parameter :: test_name = "test_sim"
#define DMESH_TEST_COMM integer
#include "test_sim_body.inc"
end program test_sim
