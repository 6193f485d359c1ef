! SPDX-License-Identifier: BSD-3-Clause
! dmesh_grow, dmesh_join and dmesh_respawn through the module dmesh
! (INTEGER handles); the checks are in test_grow_body.inc.
program test_grow_fortran
  use mpi
  use dmesh
  implicit none
  character(len=*), parameter :: test_name = "test_grow_fortran"
#define DMESH_TEST_COMM integer
#include "test_grow_body.inc"
end program test_grow_fortran
