! SPDX-License-Identifier: BSD-3-Clause
! Errors with the modules mpi and dmesh (test/fortran/errors_fatal_body.inc).
program errors_fatal_fortran
  use mpi
  use dmesh
  implicit none
  character(len=*), parameter :: test_name = "errors_fatal_fortran"
#include "errors_fatal_body.inc"
end program errors_fatal_fortran
