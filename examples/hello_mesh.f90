! SPDX-License-Identifier: BSD-3-Clause
! hello_mesh.f90: hello_mesh.c in Fortran with `use mpi` (INTEGER handles).
! A 3-D (dp, pp, tp) mesh over MPI_COMM_WORLD; every rank prints its
! coordinate, then sums the world ranks of its tp group with an allreduce on
! the tp communicator. Stops with code 1 if the sum is wrong.
! Dimension indices, ranks and coordinates are 0-based, as in C and MPI.
!
!   mpiexec -n 8 ./hello_mesh_fortran   (8 ranks: (2,2,2); 2: (1,1,2))
program hello_mesh
  use mpi
  use dmesh
  implicit none
  integer :: ierr, rank, nprocs, tp, pp, t, coords(3), tp_comm, total, expected
  logical :: member
  type(dmesh_t) :: mesh

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  tp = merge(2, 1, mod(nprocs, 2) == 0)
  pp = merge(2, 1, mod(nprocs / tp, 2) == 0)

  call dmesh_init(MPI_COMM_WORLD, "cpu", [nprocs / (tp * pp), pp, tp], mesh, ierr, &
                  names=[character(len=2) :: "dp", "pp", "tp"])
  if (ierr /= DMESH_SUCCESS) call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  call dmesh_get_coordinate(mesh, coords, member, ierr)
  print '("rank ", i0, ": (dp, pp, tp) = (", i0, ", ", i0, ", ", i0, ")")', rank, coords

  ! tp is dimension 2 (coords(3)), the innermost: my group is the tp
  ! consecutive ranks around me, in the order of their tp coordinate.
  call dmesh_get_comm(mesh, 2, tp_comm, ierr)
  call MPI_Allreduce(rank, total, 1, MPI_INTEGER, MPI_SUM, tp_comm, ierr)
  expected = sum([(rank - coords(3) + t, t = 0, tp - 1)])

  call dmesh_free(mesh, ierr)
  call MPI_Finalize(ierr)
  if (total /= expected) then
    print '("rank ", i0, ": tp allreduce gave ", i0, ", expected ", i0)', rank, total, expected
    stop 1
  end if
end program hello_mesh
