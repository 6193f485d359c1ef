! SPDX-License-Identifier: BSD-3-Clause
! Test of the Fortran module dmesh_f08 with `use mpi_f08` (TYPE(MPI_Comm)
! handles). Also hands a mesh to an external routine that uses the module
! dmesh with INTEGER handles: both modules share type(dmesh_t).
! The checks, shared with test_fortran, are in test_fortran_body.inc.
! Prints "test_fortran_f08: N passed, N failed" (totals over ranks) from rank 0
! and exits non-zero on any failure.
program test_fortran_f08
  use mpi_f08
  use dmesh_f08
  implicit none
  interface
    subroutine sum_ranks_int(mesh, dim, total)
      import :: dmesh_t
      type(dmesh_t), intent(in) :: mesh
      integer, intent(in) :: dim
      integer, intent(out) :: total
    end subroutine sum_ranks_int
  end interface
  character(len=*), parameter :: test_name = "test_fortran_f08"
#define DMESH_TEST_COMM type(MPI_Comm)
#define DMESH_TEST_GROUP type(MPI_Group)
#define DMESH_TEST_SUM_RANKS_INT
#include "test_fortran_body.inc"
end program test_fortran_f08

! The same allreduce from a unit that uses mpi and dmesh (INTEGER handles).
subroutine sum_ranks_int(mesh, dim, total)
  use mpi
  use dmesh
  implicit none
  type(dmesh_t), intent(in) :: mesh
  integer, intent(in) :: dim
  integer, intent(out) :: total
  integer :: comm, rank, ierr
  total = -1
  call dmesh_get_comm(mesh, dim, comm, ierr)
  if (ierr /= DMESH_SUCCESS .or. comm == MPI_COMM_NULL) return
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Allreduce(rank, total, 1, MPI_INTEGER, MPI_SUM, comm, ierr)
end subroutine sum_ranks_int
