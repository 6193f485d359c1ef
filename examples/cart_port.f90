! SPDX-License-Identifier: BSD-3-Clause
! cart_port.f90: an MPI_Cart code and its dmesh form, side by side (the
! user guide's "Porting an MPI_Cart code"). On a 2-D process grid chosen as
! MPI_Dims_create chooses it, with dimension 0 periodic, each rank sums the
! world ranks of its row and of its column and receives the world rank of
! the rank above it along dimension 0 (a one-value halo exchange).
! with_cart does it with MPI_Dims_create, MPI_Cart_create, MPI_Cart_coords,
! MPI_Cart_sub, MPI_Cart_shift and MPI_Comm_free; with_dmesh with the dmesh
! calls that replace them. Stops with code 1 unless both give the expected
! numbers.
!
!   mpiexec -n 8 ./cart_port   (8 ranks: a 4 x 2 grid; 2: 2 x 1)
program cart_port
  use mpi
  implicit none
  integer :: ierr, rank, nprocs, c(2), d(2), mc(2), md(2), cart(3), mesh(3), expected(3)

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  call with_cart(cart, c, d)
  call with_dmesh(mesh, mc, md)
  ! rank = c(1) * d(2) + c(2): row c(1), column c(2)
  expected(1) = d(2) * c(1) * d(2) + d(2) * (d(2) - 1) / 2
  expected(2) = d(2) * d(1) * (d(1) - 1) / 2 + d(1) * c(2)
  expected(3) = modulo(c(1) - 1, d(1)) * d(2) + c(2)
  print '("rank ", i0, ": row sum ", i0, ", column sum ", i0, ", from above ", i0)', rank, mesh
  call MPI_Finalize(ierr)
  if (any(cart /= expected) .or. any(mesh /= expected) .or. any(mc /= c) .or. any(md /= d)) then
    print '("rank ", i0, ": MPI_Cart ", 7(i0, 1x), "dmesh ", 7(i0, 1x), "expected ", 3(i0, 1x))', &
      rank, cart, c, d, mesh, mc, md, expected
    stop 1
  end if

contains

  ! The MPI_Cart code. res: row sum, column sum, the upper neighbour's rank;
  ! the grid's coordinates of this rank and its dimensions.
  subroutine with_cart(res, coords, dims)
    integer, intent(out) :: res(3), coords(2), dims(2)
    integer :: grid, row, col, me, up, down, ierr, buf(1)
    dims = 0
    call MPI_Dims_create(nprocs, 2, dims, ierr)
    call MPI_Cart_create(MPI_COMM_WORLD, 2, dims, [.true., .false.], .false., grid, ierr)
    call MPI_Comm_rank(grid, me, ierr)
    call MPI_Cart_coords(grid, me, 2, coords, ierr)
    call MPI_Cart_sub(grid, [.false., .true.], row, ierr)  ! keep dim 1: my row
    call MPI_Cart_sub(grid, [.true., .false.], col, ierr)  ! keep dim 0: my column
    call MPI_Allreduce([rank], buf, 1, MPI_INTEGER, MPI_SUM, row, ierr)
    res(1) = buf(1)
    call MPI_Allreduce([rank], buf, 1, MPI_INTEGER, MPI_SUM, col, ierr)
    res(2) = buf(1)
    call MPI_Cart_shift(grid, 0, 1, up, down, ierr)  ! ranks of grid
    call MPI_Sendrecv([rank], 1, MPI_INTEGER, down, 0, buf, 1, MPI_INTEGER, up, 0, grid, &
                      MPI_STATUS_IGNORE, ierr)
    res(3) = buf(1)
    call MPI_Comm_free(row, ierr)
    call MPI_Comm_free(col, ierr)
    call MPI_Comm_free(grid, ierr)
  end subroutine with_cart

  ! The same with dmesh. The communicators are borrowed from the mesh:
  ! no MPI_Comm_free, dmesh_free releases them.
  subroutine with_dmesh(res, coords, dims)
    use dmesh
    integer, intent(out) :: res(3), coords(2), dims(2)
    integer :: row, col, up, down, ierr, buf(1)
    logical :: member
    type(dmesh_t) :: mesh
    ! shape entries 0: filled as MPI_Dims_create fills them
    call dmesh_init(MPI_COMM_WORLD, "cpu", [0, 0], mesh, ierr, names=["x", "y"])
    if (ierr /= DMESH_SUCCESS) call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
    call dmesh_get_shape(mesh, dims, ierr)  ! the sizes chosen
    call dmesh_get_coordinate(mesh, coords, member, ierr)  ! MPI_Cart_coords
    call dmesh_get_comm(mesh, 1, row, ierr)  ! MPI_Cart_sub keeping dim 1 only
    call dmesh_get_comm(mesh, 0, col, ierr)  ! MPI_Cart_sub keeping dim 0 only
    call MPI_Allreduce([rank], buf, 1, MPI_INTEGER, MPI_SUM, row, ierr)
    res(1) = buf(1)
    call MPI_Allreduce([rank], buf, 1, MPI_INTEGER, MPI_SUM, col, ierr)
    res(2) = buf(1)
    ! MPI_Cart_shift, periodic; up and down are ranks of col (dim 0's
    ! communicator), not of a grid communicator
    call dmesh_shift(mesh, 0, 1, .true., up, down, ierr)
    call MPI_Sendrecv([rank], 1, MPI_INTEGER, down, 0, buf, 1, MPI_INTEGER, up, 0, col, &
                      MPI_STATUS_IGNORE, ierr)
    res(3) = buf(1)
    call dmesh_free(mesh, ierr)
  end subroutine with_dmesh

end program cart_port
