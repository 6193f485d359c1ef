! SPDX-License-Identifier: BSD-3-Clause
! The Fortran-only CMake consumer with `use mpi` and the module dmesh
! (INTEGER handles): a (size/2, 2) mesh, an allreduce over the outer
! dimension, checked; exits non-zero when wrong.
program consumer_mpi
  use mpi
  use dmesh
  implicit none
  integer :: ierr, rank, nprocs, tp, coords(2), total(1), expected, dp_comm, d
  logical :: member
  type(dmesh_t) :: mesh

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  tp = merge(2, 1, mod(nprocs, 2) == 0)
  call dmesh_init(MPI_COMM_WORLD, "cpu", [nprocs / tp, tp], mesh, ierr, &
                  names=[character(len=2) :: "dp", "tp"])
  if (ierr /= DMESH_SUCCESS) call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  call dmesh_get_coordinate(mesh, coords, member, ierr)
  call dmesh_get_comm(mesh, 0, dp_comm, ierr)
  call MPI_Allreduce([rank], total, 1, MPI_INTEGER, MPI_SUM, dp_comm, ierr)
  ! the dp group of rank r: coords(2) + d * tp for d = 0 .. nprocs/tp - 1
  expected = sum([(coords(2) + d * tp, d = 0, nprocs / tp - 1)])
  print '("rank ", i0, ": Fortran-only dp sum ", i0, ", expected ", i0)', rank, total(1), expected
  call dmesh_free(mesh, ierr)
  call MPI_Finalize(ierr)
  if (total(1) /= expected) stop 1
end program consumer_mpi
