! SPDX-License-Identifier: BSD-3-Clause
! The Fortran side of the CMake consumer: a (size/2, 2) mesh through the
! dmesh_f08 module, an allreduce over the inner dimension, checked.
program consumer_f08
  use mpi_f08
  use dmesh_f08
  implicit none
  integer :: ierr, rank, nprocs, tp, coords(2), total, expected, t
  logical :: member
  type(MPI_Comm) :: tp_comm
  type(dmesh_t) :: mesh

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  tp = merge(2, 1, mod(nprocs, 2) == 0)
  call dmesh_init(MPI_COMM_WORLD, "cpu", [nprocs / tp, tp], mesh, ierr, &
                  names=[character(len=2) :: "dp", "tp"])
  if (ierr /= DMESH_SUCCESS) call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  call dmesh_get_coordinate(mesh, coords, member, ierr)
  call dmesh_get_comm(mesh, 1, tp_comm, ierr)
  call MPI_Allreduce(rank, total, 1, MPI_INTEGER, MPI_SUM, tp_comm, ierr)
  expected = sum([(rank - coords(2) + t, t = 0, tp - 1)])
  print '("rank ", i0, ": Fortran tp sum ", i0, ", expected ", i0)', rank, total, expected
  call dmesh_free(mesh, ierr)
  call MPI_Finalize(ierr)
  if (total /= expected) stop 1
end program consumer_f08
