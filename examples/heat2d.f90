! SPDX-License-Identifier: BSD-3-Clause
! heat2d in Fortran: the 2-D heat equation of examples/heat2d.c on a (px, py)
! mesh, through the module dmesh (use mpi). Halo exchange with dmesh_shift on
! the dimension communicators, the residual over the flattened mesh, blocks
! gathered by the sender's coordinate (dmesh_get_coordinate_of). The numbers
! and the output come from the C kernel (heat2d_kernel.c, bound with
! ISO_C_BINDING), so that make check can compare this program's output with
! the C solvers' bit for bit (test/heat2d-compare.sh).
!
!   mpiexec -n 8 ./heat2d_fortran [GNX GNY ITERATIONS]   (default 96 80 200)
program heat2d_fortran
  use, intrinsic :: iso_c_binding
  use mpi
  use dmesh
  implicit none

  interface
    subroutine heat2d_block(n, p, c, start, size) bind(C, name="heat2d_block")
      import :: c_int
      integer(c_int), value :: n, p, c
      integer(c_int), intent(out) :: start, size
    end subroutine heat2d_block
    subroutine heat2d_init(gnx, gny, x0, nx, y0, ny, u) bind(C, name="heat2d_init")
      import :: c_int, c_double
      integer(c_int), value :: gnx, gny, x0, nx, y0, ny
      real(c_double), intent(out) :: u(*)
    end subroutine heat2d_init
    real(c_double) function heat2d_step(gnx, gny, x0, nx, y0, ny, u, v) &
        bind(C, name="heat2d_step")
      import :: c_int, c_double
      integer(c_int), value :: gnx, gny, x0, nx, y0, ny
      real(c_double), intent(in) :: u(*)
      real(c_double), intent(inout) :: v(*)
    end function heat2d_step
    subroutine heat2d_pack(nx, ny, u, out) bind(C, name="heat2d_pack")
      import :: c_int, c_double
      integer(c_int), value :: nx, ny
      real(c_double), intent(in) :: u(*)
      real(c_double), intent(out) :: out(*)
    end subroutine heat2d_pack
    subroutine heat2d_place(gnx, gny, x0, nx, y0, ny, block, field) bind(C, name="heat2d_place")
      import :: c_int, c_double
      integer(c_int), value :: gnx, gny, x0, nx, y0, ny
      real(c_double), intent(in) :: block(*)
      real(c_double), intent(inout) :: field(*)
    end subroutine heat2d_place
    subroutine heat2d_print_problem(gnx, gny, iterations) bind(C, name="heat2d_print_problem")
      import :: c_int
      integer(c_int), value :: gnx, gny, iterations
    end subroutine heat2d_print_problem
    subroutine heat2d_print_residual(iteration, residual) bind(C, name="heat2d_print_residual")
      import :: c_int, c_double
      integer(c_int), value :: iteration
      real(c_double), value :: residual
    end subroutine heat2d_print_residual
    subroutine heat2d_print_field(gnx, gny, field) bind(C, name="heat2d_print_field")
      import :: c_int, c_double
      integer(c_int), value :: gnx, gny
      real(c_double), intent(in) :: field(*)
    end subroutine heat2d_print_field
  end interface

  integer :: ierr, nprocs, dims(2), c(2), gnx, gny, iters, x0, nx, y0, ny, it, cur
  integer :: up, down, left, right, xc, yc, fc, w
  type(dmesh_t) :: mesh, flat
  real(c_double), allocatable :: u(:, :)
  real(c_double) :: res(1), glob(1)
  logical :: member

  call MPI_Init(ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  gnx = int_arg(1, 96)
  gny = int_arg(2, 80)
  iters = int_arg(3, 200)
  dims = 0
  call MPI_Dims_create(nprocs, 2, dims, ierr)
  call ok(ierr == MPI_SUCCESS)
  call dmesh_init(MPI_COMM_WORLD, "cpu", dims, mesh, ierr, names=[character(len=1) :: "x", "y"])
  call ok(ierr == DMESH_SUCCESS)
  call dmesh_flatten(mesh, flat, ierr)
  call ok(ierr == DMESH_SUCCESS)
  call dmesh_get_coordinate(mesh, c, member, ierr)
  call heat2d_block(gnx, dims(1), c(1), x0, nx)
  call heat2d_block(gny, dims(2), c(2), y0, ny)
  w = ny + 2
  allocate (u((nx + 2) * w, 2))
  call heat2d_init(gnx, gny, x0, nx, y0, ny, u(:, 1))
  call heat2d_init(gnx, gny, x0, nx, y0, ny, u(:, 2))
  call dmesh_get_comm(mesh, 0, xc, ierr)
  call dmesh_get_comm(mesh, 1, yc, ierr)
  call dmesh_get_comm(flat, 0, fc, ierr)
  call dmesh_shift(mesh, 0, 1, .false., up, down, ierr)  ! MPI_PROC_NULL at the edges
  call dmesh_shift(mesh, 1, 1, .false., left, right, ierr)
  call ok(ierr == DMESH_SUCCESS)
  if (all(c == 0)) call heat2d_print_problem(gnx, gny, iters)
  cur = 1
  do it = 1, iters
    call halo(u(:, cur))
    res(1) = heat2d_step(gnx, gny, x0, nx, y0, ny, u(:, cur), u(:, 3 - cur))
    cur = 3 - cur
    call MPI_Allreduce(res, glob, 1, MPI_DOUBLE_PRECISION, MPI_MAX, fc, ierr)
    if ((mod(it, 50) == 0 .or. it == iters) .and. all(c == 0)) &
      call heat2d_print_residual(it, glob(1))
  end do
  call gather(u(:, cur))
  call dmesh_free(flat, ierr)
  call dmesh_free(mesh, ierr)
  deallocate (u) ! the main program's own: not freed at its end
  call MPI_Finalize(ierr)

contains

  subroutine ok(cond)
    logical, intent(in) :: cond
    character(len=:), allocatable :: detail
    if (cond) return
    call dmesh_last_error(detail)
    write (0, '("heat2d_fortran: ", a)') detail
    call MPI_Abort(MPI_COMM_WORLD, 1, ierr)
  end subroutine ok

  integer function int_arg(k, default)
    integer, intent(in) :: k, default
    character(len=32) :: arg
    int_arg = default
    if (command_argument_count() >= k) then
      call get_command_argument(k, arg)
      read (arg, *) int_arg
    end if
  end function int_arg

  ! One ghost line: send sbuf to dest, receive from source into the ghost
  ! (left as it is, a boundary value, when source is MPI_PROC_NULL).
  subroutine exchange(sbuf, n, dest, source, comm, tag, rbuf)
    integer, intent(in) :: n, dest, source, comm, tag
    real(c_double), intent(in) :: sbuf(n)
    real(c_double), intent(inout) :: rbuf(n)
    real(c_double) :: tmp(n)
    integer :: e
    tmp = rbuf
    call MPI_Sendrecv(sbuf, n, MPI_DOUBLE_PRECISION, dest, tag, tmp, n, MPI_DOUBLE_PRECISION, &
                      source, tag, comm, MPI_STATUS_IGNORE, e)
    rbuf = tmp
  end subroutine exchange

  ! Element (i, j) of the C block layout is a(i * w + j + 1).
  subroutine halo(a)
    real(c_double), intent(inout) :: a(:)
    real(c_double) :: col(nx)
    integer :: i
    call exchange(a(nx * w + 2:nx * w + ny + 1), ny, down, up, xc, 0, a(2:ny + 1))
    call exchange(a(w + 2:w + ny + 1), ny, up, down, xc, 1, a((nx + 1) * w + 2:(nx + 1) * w + ny + 1))
    col = [(a(i * w + 1), i = 1, nx)]  ! ghost column 0
    call exchange([(a(i * w + ny + 1), i = 1, nx)], nx, right, left, yc, 2, col)
    a([(i * w + 1, i = 1, nx)]) = col
    col = [(a(i * w + ny + 2), i = 1, nx)]  ! ghost column ny + 1
    call exchange([(a(i * w + 2), i = 1, nx)], nx, left, right, yc, 3, col)
    a([(i * w + ny + 2, i = 1, nx)]) = col
  end subroutine halo

  ! Rank 0 of the flattened mesh places every block by its sender's coordinate.
  subroutine gather(a)
    real(c_double), intent(in) :: a(:)
    real(c_double), allocatable :: mine(:), field(:), blk(:)
    integer, allocatable :: ranks(:)
    integer :: me, n, k, kc(2), kx0, knx, ky0, kny, e
    logical :: m
    allocate (mine(nx * ny))
    call heat2d_pack(nx, ny, a, mine)
    call MPI_Comm_rank(fc, me, e)
    if (me /= 0) then
      call MPI_Send(mine, nx * ny, MPI_DOUBLE_PRECISION, 0, 9, fc, e)
      return
    end if
    call dmesh_get_size(flat, n, e)
    allocate (ranks(n), field(gnx * gny), blk((gnx / dims(1) + 1) * (gny / dims(2) + 1)))
    call dmesh_get_group_ranks(flat, 0, ranks, n, e)  ! flat rank k is root rank ranks(k+1)
    do k = 0, n - 1
      call dmesh_get_coordinate_of(mesh, ranks(k + 1), kc, m, e)
      call ok(e == DMESH_SUCCESS .and. m)
      call heat2d_block(gnx, dims(1), kc(1), kx0, knx)
      call heat2d_block(gny, dims(2), kc(2), ky0, kny)
      if (k == 0) then
        call heat2d_place(gnx, gny, kx0, knx, ky0, kny, mine, field)
      else
        call MPI_Recv(blk, knx * kny, MPI_DOUBLE_PRECISION, k, 9, fc, MPI_STATUS_IGNORE, e)
        call heat2d_place(gnx, gny, kx0, knx, ky0, kny, blk, field)
      end if
    end do
    call heat2d_print_field(gnx, gny, field)
  end subroutine gather

end program heat2d_fortran
