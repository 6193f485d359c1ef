! SPDX-License-Identifier: BSD-3-Clause
! Errors with the modules mpi_f08 and dmesh_f08 (test/fortran/errors_fatal_body.inc).
program errors_fatal_f08
  use mpi_f08
  use dmesh_f08
  implicit none
  character(len=*), parameter :: test_name = "errors_fatal_f08"
#define ERRORS_ERRHANDLER_T type(MPI_Errhandler)
#define ERRORS_HANDLER_DECL procedure(MPI_Comm_errhandler_function) :: counting_handler
#include "errors_fatal_body.inc"
end program errors_fatal_f08

! The program's error handler: counts its calls and keeps the last code.
subroutine counting_handler(comm, error_code)
  use mpi_f08
  implicit none
  type(MPI_Comm) :: comm
  integer :: error_code
  integer :: calls, code
  common /handler_state/ calls, code
  calls = calls + 1
  code = error_code
end subroutine counting_handler
