! SPDX-License-Identifier: BSD-3-Clause
! test_ft_fortran: the fault-tolerance bindings of the module dmesh_f08
! (dmesh_revoke, dmesh_get_failed, dmesh_shrink, DMESH_ERR_PROC_FAILED,
! DMESH_ERR_UNSUPPORTED, DMESH_KEEP_SHAPE). Without fault tolerance the
! three calls must return DMESH_ERR_UNSUPPORTED and leave their outputs
! alone (exit 77 then); under mpiexec --with-ft ulfm (test/ft.sh) rank 1 is
! killed, every survivor must get DMESH_ERR_PROC_FAILED from a collective
! call, revoke, and shrink dimension 0 into a working mesh. Survivors print
! "test_ft_fortran rank R: ok".
program test_ft_fortran
  use mpi_f08
  use dmesh_f08
  implicit none
  interface
    function c_raise(sig) bind(C, name="raise")
      use, intrinsic :: iso_c_binding, only: c_int
      integer(c_int), value :: sig
      integer(c_int) :: c_raise
    end function c_raise
  end interface
  type(dmesh_t) :: m, flat, n
  type(MPI_Comm) :: surv, c
  integer :: ierr, me, np, failed(4), nf, shape(2), k, total, want, i
  integer :: gr(8), ng
  character(len=:), allocatable :: msg

  call MPI_Init(ierr)
  call MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN, ierr)
  call MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN, ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, me, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, np, ierr)
  if (DMESH_ERR_PROC_FAILED /= 16 .or. DMESH_ERR_UNSUPPORTED /= 17 .or. &
      DMESH_ERR_SPAWN /= 18 .or. DMESH_ERR_DATA_LOST /= 19 .or. &
      DMESH_ERR_LASTCODE /= 20 .or. DMESH_KEEP_SHAPE >= 0) &
    error stop "constants"
  call dmesh_init(MPI_COMM_WORLD, "cpu", [np / 2, 2], m, ierr, names=[character(len=2) :: "dp", "tp"])
  if (ierr /= DMESH_SUCCESS) error stop "init"
  nf = -7
  call dmesh_get_failed(m, failed, nf, ierr)
  if (ierr == DMESH_ERR_UNSUPPORTED) then
    if (nf /= -7) error stop "get_failed wrote nfailed"
    call dmesh_revoke(m, ierr)
    if (ierr /= DMESH_ERR_UNSUPPORTED) error stop "revoke"
    call dmesh_last_error(msg)
    if (index(msg, "--with-ft ulfm") == 0) error stop "detail"
    call dmesh_shrink(m, 0, n, ierr, survivors=surv)
    if (ierr /= DMESH_ERR_UNSUPPORTED .or. .not. dmesh_is_null(n)) error stop "shrink"
    call dmesh_free(m, ierr)
    call MPI_Finalize(ierr)
    stop 77
  end if
  if (ierr /= DMESH_SUCCESS .or. nf /= 0) then
    print '(a,i0,a,i0,a,i0)', "test_ft_fortran rank ", me, ": get_failed before the failure: ", &
      ierr, ", nfailed ", nf
    error stop "get_failed before the failure"
  end if
  ! every rank has asked before rank 1 dies (at 8 ranks on 2 cores, a slow
  ! rank asked after the kill and counted it: 1 run in 2)
  call MPI_Barrier(MPI_COMM_WORLD, ierr)
  if (me == 1) k = c_raise(9)
  call dmesh_flatten(m, flat, ierr)
  if (ierr /= DMESH_ERR_PROC_FAILED) error stop "flatten after the failure"
  call dmesh_revoke(m, ierr)
  if (ierr /= DMESH_SUCCESS) error stop "revoke"
  call dmesh_shrink(m, 0, n, ierr, survivors=surv)
  if (ierr /= DMESH_SUCCESS) error stop "shrink"
  call dmesh_get_failed(m, failed, nf, ierr)
  if (ierr /= DMESH_SUCCESS .or. nf /= 1 .or. failed(1) /= 1) error stop "get_failed"
  call dmesh_get_shape(n, shape, ierr)
  if (shape(1) /= np / 2 - 1 .or. shape(2) /= 2) error stop "shape"
  call dmesh_get_comm(n, 1, c, ierr)
  if (c /= MPI_COMM_NULL) then  ! a checked allreduce of world ranks over tp
    call dmesh_get_group_ranks(n, 1, gr, ng, ierr)
    want = 0
    do i = 1, ng
      want = want + gr(i) + merge(1, 0, gr(i) >= 1)  ! survivor rank -> world rank
    end do
    call MPI_Allreduce(me, total, 1, MPI_INTEGER, MPI_SUM, c, ierr)
    if (ierr /= MPI_SUCCESS .or. total /= want) error stop "allreduce"
  end if
  print '(a,i0,a)', "test_ft_fortran rank ", me, ": ok"
  flush(6)
  call dmesh_free(n, ierr)
  call dmesh_free(m, ierr)
  call MPI_Comm_free(surv, ierr)
  call MPI_Finalize(ierr)
end program test_ft_fortran
