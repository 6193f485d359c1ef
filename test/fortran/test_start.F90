! SPDX-License-Identifier: BSD-3-Clause
! dmesh_start, dmesh_agree_step and dmesh_repair through the module dmesh
! (INTEGER handles); the checks are in test_start_body.inc.
program test_start_fortran
  use, intrinsic :: iso_c_binding, only: c_associated
  use mpi
  use dmesh
  implicit none
  character(len=*), parameter :: test_name = "test_start_fortran"
#define DMESH_TEST_COMM integer
#define DMESH_TEST_INFO integer
#include "test_start_body.inc"
end program test_start_fortran
