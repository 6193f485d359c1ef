! Test of the Fortran module dmesh_f08 with `use mpi_f08` (TYPE(MPI_Comm)
! handles). Also hands a mesh to an external routine that uses the module
! dmesh with INTEGER handles: both modules share type(dmesh_t).
! Run under mpiexec on any number of ranks (make check: 4 and 2). The mesh is
! (dp, tp) = (2, n/2) on an even world, (1, n) otherwise. Checks coordinates,
! communicators (membership, order, a real allreduce), a slice, a flatten,
! an unflatten, concatenate, the error convention and the stack.
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
  integer :: ierr, rank, nprocs, npass, nfail, totals(2), sdp, stp, i, nd
  integer :: coords(DMESH_MAX_DIMS), shape(DMESH_MAX_DIMS), ranks(64), nranks, r
  type(MPI_Comm) :: comm, comm2
  integer :: res
  logical :: member, eq
  character(len=:), allocatable :: str
  type(dmesh_t) :: root, sl, sl2, flat, flat2, unf, cat, cur, cre, fc
  type(dmesh_cache_info_t) :: before, after

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nprocs, ierr)
  npass = 0
  nfail = 0
  if (mod(nprocs, 2) == 0) then
    sdp = 2
  else
    sdp = 1
  end if
  stp = nprocs / sdp

  ! Creation and local queries.
  call check(dmesh_is_null(root), "a new handle is DMESH_NULL")
  call dmesh_init(MPI_COMM_WORLD, "cpu", [sdp, stp], root, ierr, &
                  names=[character(len=2) :: "dp", "tp"])
  call check(ierr == DMESH_SUCCESS .and. .not. dmesh_is_null(root), "dmesh_init")
  call dmesh_get_ndims(root, nd, ierr)
  call check(ierr == DMESH_SUCCESS .and. nd == 2, "ndims")
  call dmesh_get_shape(root, shape, ierr)
  call check(ierr == DMESH_SUCCESS .and. shape(1) == sdp .and. shape(2) == stp, "shape")
  call dmesh_get_size(root, i, ierr)
  call check(i == nprocs, "size")
  call dmesh_get_dim_name(root, 1, str, ierr)
  call check(ierr == DMESH_SUCCESS .and. str == "tp", "dim name 1 is tp (0-based)")
  call dmesh_get_dim_index(root, "dp", i, ierr)
  call check(ierr == DMESH_SUCCESS .and. i == 0, "dim index of dp is 0")
  call dmesh_get_device_type(root, str, ierr)
  call check(str == "cpu", "device type")
  call dmesh_get_device(root, i, ierr)
  call check(i == -1, "device of a cpu mesh")

  ! Coordinates and local ranks: (r / stp, r mod stp).
  coords = -7
  call dmesh_get_coordinate(root, coords, member, ierr)
  call check(ierr == DMESH_SUCCESS .and. member, "member")
  call check(coords(1) == rank / stp .and. coords(2) == mod(rank, stp), "coordinate")
  call check(coords(3) == -7, "coordinate writes ndims entries only")
  call dmesh_get_local_rank(root, 0, r, ierr)
  call check(r == rank / stp, "local rank on dp")
  call dmesh_get_local_rank(root, 1, r, ierr)
  call check(r == mod(rank, stp), "local rank on tp")

  ! Groups and communicators of each dimension.
  call dmesh_get_group_ranks(root, 1, ranks, nranks, ierr)
  call check(ierr == DMESH_SUCCESS .and. nranks == stp, "tp group size")
  call check(all(ranks(1:stp) == [((rank / stp) * stp + i, i = 0, stp - 1)]), "tp group")
  call dmesh_get_group_ranks(root, 0, ranks, nranks, ierr)
  call check(nranks == sdp .and. all(ranks(1:sdp) == [(mod(rank, stp) + i * stp, i = 0, sdp - 1)]), &
             "dp group")
  call check_comm(root, 0, "dp")
  call check_comm(root, 1, "tp")
  call dmesh_get_ranks(root, ranks, nranks, ierr)
  call check(nranks == nprocs .and. all(ranks(1:nprocs) == [(i, i = 0, nprocs - 1)]), "mesh tensor")

  ! A slice shares the communicator of its dimension.
  call dmesh_slice(root, ["tp"], sl, ierr)
  call check(ierr == DMESH_SUCCESS, "slice tp")
  call dmesh_get_ndims(sl, nd, ierr)
  call check(nd == 1, "slice has 1 dimension")
  call dmesh_get_comm(sl, 0, comm, ierr)
  call dmesh_get_comm(root, 1, comm2, ierr)
  call MPI_Comm_compare(comm, comm2, res, ierr)
  call check(res == MPI_IDENT, "slice shares the tp communicator")
  call check_comm(sl, 0, "slice tp")
  call dmesh_slice(root, [character(len=2) :: "dp", "tp"], sl2, ierr)
  call dmesh_equal(sl2, root, eq, ierr)
  call check(ierr == DMESH_SUCCESS .and. eq, "slicing every name gives an equal mesh")

  ! Flatten: one communicator over every rank, ordered as the world.
  call dmesh_flatten(root, flat, ierr)
  call check(ierr == DMESH_SUCCESS, "flatten")
  call dmesh_get_dim_name(flat, 0, str, ierr)
  call check(str == "dp_tp", "flatten default name")
  call dmesh_get_local_rank(flat, 0, r, ierr)
  call check(r == rank, "flat local rank")
  call check_comm(flat, 0, "flat")
  call dmesh_slice(root, ["dp_tp"], flat2, ierr)
  call dmesh_equal(flat, flat2, eq, ierr)
  call check(ierr == DMESH_SUCCESS .and. eq, "slice by the flattened name")

  ! Unflatten back into (a, b): the root's groups, from the cache.
  call dmesh_get_cache_info(flat, before, ierr)
  call dmesh_unflatten(flat, 0, [sdp, stp], unf, ierr, names=["a", "b"])
  call check(ierr == DMESH_SUCCESS, "unflatten")
  call dmesh_get_cache_info(unf, after, ierr)
  call check(after%comms_mpi == before%comms_mpi .and. after%hits > before%hits, &
             "unflatten into the root's sizes reuses its communicators")
  call dmesh_get_comm(unf, 1, comm, ierr)
  call MPI_Comm_compare(comm, comm2, res, ierr)
  call check(res == MPI_IDENT, "unflattened b is the tp communicator")
  call dmesh_get_coordinate(unf, coords, member, ierr)
  call check(coords(1) == rank / stp .and. coords(2) == mod(rank, stp), "unflattened coordinate")

  ! Concatenate the two slices back into the root.
  call dmesh_slice(root, ["dp"], sl2, ierr)
  call dmesh_concatenate([sl2, sl], cat, ierr)
  call dmesh_equal(cat, root, eq, ierr)
  call check(ierr == DMESH_SUCCESS .and. eq, "concatenate(dp, tp) equals the root")

  ! An explicit rank list, reversed: coordinate of r is that of n-1-r.
  call dmesh_create(MPI_COMM_WORLD, "cpu", [sdp, stp], [(nprocs - 1 - i, i = 0, nprocs - 1)], &
                    cre, ierr, names=[character(len=2) :: "dp", "tp"])
  call check(ierr == DMESH_SUCCESS, "dmesh_create")
  call dmesh_get_coordinate(cre, coords, member, ierr)
  call check(coords(1) == (nprocs - 1 - rank) / stp .and. &
             coords(2) == mod(nprocs - 1 - rank, stp), "dmesh_create coordinate")
  call check_comm(cre, 1, "create tp")

  ! from_comms with the root's own communicators gives an equal mesh.
  call dmesh_get_comm(root, 0, comm, ierr)
  call dmesh_from_comms(MPI_COMM_WORLD, "cpu", [comm, comm2], [sdp, stp], fc, ierr, &
                        ranks=[(i, i = 0, nprocs - 1)], names=[character(len=2) :: "dp", "tp"])
  call check(ierr == DMESH_SUCCESS, "dmesh_from_comms")
  call dmesh_equal(fc, root, eq, ierr)
  call check(eq, "from_comms equals the root")

  ! Errors come back in ierror, or are ignored without it (no stop).
  call dmesh_slice(root, ["nope"], sl2, ierr)
  call check(ierr == DMESH_ERR_NAME, "unknown name is DMESH_ERR_NAME")
  call dmesh_last_error(str)
  call check(len(str) > 0, "dmesh_last_error has a detail")
  call dmesh_free(sl2)
  call dmesh_slice(root, ["nope"], sl2)
  call check(dmesh_is_null(sl2), "without ierror a failure returns, handle untouched")
  call dmesh_init(MPI_COMM_WORLD, "cpu", [sdp, stp], sl2, ierr, names=["x"])
  call check(ierr == DMESH_ERR_NAME, "names count mismatch is DMESH_ERR_NAME")
  call dmesh_last_error(str)
  call check(index(str, "names") > 0, "Fortran-side detail: " // str)
  call dmesh_init(MPI_COMM_WORLD, "cuda:0", [1], sl2, ierr)
  call check(ierr == DMESH_ERR_ARG, "cuda:0 is DMESH_ERR_ARG")
  call dmesh_error_string(DMESH_ERR_NAME, str)
  call check(index(str, "DMESH_ERR_NAME") > 0, "error string")

  ! Text form and the current-mesh stack.
  call dmesh_to_string(root, str, ierr)
  call check(ierr == DMESH_SUCCESS .and. index(str, "dp") > 0, "to_string: " // str)
  call dmesh_push(root, ierr)
  call dmesh_get_current(cur, ierr)
  call dmesh_equal(cur, root, eq, ierr)
  call check(eq, "current mesh after push")
  call dmesh_pop(ierror=ierr)
  call dmesh_get_current(cur, ierr)
  call check(ierr == DMESH_SUCCESS .and. dmesh_is_null(cur), "stack empty after pop")

  ! A one-rank mesh: ranks other than 0 are not members.
  call dmesh_init(MPI_COMM_WORLD, "cpu", [1], sl2, ierr)
  call dmesh_get_coordinate(sl2, coords, member, ierr)
  call check(member .eqv. (rank == 0), "membership of a 1-rank mesh")
  call dmesh_get_comm(sl2, 0, comm, ierr)
  call check((comm == MPI_COMM_NULL) .eqv. (rank /= 0), "non-members get MPI_COMM_NULL")
  if (rank /= 0) then
    call dmesh_get_local_rank(sl2, 0, r, ierr)
    call check(ierr == DMESH_ERR_NOT_MEMBER, "local rank of a non-member")
  end if

  call dmesh_free(sl2, ierr)
  call dmesh_free(fc, ierr)
  call dmesh_free(cre, ierr)
  call dmesh_free(cat, ierr)
  call dmesh_free(unf, ierr)
  call dmesh_free(flat2, ierr)
  call dmesh_free(flat, ierr)
  call dmesh_free(sl, ierr)
  call dmesh_free(root, ierr)
  call check(ierr == DMESH_SUCCESS .and. dmesh_is_null(root), "free resets the handle")

  call MPI_Allreduce([npass, nfail], totals, 2, MPI_INTEGER, MPI_SUM, MPI_COMM_WORLD, ierr)
  if (rank == 0) write (*, '("test_fortran_f08: ", i0, " passed, ", i0, " failed")') totals
  call MPI_Finalize(ierr)
  if (totals(2) /= 0) stop 1

contains

  subroutine check(ok, what)
    logical, intent(in) :: ok
    character(len=*), intent(in) :: what
    if (ok) then
      npass = npass + 1
    else
      nfail = nfail + 1
      write (*, '("rank ", i0, ": FAILED: ", a)') rank, what
    end if
  end subroutine check

  ! The communicator of dim: size, rank order and members as dmesh says,
  ! and a real allreduce of the world ranks over it.
  subroutine check_comm(mesh, dim, what)
    type(dmesh_t), intent(in) :: mesh
    integer, intent(in) :: dim
    character(len=*), intent(in) :: what
    type(MPI_Comm) :: c
    type(MPI_Group) :: wgroup, cgroup
    integer :: csize, crank, lrank, members(64), n, total, err, j
    integer :: translated(64), totals1(1)
    call dmesh_get_comm(mesh, dim, c, err)
    call check(err == DMESH_SUCCESS .and. c /= MPI_COMM_NULL, what // ": communicator")
    if (c == MPI_COMM_NULL) return
    call dmesh_get_group_ranks(mesh, dim, members, n, err)
    call dmesh_get_local_rank(mesh, dim, lrank, err)
    call MPI_Comm_size(c, csize, err)
    call MPI_Comm_rank(c, crank, err)
    call check(csize == n .and. crank == lrank, what // ": size and rank order")
    call MPI_Comm_group(c, cgroup, err)
    call MPI_Comm_group(MPI_COMM_WORLD, wgroup, err)
    call MPI_Group_translate_ranks(cgroup, n, [(j, j = 0, n - 1)], wgroup, translated, err)
    call check(all(translated(1:n) == members(1:n)), what // ": members")
    call MPI_Group_free(cgroup, err)
    call MPI_Group_free(wgroup, err)
    ! Arrays, as for the counters below: MPICH's mpi module has no explicit
    ! interface for MPI_Allreduce, and gfortran warns on rank changes.
    call MPI_Allreduce([rank], totals1, 1, MPI_INTEGER, MPI_SUM, c, err)
    total = totals1(1)
    call check(total == sum(members(1:n)), what // ": allreduce")
    call sum_ranks_int(mesh, dim, total)
    call check(total == sum(members(1:n)), what // ": allreduce through the dmesh module")
  end subroutine check_comm

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
