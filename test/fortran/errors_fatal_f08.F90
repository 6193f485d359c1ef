! SPDX-License-Identifier: BSD-3-Clause
! Errors with the modules mpi_f08 and dmesh_f08 (test/fortran/errors_fatal_body.inc).
program errors_fatal_f08
  use mpi_f08
  use dmesh_f08
  implicit none
  character(len=*), parameter :: test_name = "errors_fatal_f08"
#include "errors_fatal_body.inc"
end program errors_fatal_f08
