! SPDX-License-Identifier: BSD-3-Clause
! Copies in memory through the module dmesh (INTEGER handles); the checks
! are in test_copies_body.inc.
program test_copies_fortran
  use, intrinsic :: iso_c_binding, only: c_associated, c_long_long
  use mpi
  use dmesh
  implicit none
  character(len=*), parameter :: test_name = "test_copies_fortran"
#define DMESH_TEST_INFO integer
#include "test_copies_body.inc"
end program test_copies_fortran
