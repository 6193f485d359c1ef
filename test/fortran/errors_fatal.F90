! SPDX-License-Identifier: BSD-3-Clause
! Errors with the modules mpi and dmesh (test/fortran/errors_fatal_body.inc).
program errors_fatal_fortran
  use mpi
  use dmesh
  implicit none
  character(len=*), parameter :: test_name = "errors_fatal_fortran"
#define ERRORS_ERRHANDLER_T integer
#define ERRORS_HANDLER_DECL external :: counting_handler
#include "errors_fatal_body.inc"
end program errors_fatal_fortran

! The program's error handler: counts its calls and keeps the last code.
subroutine counting_handler(comm, error_code)
  use mpi
  implicit none
  integer :: comm
  integer :: error_code
  integer :: calls, code
  common /handler_state/ calls, code
  calls = calls + 1
  code = error_code
end subroutine counting_handler
