! SPDX-License-Identifier: BSD-3-Clause
!> \file dmesh.F90
!> \brief Fortran bindings of dmesh: the modules \c dmesh (for `use mpi` and
!>        mpif.h: INTEGER handles) and \c dmesh_f08 (for `use mpi_f08`:
!>        TYPE(MPI_Comm) and TYPE(MPI_Info) handles).
!>
!> Rules shared by every routine of both modules:
!>
!> * **MPI style.** Every routine is a subroutine. Its last argument is
!>   `ierror`, optional as in mpi_f08: it receives DMESH_SUCCESS or an error
!>   class (DMESH_ERR_*). As with MPI's own bindings, a failure first goes to
!>   the error handler of the communicator the call concerns (the one passed
!>   to a creation call, the one the mesh was made from, MPI_COMM_SELF for a
!>   call tied to none), whether `ierror` is present or not: with MPI's
!>   default (fatal) handler the job ends there, dmesh's detail on stderr;
!>   with MPI_ERRORS_RETURN (or a handler that returns) the routine returns,
!>   `ierror` receives the class and output handles are DMESH_NULL or
!>   MPI_COMM_NULL. The detail of the failure is in dmesh_last_error(), and
!>   dmesh_error_class() maps a code a handler received back to its class.
!>   Optional arguments
!>   (names, info, ...) come after `ierror`; pass them by keyword
!>   (`names=`, `info=`) when `ierror` is left out.
!> * **Argument order** follows the C API without the counts (taken from the
!>   array sizes); the outputs come last, just before `ierror`.
!> * **Index base: 0, as in C and as MPI's own Fortran bindings** (ranks,
!>   MPI_Cart_coords, MPI_Cart_shift's direction). Dimension indices, ranks,
!>   coordinates and local ranks are the same numbers as in C. Arrays are
!>   ordinary Fortran arrays: `shape(1)` is the size of dimension 0, and
!>   `coords(d+1)` the coordinate along dimension d. Using names
!>   (dmesh_get_dim_index()) avoids counting.
!> * **Array sizes are checked** before anything reaches C. An input array
!>   (shape, names, ranks, dim_comms, across, coords, periods, remain_dims)
!>   must have exactly as many elements as C reads (the mesh's dimensions,
!>   the product of the shape, ...); an output array (shape, coords, ranks) gives C its
!>   capacity (maxdims, maxranks, ...) and must have at least as many
!>   elements as are written; only those are written. Otherwise the call
!>   fails with DMESH_ERR_ARG (names: DMESH_ERR_NAME; a rank list:
!>   DMESH_ERR_SIZE) and a detail naming the argument and both sizes, e.g.
!>   "dmesh_get_cart_comm: periods has 1 elements, the mesh has 2
!>   dimensions", raised as the library's own failures are. A collective
!>   routine whose arrays are rejected still takes part in the C call, which
!>   then fails at its agreement with that class and detail on every rank:
!>   ranks that pass arrays of different sizes never wait for each other.
!> * **Strings** are `character(len=*)`; trailing blanks are removed before
!>   they reach C. Name lists are `character(len=*) :: names(:)`, e.g.
!>   `[character(len=8) :: "dp", "tp"]`. Strings coming back are
!>   `character(len=:), allocatable`.
!> * **Handles.** type(dmesh_t) is a mesh handle; it starts as DMESH_NULL and
!>   dmesh_free() sets it back to DMESH_NULL. An output handle keeps its old
!>   value when the call fails. Communicators returned by dmesh_get_comm()
!>   are borrowed: use them with MPI, never free them.
!> * Use either \c dmesh or \c dmesh_f08 in one scoping unit, as with mpi and
!>   mpi_f08; different units of one program may use different ones and pass
!>   type(dmesh_t) values between them (both modules share the type).
!>
!> Module \c dmesh_base holds what both modules share and is not meant to be
!> used directly.

!> \brief Types, constants and the routines without MPI handles, shared by
!>        the modules dmesh and dmesh_f08 (which re-export them).
module dmesh_base
  use, intrinsic :: iso_c_binding
  use, intrinsic :: iso_fortran_env, only: int64
  use mpi_f08, only: MPI_UNDEFINED ! the coordinates of a process outside a mesh
  implicit none
  private

  !> \name Error classes (the values of ierror), as in dmesh.h
  !> @{
  integer, parameter, public :: DMESH_SUCCESS = 0  !< no error
  integer, parameter, public :: DMESH_ERR_ARG = 1  !< invalid argument
  integer, parameter, public :: DMESH_ERR_SIZE = 2  !< size too large, overflow or mismatch
  integer, parameter, public :: DMESH_ERR_NAME = 3  !< duplicate, empty, too long or unknown name
  integer, parameter, public :: DMESH_ERR_LAYOUT = 4  !< bad layout, universe or rank list
  integer, parameter, public :: DMESH_ERR_MISMATCH = 5  !< ranks passed different arguments to a collective call
  integer, parameter, public :: DMESH_ERR_NOT_MEMBER = 6  !< the caller is not part of the mesh
  integer, parameter, public :: DMESH_ERR_NO_DEVICE = 7  !< no usable device
  integer, parameter, public :: DMESH_ERR_BACKEND = 8  !< backend not built in or not usable
  integer, parameter, public :: DMESH_ERR_MPI = 9  !< an MPI call failed
  integer, parameter, public :: DMESH_ERR_NCCL = 10  !< an NCCL call failed
  integer, parameter, public :: DMESH_ERR_CUDA = 11  !< a CUDA runtime call failed
  integer, parameter, public :: DMESH_ERR_HWLOC = 12  !< an hwloc call failed
  integer, parameter, public :: DMESH_ERR_NOMEM = 13  !< out of memory
  integer, parameter, public :: DMESH_ERR_INTERNAL = 14  !< a bug in dmesh
  integer, parameter, public :: DMESH_ERR_TIMEOUT = 15  !< a bounded wait ran out
  integer, parameter, public :: DMESH_ERR_PROC_FAILED = 16  !< a process failed, or the universe was revoked
  integer, parameter, public :: DMESH_ERR_UNSUPPORTED = 17  !< no fault tolerance in the MPI or its launch
  integer, parameter, public :: DMESH_ERR_SPAWN = 18  !< the MPI or its launcher refused to start processes
  integer, parameter, public :: DMESH_ERR_DATA_LOST = 19  !< a process and every holder of its copy failed
  integer, parameter, public :: DMESH_ERR_LASTCODE = 20  !< one past the last error class
  !> @}

  !> \brief dmesh_shrink() dim value: keep every dimension's size.
  integer, parameter, public :: DMESH_KEEP_SHAPE = -1
  !> \brief dmesh_join() reason: the process replaces a failed one.
  integer, parameter, public :: DMESH_JOIN_RESPAWN = 1
  !> \brief dmesh_join() reason: the process is new (dmesh_grow()).
  integer, parameter, public :: DMESH_JOIN_GROW = 2

  !> Where the groups of a dimension sit (dmesh_get_dim_locality()).
  integer, parameter, public :: DMESH_LOCALITY_NODE = 1  !< every group inside one node
  integer, parameter, public :: DMESH_LOCALITY_ACROSS = 2  !< no group has two ranks on a node
  integer, parameter, public :: DMESH_LOCALITY_MIXED = 3  !< neither

  !> Most dimensions a mesh can have.
  integer, parameter, public :: DMESH_MAX_DIMS = 16
  !> Longest dimension name in bytes, including C's terminating NUL (so at
  !> most DMESH_MAX_NAME - 1 characters).
  integer, parameter, public :: DMESH_MAX_NAME = 64

  !> \brief A mesh handle (the C dmesh_t). Starts as DMESH_NULL.
  !> The component is the C pointer; leave it alone.
  type, public :: dmesh_t
    type(c_ptr) :: ptr = c_null_ptr  !< the C handle (dmesh_t)
  end type dmesh_t

  !> The null mesh handle.
  type(dmesh_t), parameter, public :: DMESH_NULL = dmesh_t(c_null_ptr)

  !> \brief Figures of a universe's communicator cache (the C
  !>        dmesh_cache_info_t, interoperable).
  type, bind(C), public :: dmesh_cache_info_t
    integer(c_int) :: comms_mpi   !< MPI communicators created or duplicated
    integer(c_int) :: comms_nccl  !< NCCL communicators created
    integer(c_long) :: lookups    !< cache lookups
    integer(c_long) :: hits       !< lookups that found a communicator
    integer(c_long) :: nccl_bootstraps      !< NCCL communicators bootstrapped from one id
    integer(c_long) :: nccl_splits          !< NCCL communicators made by ncclCommSplit
    integer(c_long) :: nccl_scalable_inits  !< made by ncclCommInitRankScalable
  end type dmesh_cache_info_t

  public :: dmesh_is_null
  public :: dmesh_free, dmesh_abort, dmesh_slice, dmesh_concatenate
  public :: dmesh_get_ndims, dmesh_get_shape, dmesh_get_size, dmesh_get_dim_name
  public :: dmesh_get_dim_index, dmesh_get_device_type, dmesh_get_coordinate
  public :: dmesh_get_local_rank, dmesh_get_group_ranks, dmesh_get_ranks
  public :: dmesh_get_device, dmesh_equal, dmesh_to_string, dmesh_get_cache_info
  public :: dmesh_get_dim_locality
  public :: dmesh_push, dmesh_pop, dmesh_get_current
  public :: dmesh_error_string, dmesh_last_error, dmesh_error_class
  public :: dmesh_revoke, dmesh_get_failed, dmesh_agree_step
  public :: dmesh_get_dim_size
  public :: dmesh_get_local_rank_by_name, dmesh_get_group_ranks_by_name
  public :: dmesh_get_dim_size_by_name, dmesh_get_dim_locality_by_name

  !> \brief Rank of the caller in the communicator of a dimension, given by
  !>        its index or its name (dmesh_get_local_rank(),
  !>        dmesh_get_local_rank_by_name()). Local.
  !>
  !> `call dmesh_get_local_rank(mesh, dim, rank [, ierror])`, with `dim` an
  !> INTEGER (0-based) or a CHARACTER name ('tp'): a name is never read as
  !> an index.
  interface dmesh_get_local_rank
    module procedure dmesh_get_local_rank, dmesh_get_local_rank_by_name
  end interface dmesh_get_local_rank
  !> \brief Members of the caller's group along a dimension, given by its
  !>        index or its name (dmesh_get_group_ranks(),
  !>        dmesh_get_group_ranks_by_name()). Local.
  !>
  !> `call dmesh_get_group_ranks(mesh, dim, ranks, nranks [, ierror])`
  interface dmesh_get_group_ranks
    module procedure dmesh_get_group_ranks, dmesh_get_group_ranks_by_name
  end interface dmesh_get_group_ranks
  !> \brief Size of a dimension, given by its index or its name
  !>        (dmesh_get_dim_size(), dmesh_get_dim_size_by_name()). Local.
  !>
  !> `call dmesh_get_dim_size(mesh, dim, size [, ierror])`
  interface dmesh_get_dim_size
    module procedure dmesh_get_dim_size, dmesh_get_dim_size_by_name
  end interface dmesh_get_dim_size
  !> \brief Where the groups of a dimension sit, given by its index or its
  !>        name (dmesh_get_dim_locality(), dmesh_get_dim_locality_by_name()).
  !>
  !> `call dmesh_get_dim_locality(mesh, dim, kind [, ierror])`
  interface dmesh_get_dim_locality
    module procedure dmesh_get_dim_locality, dmesh_get_dim_locality_by_name
  end interface dmesh_get_dim_locality

  ! Used by the modules dmesh and dmesh_f08, which keep them private.
  public :: dmesh_f_init_impl, dmesh_f_create_impl, dmesh_f_from_comms_impl
  public :: dmesh_f_init_hybrid_impl
  public :: dmesh_f_flatten_impl, dmesh_f_unflatten_impl, dmesh_f_get_comm_impl
  public :: dmesh_f_fail, dmesh_f_fail_size, dmesh_f_itoa
  public :: dmesh_f_reject, dmesh_f_size_text, dmesh_f_ndims, dmesh_f_quiet
  public :: dmesh_f_shrink_impl, dmesh_f_respawn_impl, dmesh_f_join_impl
  public :: dmesh_f_get_comm_by_name_impl, dmesh_f_quiet_dim
  public :: dmesh_f_unflatten_by_name_impl, dmesh_f_shrink_by_name_impl
  public :: dmesh_f_grow_by_name_impl
  public :: dmesh_f_start_impl, dmesh_f_repair_impl

  !> Names converted to NUL-terminated C strings, and the array of pointers
  !> to them that C takes as `const char *const dim_names[]`.
  type :: c_names_t
    character(kind=c_char), allocatable :: buf(:)
    type(c_ptr), allocatable :: ptrs(:)
    type(c_ptr) :: array = c_null_ptr  ! c_loc(ptrs), or NULL without names
  end type c_names_t

  ! The C library, bound directly where no MPI handle is involved.
  interface
    integer(c_int) function c_free(mesh) bind(C, name="dmesh_free")
      import :: c_int, c_ptr
      type(c_ptr), intent(inout) :: mesh
    end function c_free
    integer(c_int) function c_abort(mesh) bind(C, name="dmesh_abort")
      import :: c_int, c_ptr
      type(c_ptr), value :: mesh
    end function c_abort
    integer(c_int) function c_slice(mesh, n, names, sub) bind(C, name="dmesh_slice")
      import :: c_int, c_ptr
      type(c_ptr), value :: mesh
      integer(c_int), value :: n
      type(c_ptr), value :: names
      type(c_ptr), intent(out) :: sub
    end function c_slice
    integer(c_int) function c_concatenate(n, meshes, out) bind(C, name="dmesh_concatenate")
      import :: c_int, c_ptr
      integer(c_int), value :: n
      type(c_ptr), intent(in) :: meshes(*)
      type(c_ptr), intent(out) :: out
    end function c_concatenate
    integer(c_int) function c_get_ndims(mesh, ndims) bind(C, name="dmesh_get_ndims")
      import :: c_int, c_ptr
      type(c_ptr), value :: mesh
      integer(c_int), intent(out) :: ndims
    end function c_get_ndims
    integer(c_int) function c_get_shape(mesh, maxdims, shape) bind(C, name="dmesh_get_shape")
      import :: c_int, c_ptr
      type(c_ptr), value :: mesh
      integer(c_int), value :: maxdims
      integer(c_int), intent(out) :: shape(*)
    end function c_get_shape
    integer(c_int) function c_get_dim_locality(mesh, dim, kind) &
        bind(C, name="dmesh_get_dim_locality")
      import :: c_int, c_ptr
      type(c_ptr), value :: mesh
      integer(c_int), value :: dim
      integer(c_int), intent(out) :: kind
    end function c_get_dim_locality
    integer(c_int) function c_get_size(mesh, size) bind(C, name="dmesh_get_size")
      import :: c_int, c_ptr
      type(c_ptr), value :: mesh
      integer(c_int), intent(out) :: size
    end function c_get_size
    integer(c_int) function c_get_dim_name(mesh, dim, name) bind(C, name="dmesh_get_dim_name")
      import :: c_int, c_ptr
      type(c_ptr), value :: mesh
      integer(c_int), value :: dim
      type(c_ptr), intent(out) :: name
    end function c_get_dim_name
    integer(c_int) function c_get_dim_index(mesh, name, dim) bind(C, name="dmesh_get_dim_index")
      import :: c_int, c_ptr, c_char
      type(c_ptr), value :: mesh
      character(kind=c_char), intent(in) :: name(*)
      integer(c_int), intent(out) :: dim
    end function c_get_dim_index
    integer(c_int) function c_get_device_type(mesh, device_type) &
        bind(C, name="dmesh_get_device_type")
      import :: c_int, c_ptr
      type(c_ptr), value :: mesh
      type(c_ptr), intent(out) :: device_type
    end function c_get_device_type
    integer(c_int) function c_get_coordinate(mesh, maxdims, coords, is_member) &
        bind(C, name="dmesh_get_coordinate")
      import :: c_int, c_ptr
      type(c_ptr), value :: mesh
      integer(c_int), value :: maxdims
      integer(c_int), intent(inout) :: coords(*)
      integer(c_int), intent(out) :: is_member
    end function c_get_coordinate
    integer(c_int) function c_get_local_rank(mesh, dim, rank) bind(C, name="dmesh_get_local_rank")
      import :: c_int, c_ptr
      type(c_ptr), value :: mesh
      integer(c_int), value :: dim
      integer(c_int), intent(out) :: rank
    end function c_get_local_rank
    integer(c_int) function c_get_local_rank_by_name(mesh, dim_name, rank) &
        bind(C, name="dmesh_get_local_rank_by_name")
      import :: c_int, c_ptr, c_char
      type(c_ptr), value :: mesh
      character(kind=c_char), intent(in) :: dim_name(*)
      integer(c_int), intent(out) :: rank
    end function c_get_local_rank_by_name
    integer(c_int) function c_get_group_ranks_by_name(mesh, dim_name, maxranks, ranks, nranks) &
        bind(C, name="dmesh_get_group_ranks_by_name")
      import :: c_int, c_ptr, c_char
      type(c_ptr), value :: mesh
      character(kind=c_char), intent(in) :: dim_name(*)
      integer(c_int), value :: maxranks
      integer(c_int), intent(out) :: ranks(*)
      integer(c_int), intent(out) :: nranks
    end function c_get_group_ranks_by_name
    integer(c_int) function c_get_dim_size(mesh, dim, size) bind(C, name="dmesh_get_dim_size")
      import :: c_int, c_ptr
      type(c_ptr), value :: mesh
      integer(c_int), value :: dim
      integer(c_int), intent(out) :: size
    end function c_get_dim_size
    integer(c_int) function c_get_dim_size_by_name(mesh, dim_name, size) &
        bind(C, name="dmesh_get_dim_size_by_name")
      import :: c_int, c_ptr, c_char
      type(c_ptr), value :: mesh
      character(kind=c_char), intent(in) :: dim_name(*)
      integer(c_int), intent(out) :: size
    end function c_get_dim_size_by_name
    integer(c_int) function c_get_dim_locality_by_name(mesh, dim_name, kind) &
        bind(C, name="dmesh_get_dim_locality_by_name")
      import :: c_int, c_ptr, c_char
      type(c_ptr), value :: mesh
      character(kind=c_char), intent(in) :: dim_name(*)
      integer(c_int), intent(out) :: kind
    end function c_get_dim_locality_by_name
    integer(c_int) function c_get_group_ranks(mesh, dim, maxranks, ranks, nranks) &
        bind(C, name="dmesh_get_group_ranks")
      import :: c_int, c_ptr
      type(c_ptr), value :: mesh
      integer(c_int), value :: dim, maxranks
      integer(c_int), intent(out) :: ranks(*)
      integer(c_int), intent(out) :: nranks
    end function c_get_group_ranks
    integer(c_int) function c_get_ranks(mesh, maxranks, ranks, nranks) bind(C, name="dmesh_get_ranks")
      import :: c_int, c_ptr
      type(c_ptr), value :: mesh
      integer(c_int), value :: maxranks
      integer(c_int), intent(out) :: ranks(*)
      integer(c_int), intent(out) :: nranks
    end function c_get_ranks
    integer(c_int) function c_get_device(mesh, device) bind(C, name="dmesh_get_device")
      import :: c_int, c_ptr
      type(c_ptr), value :: mesh
      integer(c_int), intent(out) :: device
    end function c_get_device
    integer(c_int) function c_equal(a, b, equal) bind(C, name="dmesh_equal")
      import :: c_int, c_ptr
      type(c_ptr), value :: a, b
      integer(c_int), intent(out) :: equal
    end function c_equal
    integer(c_int) function c_to_string(mesh, buf, len, needed) bind(C, name="dmesh_to_string")
      import :: c_int, c_ptr, c_char, c_size_t
      type(c_ptr), value :: mesh
      character(kind=c_char), intent(out) :: buf(*)
      integer(c_size_t), value :: len
      integer(c_size_t), intent(out) :: needed
    end function c_to_string
    integer(c_int) function c_get_cache_info(mesh, info) bind(C, name="dmesh_get_cache_info")
      import :: c_int, c_ptr, dmesh_cache_info_t
      type(c_ptr), value :: mesh
      type(dmesh_cache_info_t), intent(out) :: info
    end function c_get_cache_info
    integer(c_int) function c_push(mesh) bind(C, name="dmesh_push")
      import :: c_int, c_ptr
      type(c_ptr), value :: mesh
    end function c_push
    integer(c_int) function c_pop(mesh) bind(C, name="dmesh_pop")
      import :: c_int, c_ptr
      type(c_ptr), intent(out) :: mesh
    end function c_pop
    integer(c_int) function c_get_current(mesh) bind(C, name="dmesh_get_current")
      import :: c_int, c_ptr
      type(c_ptr), intent(out) :: mesh
    end function c_get_current
    type(c_ptr) function c_error_string(err) bind(C, name="dmesh_error_string")
      import :: c_int, c_ptr
      integer(c_int), value :: err
    end function c_error_string
    integer(c_size_t) function c_strlen(s) bind(C, name="strlen")
      import :: c_size_t, c_ptr
      type(c_ptr), value :: s
    end function c_strlen
  end interface

  ! The shims of dmesh_f.c: MPI handles as Fortran integers (MPI_Fint).
  interface
    integer(c_int) function shim_init(comm, device_type, ndims, shape, names, has_info, info, &
        mesh) bind(C, name="dmesh_f_init")
      import :: c_int, c_ptr, c_char
      integer(c_int), value :: comm, ndims, has_info, info
      character(kind=c_char), intent(in) :: device_type(*)
      integer(c_int), intent(in) :: shape(*)
      type(c_ptr), value :: names
      type(c_ptr), intent(out) :: mesh
    end function shim_init
    integer(c_int) function shim_init_hybrid(comm, device_type, ndims, in_node, across, names, &
        has_info, info, mesh) bind(C, name="dmesh_f_init_hybrid")
      import :: c_int, c_ptr, c_char
      integer(c_int), value :: comm, ndims, has_info, info
      character(kind=c_char), intent(in) :: device_type(*)
      integer(c_int), intent(in) :: in_node(*), across(*)
      type(c_ptr), value :: names
      type(c_ptr), intent(out) :: mesh
    end function shim_init_hybrid
    integer(c_int) function shim_create(comm, device_type, ndims, shape, ranks, names, &
        has_info, info, mesh) bind(C, name="dmesh_f_create")
      import :: c_int, c_ptr, c_char
      integer(c_int), value :: comm, ndims, has_info, info
      character(kind=c_char), intent(in) :: device_type(*)
      integer(c_int), intent(in) :: shape(*), ranks(*)
      type(c_ptr), value :: names
      type(c_ptr), intent(out) :: mesh
    end function shim_create
    integer(c_int) function shim_from_comms(comm, device_type, ndims, dim_comms, shape, ranks, &
        names, mesh) bind(C, name="dmesh_f_from_comms")
      import :: c_int, c_ptr, c_char
      integer(c_int), value :: comm, ndims
      character(kind=c_char), intent(in) :: device_type(*)
      integer(c_int), intent(in) :: dim_comms(*), shape(*)
      type(c_ptr), value :: ranks, names
      type(c_ptr), intent(out) :: mesh
    end function shim_from_comms
    integer(c_int) function shim_flatten(mesh, name, has_info, info, flat) &
        bind(C, name="dmesh_f_flatten")
      import :: c_int, c_ptr
      type(c_ptr), value :: mesh, name
      integer(c_int), value :: has_info, info
      type(c_ptr), intent(out) :: flat
    end function shim_flatten
    integer(c_int) function shim_unflatten(mesh, dim, n, sizes, names, has_info, info, out) &
        bind(C, name="dmesh_f_unflatten")
      import :: c_int, c_ptr
      type(c_ptr), value :: mesh, names
      integer(c_int), value :: dim, n, has_info, info
      integer(c_int), intent(in) :: sizes(*)
      type(c_ptr), intent(out) :: out
    end function shim_unflatten
    integer(c_int) function shim_get_comm(mesh, dim, comm) bind(C, name="dmesh_f_get_comm")
      import :: c_int, c_ptr
      type(c_ptr), value :: mesh
      integer(c_int), value :: dim
      integer(c_int), intent(out) :: comm
    end function shim_get_comm
    integer(c_int) function shim_get_comm_by_name(mesh, dim_name, comm) &
        bind(C, name="dmesh_f_get_comm_by_name")
      import :: c_int, c_ptr, c_char
      type(c_ptr), value :: mesh
      character(kind=c_char), intent(in) :: dim_name(*)
      integer(c_int), intent(out) :: comm
    end function shim_get_comm_by_name
    integer(c_int) function shim_comm_size(comm, size) bind(C, name="dmesh_f_comm_size")
      import :: c_int
      integer(c_int), value :: comm
      integer(c_int), intent(out) :: size
    end function shim_comm_size
    subroutine shim_set_error(detail) bind(C, name="dmesh_f_set_error")
      import :: c_char
      character(kind=c_char), intent(in) :: detail(*)
    end subroutine shim_set_error
    subroutine shim_library_failed() bind(C, name="dmesh_f_library_failed")
    end subroutine shim_library_failed
    integer(c_int) function shim_binding_reject(err, detail) bind(C, name="dmesh_x_binding_reject")
      import :: c_int, c_char
      integer(c_int), value :: err
      character(kind=c_char), intent(in) :: detail(*)
    end function shim_binding_reject
    subroutine shim_quiet(quiet) bind(C, name="dmesh_x_binding_quiet")
      import :: c_int
      integer(c_int), value :: quiet
    end subroutine shim_quiet
    integer(c_int) function shim_binding_raise(mesh, err, detail) &
        bind(C, name="dmesh_x_binding_raise")
      import :: c_int, c_char, c_ptr
      type(c_ptr), value :: mesh
      integer(c_int), value :: err
      character(kind=c_char), intent(in) :: detail(*)
    end function shim_binding_raise
    integer(c_int) function c_error_class(errorcode, errorclass) bind(C, name="dmesh_error_class")
      import :: c_int
      integer(c_int), value :: errorcode
      integer(c_int), intent(out) :: errorclass
    end function c_error_class
    type(c_ptr) function shim_last_error() bind(C, name="dmesh_f_last_error")
      import :: c_ptr
    end function shim_last_error
  end interface

  ! Fault tolerance (dmesh_revoke, dmesh_get_failed, dmesh_shrink).
  interface
    integer(c_int) function c_revoke(mesh) bind(C, name="dmesh_revoke")
      import :: c_int, c_ptr
      type(c_ptr), value :: mesh
    end function c_revoke
    integer(c_int) function c_get_failed(mesh, maxranks, ranks, nfailed) &
        bind(C, name="dmesh_get_failed")
      import :: c_int, c_ptr
      type(c_ptr), value :: mesh
      integer(c_int), value :: maxranks
      integer(c_int), intent(out) :: ranks(*)
      integer(c_int), intent(out) :: nfailed
    end function c_get_failed
    integer(c_int) function shim_shrink(mesh, dim, has_info, info, want, survivors, newmesh) &
        bind(C, name="dmesh_f_shrink")
      import :: c_int, c_ptr
      type(c_ptr), value :: mesh
      integer(c_int), value :: dim, has_info, info, want
      integer(c_int), intent(out) :: survivors
      type(c_ptr), intent(out) :: newmesh
    end function shim_shrink
    integer(c_int) function shim_unflatten_by_name(mesh, dim_name, n, sizes, names, has_info, &
        info, out) bind(C, name="dmesh_f_unflatten_by_name")
      import :: c_int, c_ptr, c_char
      type(c_ptr), value :: mesh, names
      character(kind=c_char), intent(in) :: dim_name(*)
      integer(c_int), value :: n, has_info, info
      integer(c_int), intent(in) :: sizes(*)
      type(c_ptr), intent(out) :: out
    end function shim_unflatten_by_name
    integer(c_int) function shim_shrink_by_name(mesh, dim_name, has_info, info, want, survivors, &
        newmesh) bind(C, name="dmesh_f_shrink_by_name")
      import :: c_int, c_ptr, c_char
      type(c_ptr), value :: mesh
      character(kind=c_char), intent(in) :: dim_name(*)
      integer(c_int), value :: has_info, info, want
      integer(c_int), intent(out) :: survivors
      type(c_ptr), intent(out) :: newmesh
    end function shim_shrink_by_name
    integer(c_int) function shim_grow_by_name(mesh, dim_name, n, command, has_info, info, &
        newcomm, newmesh) bind(C, name="dmesh_f_grow_by_name")
      import :: c_int, c_ptr, c_char
      type(c_ptr), value :: mesh
      character(kind=c_char), intent(in) :: dim_name(*), command(*)
      integer(c_int), value :: n, has_info, info
      integer(c_int), intent(out) :: newcomm
      type(c_ptr), intent(out) :: newmesh
    end function shim_grow_by_name
    ! dmesh_respawn, dmesh_grow, dmesh_join (command "": the program itself)
    integer(c_int) function shim_respawn(mesh, command, has_info, info, newcomm, newmesh) &
        bind(C, name="dmesh_f_respawn")
      import :: c_int, c_ptr, c_char
      type(c_ptr), value :: mesh
      character(kind=c_char), intent(in) :: command(*)
      integer(c_int), value :: has_info, info
      integer(c_int), intent(out) :: newcomm
      type(c_ptr), intent(out) :: newmesh
    end function shim_respawn
    integer(c_int) function shim_grow(mesh, dim, n, command, has_info, info, newcomm, newmesh) &
        bind(C, name="dmesh_f_grow")
      import :: c_int, c_ptr, c_char
      type(c_ptr), value :: mesh
      integer(c_int), value :: dim, n
      character(kind=c_char), intent(in) :: command(*)
      integer(c_int), value :: has_info, info
      integer(c_int), intent(out) :: newcomm
      type(c_ptr), intent(out) :: newmesh
    end function shim_grow
    integer(c_int) function shim_join(has_info, info, reason, newcomm, newmesh) &
        bind(C, name="dmesh_f_join")
      import :: c_int, c_ptr
      integer(c_int), value :: has_info, info
      integer(c_int), intent(out) :: reason, newcomm
      type(c_ptr), intent(out) :: newmesh
    end function shim_join
    ! dmesh_start, dmesh_agree_step, dmesh_repair (recovery in one call)
    integer(c_int) function shim_start(comm, device_type, ndims, shape, names, has_info, info, &
        newcomm, mesh) bind(C, name="dmesh_f_start")
      import :: c_int, c_ptr, c_char
      integer(c_int), value :: comm, ndims, has_info, info
      character(kind=c_char), intent(in) :: device_type(*)
      integer(c_int), intent(in) :: shape(*)
      type(c_ptr), value :: names
      integer(c_int), intent(out) :: newcomm
      type(c_ptr), intent(out) :: mesh
    end function shim_start
    integer(c_int) function c_agree_step(mesh, ok) bind(C, name="dmesh_agree_step")
      import :: c_int, c_ptr
      type(c_ptr), value :: mesh
      integer(c_int), intent(inout) :: ok
    end function c_agree_step
    integer(c_int) function shim_repair(mesh, comm, has_info, info, version) &
        bind(C, name="dmesh_f_repair")
      import :: c_int, c_ptr
      type(c_ptr), intent(inout) :: mesh
      integer(c_int), intent(inout) :: comm
      integer(c_int), value :: has_info, info
      integer(c_int), intent(inout) :: version
    end function shim_repair
  end interface

contains

  ! ---------------------------------------------------------------------
  ! Helpers

  ! Report the result of a library call.
  subroutine finish(ierror, err)
    integer, optional, intent(out) :: ierror
    integer(c_int), intent(in) :: err
    if (err /= DMESH_SUCCESS) call shim_library_failed()
    if (present(ierror)) ierror = int(err)
  end subroutine finish

  ! Report a failure of a local call found by the Fortran layer (the C
  ! library never saw the call): its detail becomes dmesh_last_error(), and
  ! it is raised on the error handler of mesh's communicator (MPI_COMM_SELF's
  ! without a mesh), as the library raises its own.
  subroutine fail(ierror, err, detail, mesh)
    integer, optional, intent(out) :: ierror
    integer, intent(in) :: err
    character(len=*), intent(in) :: detail
    type(dmesh_t), optional, intent(in) :: mesh
    type(c_ptr) :: m
    integer(c_int) :: e
    m = c_null_ptr
    if (present(mesh)) m = mesh%ptr
    call shim_set_error(detail // c_null_char)
    e = shim_binding_raise(m, int(err, c_int), detail // c_null_char)
    if (present(ierror)) ierror = err
  end subroutine fail

  ! A collective call's own arguments rejected by the Fortran layer: the C
  ! call that follows (with arguments it rejects without reading them)
  ! fails at its agreement with err and detail on this rank, so that every
  ! rank returns the same class instead of waiting for this one.
  subroutine dmesh_f_reject(err, detail)
    integer, intent(in) :: err
    character(len=*), intent(in) :: detail
    integer(c_int) :: e
    e = shim_binding_reject(int(err, c_int), detail // c_null_char)
  end subroutine dmesh_f_reject

  ! "<routine>: <arg> has <n> elements, <expected>", the detail of an array
  ! argument of the wrong size.
  function dmesh_f_size_text(routine, arg, n, expected) result(s)
    character(len=*), intent(in) :: routine, arg, expected
    integer, intent(in) :: n
    character(len=:), allocatable :: s
    s = routine // ": " // arg // " has " // dmesh_f_itoa(n) // " elements, " // expected
  end function dmesh_f_size_text

  !> \brief Report a failure found by the Fortran layer: \p err in
  !>        \p ierror, \p detail in dmesh_last_error(). Internal (kept
  !>        private by dmesh and dmesh_f08).
  subroutine dmesh_f_fail(ierror, err, detail, mesh)
    integer, optional, intent(out) :: ierror  !< receives err
    integer, intent(in) :: err  !< the error class
    character(len=*), intent(in) :: detail  !< the detail
    type(dmesh_t), optional, intent(in) :: mesh  !< the mesh of the call, if any
    call fail(ierror, err, detail, mesh)
  end subroutine dmesh_f_fail

  !> \brief Report an array argument of the wrong size, found by the Fortran
  !>        layer: \p err in \p ierror, and the detail
  !>        "<routine>: <arg> has <n> elements, <expected>" in
  !>        dmesh_last_error(). Internal (kept private by dmesh and dmesh_f08).
  subroutine dmesh_f_fail_size(ierror, err, routine, arg, n, expected, mesh)
    integer, optional, intent(out) :: ierror  !< receives err
    integer, intent(in) :: err  !< the error class
    character(len=*), intent(in) :: routine  !< the routine's name
    character(len=*), intent(in) :: arg  !< the argument's name
    integer, intent(in) :: n  !< its number of elements
    character(len=*), intent(in) :: expected  !< what C reads or writes
    type(dmesh_t), optional, intent(in) :: mesh  !< the mesh of the call, if any
    call fail(ierror, err, dmesh_f_size_text(routine, arg, n, expected), mesh)
  end subroutine dmesh_f_fail_size

  !> \brief \p i in decimal. Internal.
  function dmesh_f_itoa(i) result(s)
    integer, intent(in) :: i  !< a number
    character(len=:), allocatable :: s  !< its digits
    character(len=24) :: buf
    write (buf, '(i0)') i
    s = trim(buf)
  end function dmesh_f_itoa

  ! trim(s) as a NUL-terminated C string.
  pure function c_string(s) result(cs)
    character(len=*), intent(in) :: s
    character(kind=c_char, len=:), allocatable :: cs
    cs = trim(s) // c_null_char
  end function c_string

  ! A C string (NULL gives "") as an allocatable Fortran string.
  function f_string(p) result(s)
    type(c_ptr), intent(in) :: p
    character(len=:), allocatable :: s
    character(kind=c_char), pointer :: chars(:)
    integer :: i, n
    if (.not. c_associated(p)) then
      s = ""
      return
    end if
    n = int(c_strlen(p))
    call c_f_pointer(p, chars, [n])
    allocate (character(len=n) :: s)
    do i = 1, n
      s(i:i) = chars(i)
    end do
  end function f_string

  ! Convert names (when present) into cn; cn%array is what C gets.
  subroutine pack_names(cn, names)
    type(c_names_t), intent(out), target :: cn
    character(len=*), optional, intent(in) :: names(:)
    integer :: i, k, l, pos
    if (.not. present(names)) return
    allocate (cn%buf(sum(len_trim(names)) + size(names) + 1))
    allocate (cn%ptrs(max(1, size(names))))
    pos = 1
    do i = 1, size(names)
      l = len_trim(names(i))
      do k = 1, l
        cn%buf(pos + k - 1) = names(i)(k:k)
      end do
      cn%buf(pos + l) = c_null_char
      cn%ptrs(i) = c_loc(cn%buf(pos))
      pos = pos + l + 1
    end do
    cn%array = c_loc(cn%ptrs)
  end subroutine pack_names

  ! Whether names, when present, has n entries; rejects the collective call
  ! with DMESH_ERR_NAME if not ("names has 1 elements, <expected>").
  logical function names_ok(routine, n, expected, names)
    character(len=*), intent(in) :: routine
    integer, intent(in) :: n
    character(len=*), intent(in) :: expected
    character(len=*), optional, intent(in) :: names(:)
    names_ok = .true.
    if (.not. present(names)) return
    if (size(names) == n) return
    call dmesh_f_reject(DMESH_ERR_NAME, dmesh_f_size_text(routine, "names", size(names), expected))
    names_ok = .false.
  end function names_ok

  ! "the mesh has <n> dimensions", the usual expectation.
  function dims_text(n) result(s)
    integer, intent(in) :: n
    character(len=:), allocatable :: s
    s = "the mesh has " // dmesh_f_itoa(n) // " dimensions"
  end function dims_text

  ! Whether a rank list has product(shape) entries; reports DMESH_ERR_SIZE if
  ! not. With comm (dmesh_create), entries 0 are chosen by the library so
  ! that the product is the size of comm: the list then has that many.
  ! Shapes the library rejects anyway (negative sizes, zeros without comm,
  ! too many dims, a bad comm) pass: the library reports them before it
  ! reads the ranks.
  logical function ranks_ok(routine, shape, nranks, comm)
    character(len=*), intent(in) :: routine
    integer, intent(in) :: shape(:)
    integer, intent(in) :: nranks
    integer, optional, intent(in) :: comm
    character(len=24) :: num
    integer(int64) :: numel
    integer(c_int) :: csize
    integer :: d
    ranks_ok = .true.
    if (size(shape) < 1 .or. size(shape) > DMESH_MAX_DIMS) return
    if (any(shape < 0)) return
    if (any(shape == 0)) then
      if (.not. present(comm)) return
      if (shim_comm_size(int(comm, c_int), csize) /= 0) return
      numel = csize
    else
      numel = 1
      do d = 1, size(shape)
        numel = min(numel * shape(d), int(huge(1_c_int), int64) + 1)
      end do
    end if
    if (numel == nranks) return
    write (num, '(i0)') numel
    call dmesh_f_reject(DMESH_ERR_SIZE, dmesh_f_size_text(routine, "ranks", nranks, &
                                          "the shape has " // trim(num) // " ranks"))
    ranks_ok = .false.
  end function ranks_ok

  ! Whether an output array of n elements has room for the ndims values of
  ! a mesh; reports DMESH_ERR_ARG if not. An invalid mesh (ndims 0) passes:
  ! the library reports it.
  logical function room_ok(routine, arg, n, mesh, ierror)
    character(len=*), intent(in) :: routine, arg
    integer, intent(in) :: n
    type(dmesh_t), intent(in) :: mesh
    integer, optional, intent(out) :: ierror
    integer :: ndims
    ndims = dmesh_f_ndims(mesh)
    room_ok = n >= ndims
    if (.not. room_ok) call dmesh_f_fail_size(ierror, DMESH_ERR_ARG, routine, arg, n, &
                                              dims_text(ndims), mesh)
  end function room_ok

  !> \brief The binding's own queries raise nothing while \p on (the call
  !>        that follows them raises). Internal.
  subroutine dmesh_f_quiet(on)
    logical, intent(in) :: on  !< quiet or not
    call shim_quiet(merge(1_c_int, 0_c_int, on))
  end subroutine dmesh_f_quiet

  ! The shape of a valid mesh, without raising (the binding's own check).
  integer(c_int) function quiet_shape(mesh, cshape)
    type(dmesh_t), intent(in) :: mesh
    integer(c_int), intent(out) :: cshape(DMESH_MAX_DIMS)
    call shim_quiet(1_c_int)
    quiet_shape = c_get_shape(mesh%ptr, DMESH_MAX_DIMS, cshape)
    call shim_quiet(0_c_int)
  end function quiet_shape

  ! Number of dimensions of a valid mesh (0 if the query fails).
  integer function dmesh_f_ndims(mesh)
    type(dmesh_t), intent(in) :: mesh
    integer(c_int) :: nd
    dmesh_f_ndims = 0
    call shim_quiet(1_c_int) ! a check of the binding's: the call itself raises
    if (c_get_ndims(mesh%ptr, nd) == DMESH_SUCCESS) dmesh_f_ndims = int(nd)
    call shim_quiet(0_c_int)
  end function dmesh_f_ndims

  ! ---------------------------------------------------------------------
  ! Bodies of the routines that take MPI handles; the modules dmesh and
  ! dmesh_f08 convert their handles to integers (MPI_Fint) and call these.

  subroutine dmesh_f_init_impl(comm, device_type, shape, mesh, has_info, info, ierror, names)
    integer, intent(in) :: comm, info
    character(len=*), intent(in) :: device_type
    integer, intent(in) :: shape(:)
    type(dmesh_t), intent(inout) :: mesh
    logical, intent(in) :: has_info
    integer, optional, intent(out) :: ierror
    character(len=*), optional, intent(in) :: names(:)
    type(c_names_t), target :: cn
    integer(c_int) :: cshape(max(1, size(shape)))
    integer(c_int) :: err
    type(c_ptr) :: out
    logical :: ok
    ok = names_ok("dmesh_init", size(shape), dims_text(size(shape)), names)
    if (ok) call pack_names(cn, names)
    cshape(1:size(shape)) = int(shape, c_int)
    ! rejected (ok false): 0 dims, then the call fails with the rejection
    err = shim_init(int(comm, c_int), c_string(device_type), int(merge(size(shape), 0, ok), c_int), cshape, &
                    cn%array, merge(1_c_int, 0_c_int, has_info), int(info, c_int), out)
    mesh%ptr = out ! DMESH_NULL on failure
    call finish(ierror, err)
  end subroutine dmesh_f_init_impl

  subroutine dmesh_f_init_hybrid_impl(comm, device_type, in_node, across, mesh, has_info, info, &
                                      ierror, names)
    integer, intent(in) :: comm, info
    character(len=*), intent(in) :: device_type
    integer, intent(in) :: in_node(:), across(:)
    type(dmesh_t), intent(inout) :: mesh
    logical, intent(in) :: has_info
    integer, optional, intent(out) :: ierror
    character(len=*), optional, intent(in) :: names(:)
    type(c_names_t), target :: cn
    integer(c_int) :: cin(max(1, size(in_node))), cacross(max(1, size(in_node)))
    integer(c_int) :: err
    type(c_ptr) :: out
    logical :: ok
    ok = size(across) == size(in_node)
    if (.not. ok) then
      call dmesh_f_reject(DMESH_ERR_ARG, dmesh_f_size_text("dmesh_init_hybrid", "across", size(across), &
                                           "in_node has " // dmesh_f_itoa(size(in_node))))
    else
      ok = names_ok("dmesh_init_hybrid", size(in_node), dims_text(size(in_node)), names)
    end if
    if (ok) call pack_names(cn, names)
    cin(1:size(in_node)) = int(in_node, c_int)
    cacross = 0
    if (ok) cacross(1:size(across)) = int(across, c_int)
    err = shim_init_hybrid(int(comm, c_int), c_string(device_type), int(merge(size(in_node), 0, ok), c_int), &
                           cin, cacross, cn%array, merge(1_c_int, 0_c_int, has_info), &
                           int(info, c_int), out)
    mesh%ptr = out ! DMESH_NULL on failure
    call finish(ierror, err)
  end subroutine dmesh_f_init_hybrid_impl

  subroutine dmesh_f_create_impl(comm, device_type, shape, ranks, mesh, has_info, info, ierror, &
                                 names)
    integer, intent(in) :: comm, info
    character(len=*), intent(in) :: device_type
    integer, intent(in) :: shape(:), ranks(:)
    type(dmesh_t), intent(inout) :: mesh
    logical, intent(in) :: has_info
    integer, optional, intent(out) :: ierror
    character(len=*), optional, intent(in) :: names(:)
    type(c_names_t), target :: cn
    integer(c_int) :: cshape(max(1, size(shape)))
    integer(c_int), allocatable :: cranks(:)
    integer(c_int) :: err
    type(c_ptr) :: out
    logical :: ok
    ok = names_ok("dmesh_create", size(shape), dims_text(size(shape)), names)
    if (ok) ok = ranks_ok("dmesh_create", shape, size(ranks), comm)
    if (ok) call pack_names(cn, names)
    cshape(1:size(shape)) = int(shape, c_int)
    allocate (cranks(max(1, size(ranks))))
    cranks(1:size(ranks)) = int(ranks, c_int)
    err = shim_create(int(comm, c_int), c_string(device_type), int(merge(size(shape), 0, ok), c_int), cshape, &
                      cranks, cn%array, merge(1_c_int, 0_c_int, has_info), int(info, c_int), out)
    mesh%ptr = out ! DMESH_NULL on failure
    call finish(ierror, err)
  end subroutine dmesh_f_create_impl

  subroutine dmesh_f_from_comms_impl(comm, device_type, dim_comms, shape, mesh, ierror, ranks, &
                                     names)
    integer, intent(in) :: comm
    character(len=*), intent(in) :: device_type
    integer, intent(in) :: dim_comms(:), shape(:)
    type(dmesh_t), intent(inout) :: mesh
    integer, optional, intent(out) :: ierror
    integer, optional, intent(in) :: ranks(:)
    character(len=*), optional, intent(in) :: names(:)
    type(c_names_t), target :: cn
    integer(c_int) :: cshape(max(1, size(shape))), ccomms(max(1, size(shape)))
    integer(c_int), allocatable, target :: cranks(:)
    type(c_ptr) :: ranks_ptr, out
    integer(c_int) :: err
    logical :: ok
    ok = size(dim_comms) == size(shape)
    if (.not. ok) then
      call dmesh_f_reject(DMESH_ERR_ARG, dmesh_f_size_text("dmesh_from_comms", "dim_comms", size(dim_comms), &
                                           dims_text(size(shape))))
    else
      ok = names_ok("dmesh_from_comms", size(shape), dims_text(size(shape)), names)
    end if
    ranks_ptr = c_null_ptr
    if (present(ranks) .and. ok) ok = ranks_ok("dmesh_from_comms", shape, size(ranks))
    if (present(ranks) .and. ok) then
      allocate (cranks(max(1, size(ranks))))
      cranks(1:size(ranks)) = int(ranks, c_int)
      ranks_ptr = c_loc(cranks)
    end if
    if (ok) call pack_names(cn, names)
    cshape(1:size(shape)) = int(shape, c_int)
    ccomms = 0
    if (ok) ccomms(1:size(shape)) = int(dim_comms, c_int)
    err = shim_from_comms(int(comm, c_int), c_string(device_type), int(merge(size(shape), 0, ok), c_int), &
                          ccomms, cshape, ranks_ptr, cn%array, out)
    mesh%ptr = out ! DMESH_NULL on failure
    call finish(ierror, err)
  end subroutine dmesh_f_from_comms_impl

  subroutine dmesh_f_flatten_impl(mesh, flat, has_info, info, ierror, name)
    type(dmesh_t), intent(in) :: mesh
    type(dmesh_t), intent(inout) :: flat
    logical, intent(in) :: has_info
    integer, intent(in) :: info
    integer, optional, intent(out) :: ierror
    character(len=*), optional, intent(in) :: name
    type(c_names_t), target :: cn
    type(c_ptr) :: name_ptr, out
    integer(c_int) :: err
    name_ptr = c_null_ptr
    if (present(name)) then
      call pack_names(cn, [name])
      name_ptr = cn%ptrs(1)
    end if
    err = shim_flatten(mesh%ptr, name_ptr, merge(1_c_int, 0_c_int, has_info), int(info, c_int), &
                       out)
    flat%ptr = out ! DMESH_NULL on failure
    call finish(ierror, err)
  end subroutine dmesh_f_flatten_impl

  subroutine dmesh_f_unflatten_impl(mesh, dim, sizes, out, has_info, info, ierror, names)
    type(dmesh_t), intent(in) :: mesh
    integer, intent(in) :: dim, info
    integer, intent(in) :: sizes(:)
    type(dmesh_t), intent(inout) :: out
    logical, intent(in) :: has_info
    integer, optional, intent(out) :: ierror
    character(len=*), optional, intent(in) :: names(:)
    type(c_names_t), target :: cn
    integer(c_int) :: csizes(max(1, size(sizes)))
    type(c_ptr) :: res
    integer(c_int) :: err
    logical :: ok
    ok = names_ok("dmesh_unflatten", size(sizes), "sizes has " // dmesh_f_itoa(size(sizes)), names)
    if (ok) call pack_names(cn, names)
    csizes(1:size(sizes)) = int(sizes, c_int)
    err = shim_unflatten(mesh%ptr, int(dim, c_int), int(merge(size(sizes), 0, ok), c_int), csizes, cn%array, &
                         merge(1_c_int, 0_c_int, has_info), int(info, c_int), res)
    out%ptr = res ! DMESH_NULL on failure
    call finish(ierror, err)
  end subroutine dmesh_f_unflatten_impl

  subroutine dmesh_f_unflatten_by_name_impl(mesh, dim_name, sizes, out, has_info, info, ierror, &
                                            names)
    type(dmesh_t), intent(in) :: mesh
    character(len=*), intent(in) :: dim_name
    integer, intent(in) :: info
    integer, intent(in) :: sizes(:)
    type(dmesh_t), intent(inout) :: out
    logical, intent(in) :: has_info
    integer, optional, intent(out) :: ierror
    character(len=*), optional, intent(in) :: names(:)
    type(c_names_t), target :: cn
    integer(c_int) :: csizes(max(1, size(sizes)))
    type(c_ptr) :: res
    integer(c_int) :: err
    logical :: ok
    ok = names_ok("dmesh_unflatten_by_name", size(sizes), "sizes has " // &
                  dmesh_f_itoa(size(sizes)), names)
    if (ok) call pack_names(cn, names)
    csizes(1:size(sizes)) = int(sizes, c_int)
    err = shim_unflatten_by_name(mesh%ptr, c_string(dim_name), int(merge(size(sizes), 0, ok), c_int), &
                                 csizes, cn%array, merge(1_c_int, 0_c_int, has_info), &
                                 int(info, c_int), res)
    out%ptr = res ! DMESH_NULL on failure
    call finish(ierror, err)
  end subroutine dmesh_f_unflatten_by_name_impl

  subroutine dmesh_f_get_comm_impl(mesh, dim, comm, ierror)
    type(dmesh_t), intent(in) :: mesh
    integer, intent(in) :: dim
    integer, intent(out) :: comm
    integer, optional, intent(out) :: ierror
    integer(c_int) :: c, err
    err = shim_get_comm(mesh%ptr, int(dim, c_int), c)
    comm = int(c) ! MPI_COMM_NULL on failure
    call finish(ierror, err)
  end subroutine dmesh_f_get_comm_impl

  subroutine dmesh_f_get_comm_by_name_impl(mesh, dim_name, comm, ierror)
    type(dmesh_t), intent(in) :: mesh
    character(len=*), intent(in) :: dim_name
    integer, intent(out) :: comm
    integer, optional, intent(out) :: ierror
    integer(c_int) :: c, err
    err = shim_get_comm_by_name(mesh%ptr, c_string(dim_name), c)
    comm = int(c) ! MPI_COMM_NULL on failure
    call finish(ierror, err)
  end subroutine dmesh_f_get_comm_by_name_impl

  ! The index of the dimension called dim_name, for the binding's own
  ! checks of array sizes (-1 when the mesh has none: the call itself then
  ! reports the name).
  integer function dmesh_f_quiet_dim(mesh, dim_name)
    type(dmesh_t), intent(in) :: mesh
    character(len=*), intent(in) :: dim_name
    integer(c_int) :: d
    dmesh_f_quiet_dim = -1
    call shim_quiet(1_c_int)
    if (c_get_dim_index(mesh%ptr, c_string(dim_name), d) == DMESH_SUCCESS) &
      dmesh_f_quiet_dim = int(d)
    call shim_quiet(0_c_int)
  end function dmesh_f_quiet_dim

  ! ---------------------------------------------------------------------
  ! Routines without MPI handles

  !> \brief Whether \p mesh is the null handle.
  elemental logical function dmesh_is_null(mesh)
    type(dmesh_t), intent(in) :: mesh  !< a mesh handle
    dmesh_is_null = .not. c_associated(mesh%ptr)
  end function dmesh_is_null

  !> \brief Free a mesh handle and set it to DMESH_NULL (dmesh_free()).
  !> A null handle is accepted. Local, except for the last mesh of a
  !> universe, which frees its communicators collectively.
  subroutine dmesh_free(mesh, ierror)
    type(dmesh_t), intent(inout) :: mesh  !< handle to free
    integer, optional, intent(out) :: ierror  !< error class
    call finish(ierror, c_free(mesh%ptr))
  end subroutine dmesh_free

  !> \brief Tear down every communicator of the universe of \p mesh without
  !>        waiting for the other ranks (dmesh_abort()). Local.
  subroutine dmesh_abort(mesh, ierror)
    type(dmesh_t), intent(in) :: mesh  !< any mesh of the universe
    integer, optional, intent(out) :: ierror  !< error class
    call finish(ierror, c_abort(mesh%ptr))
  end subroutine dmesh_abort

  !> \brief Select dimensions by name (dmesh_slice(); PyTorch's
  !>        `mesh["dp", "tp"]`). Local: creates no communicator.
  subroutine dmesh_slice(mesh, names, submesh, ierror)
    type(dmesh_t), intent(in) :: mesh  !< a named mesh
    character(len=*), intent(in) :: names(:)  !< names, outer to inner
    type(dmesh_t), intent(inout) :: submesh  !< the slice
    integer, optional, intent(out) :: ierror  !< error class
    type(c_names_t), target :: cn
    type(c_ptr) :: out
    integer(c_int) :: err
    call pack_names(cn, names)
    err = c_slice(mesh%ptr, int(size(names), c_int), cn%array, out)
    submesh%ptr = out ! DMESH_NULL on failure
    call finish(ierror, err)
  end subroutine dmesh_slice

  !> \brief Join the dimensions of meshes of one universe (dmesh_concatenate()).
  !>        Local.
  subroutine dmesh_concatenate(meshes, out, ierror)
    type(dmesh_t), intent(in) :: meshes(:)  !< meshes with disjoint dimensions
    type(dmesh_t), intent(inout) :: out  !< the joined mesh
    integer, optional, intent(out) :: ierror  !< error class
    type(c_ptr) :: ptrs(max(1, size(meshes))), res
    integer(c_int) :: err
    integer :: i
    do i = 1, size(meshes)
      ptrs(i) = meshes(i)%ptr
    end do
    err = c_concatenate(int(size(meshes), c_int), ptrs, res)
    out%ptr = res ! DMESH_NULL on failure
    call finish(ierror, err)
  end subroutine dmesh_concatenate

  !> \brief Number of dimensions (dmesh_get_ndims()). Local.
  subroutine dmesh_get_ndims(mesh, ndims, ierror)
    type(dmesh_t), intent(in) :: mesh  !< the mesh
    integer, intent(out) :: ndims  !< number of dimensions
    integer, optional, intent(out) :: ierror  !< error class
    integer(c_int) :: nd, err
    err = c_get_ndims(mesh%ptr, nd)
    if (err == DMESH_SUCCESS) ndims = int(nd)
    call finish(ierror, err)
  end subroutine dmesh_get_ndims

  !> \brief Size of each dimension (dmesh_get_shape()). Local.
  !> \p shape must have at least ndims elements (DMESH_ERR_ARG otherwise);
  !> only the first ndims are written.
  subroutine dmesh_get_shape(mesh, shape, ierror)
    type(dmesh_t), intent(in) :: mesh  !< the mesh
    integer, intent(inout) :: shape(:)  !< sizes, outermost first
    integer, optional, intent(out) :: ierror  !< error class
    integer(c_int) :: cshape(max(1, size(shape))), err
    integer :: nd
    if (.not. room_ok("dmesh_get_shape", "shape", size(shape), mesh, ierror)) return
    err = c_get_shape(mesh%ptr, int(size(shape), c_int), cshape)
    if (err == DMESH_SUCCESS) then
      nd = dmesh_f_ndims(mesh)
      shape(1:nd) = int(cshape(1:nd))
    end if
    call finish(ierror, err)
  end subroutine dmesh_get_shape

  !> \brief Number of ranks in one copy of the mesh (dmesh_get_size()). Local.
  subroutine dmesh_get_size(mesh, size, ierror)
    type(dmesh_t), intent(in) :: mesh  !< the mesh
    integer, intent(out) :: size  !< product of the shape
    integer, optional, intent(out) :: ierror  !< error class
    integer(c_int) :: n, err
    err = c_get_size(mesh%ptr, n)
    if (err == DMESH_SUCCESS) size = int(n)
    call finish(ierror, err)
  end subroutine dmesh_get_size

  !> \brief Whether the groups of dimension \p dim (0-based) stay inside a
  !>        node, spread one rank per node, or neither
  !>        (dmesh_get_dim_locality()). Collective over the root communicator
  !>        at its first call on a universe whose nodes are not known yet.
  subroutine dmesh_get_dim_locality(mesh, dim, kind, ierror)
    type(dmesh_t), intent(in) :: mesh  !< the mesh
    integer, intent(in) :: dim  !< dimension index, 0-based
    integer, intent(out) :: kind  !< DMESH_LOCALITY_NODE, _ACROSS or _MIXED
    integer, optional, intent(out) :: ierror  !< error class
    integer(c_int) :: k, err
    err = c_get_dim_locality(mesh%ptr, int(dim, c_int), k)
    if (err == DMESH_SUCCESS) kind = int(k)
    call finish(ierror, err)
  end subroutine dmesh_get_dim_locality

  !> \brief dmesh_get_dim_locality() of the dimension called \p dim
  !>        (dmesh_get_dim_locality_by_name()).
  subroutine dmesh_get_dim_locality_by_name(mesh, dim, kind, ierror)
    type(dmesh_t), intent(in) :: mesh  !< the mesh
    character(len=*), intent(in) :: dim  !< dimension name
    integer, intent(out) :: kind  !< DMESH_LOCALITY_NODE, _ACROSS or _MIXED
    integer, optional, intent(out) :: ierror  !< error class (DMESH_ERR_NAME: no such name)
    integer(c_int) :: k, err
    err = c_get_dim_locality_by_name(mesh%ptr, c_string(dim), k)
    if (err == DMESH_SUCCESS) kind = int(k)
    call finish(ierror, err)
  end subroutine dmesh_get_dim_locality_by_name

  !> \brief Size of dimension \p dim (dmesh_get_dim_size(); PyTorch's
  !>        `mesh.size(dim)`). Local.
  subroutine dmesh_get_dim_size(mesh, dim, size, ierror)
    type(dmesh_t), intent(in) :: mesh  !< the mesh
    integer, intent(in) :: dim  !< dimension index, 0-based
    integer, intent(out) :: size  !< ranks in each group along \p dim
    integer, optional, intent(out) :: ierror  !< error class
    integer(c_int) :: n, err
    err = c_get_dim_size(mesh%ptr, int(dim, c_int), n)
    if (err == DMESH_SUCCESS) size = int(n)
    call finish(ierror, err)
  end subroutine dmesh_get_dim_size

  !> \brief Size of the dimension called \p dim (dmesh_get_dim_size_by_name()).
  !>        Local.
  subroutine dmesh_get_dim_size_by_name(mesh, dim, size, ierror)
    type(dmesh_t), intent(in) :: mesh  !< the mesh
    character(len=*), intent(in) :: dim  !< dimension name
    integer, intent(out) :: size  !< ranks in each group along that dimension
    integer, optional, intent(out) :: ierror  !< error class (DMESH_ERR_NAME: no such name)
    integer(c_int) :: n, err
    err = c_get_dim_size_by_name(mesh%ptr, c_string(dim), n)
    if (err == DMESH_SUCCESS) size = int(n)
    call finish(ierror, err)
  end subroutine dmesh_get_dim_size_by_name

  !> \brief Name of dimension \p dim (0-based); "" for an unnamed mesh
  !>        (dmesh_get_dim_name()). Local.
  subroutine dmesh_get_dim_name(mesh, dim, name, ierror)
    type(dmesh_t), intent(in) :: mesh  !< the mesh
    integer, intent(in) :: dim  !< dimension index, 0-based
    character(len=:), allocatable, intent(out) :: name  !< the name
    integer, optional, intent(out) :: ierror  !< error class
    type(c_ptr) :: p
    integer(c_int) :: err
    err = c_get_dim_name(mesh%ptr, int(dim, c_int), p)
    if (err == DMESH_SUCCESS) name = f_string(p)
    call finish(ierror, err)
  end subroutine dmesh_get_dim_name

  !> \brief 0-based index of the dimension called \p name
  !>        (dmesh_get_dim_index()). Local.
  subroutine dmesh_get_dim_index(mesh, name, dim, ierror)
    type(dmesh_t), intent(in) :: mesh  !< the mesh
    character(len=*), intent(in) :: name  !< a dimension name
    integer, intent(out) :: dim  !< its index, 0-based
    integer, optional, intent(out) :: ierror  !< error class (DMESH_ERR_NAME if unknown)
    integer(c_int) :: d, err
    err = c_get_dim_index(mesh%ptr, c_string(name), d)
    if (err == DMESH_SUCCESS) dim = int(d)
    call finish(ierror, err)
  end subroutine dmesh_get_dim_index

  !> \brief Device type, "cpu" or "cuda" (dmesh_get_device_type()). Local.
  subroutine dmesh_get_device_type(mesh, device_type, ierror)
    type(dmesh_t), intent(in) :: mesh  !< the mesh
    character(len=:), allocatable, intent(out) :: device_type  !< the device type
    integer, optional, intent(out) :: ierror  !< error class
    type(c_ptr) :: p
    integer(c_int) :: err
    err = c_get_device_type(mesh%ptr, p)
    if (err == DMESH_SUCCESS) device_type = f_string(p)
    call finish(ierror, err)
  end subroutine dmesh_get_device_type

  !> \brief Coordinate of the calling rank, 0-based (dmesh_get_coordinate()).
  !>        Local. \p coords needs at least ndims elements, on every rank
  !>        (DMESH_ERR_ARG otherwise); its first ndims are MPI_UNDEFINED when
  !>        the caller is outside the mesh.
  subroutine dmesh_get_coordinate(mesh, coords, is_member, ierror)
    type(dmesh_t), intent(in) :: mesh  !< the mesh
    integer, intent(inout) :: coords(:)  !< coords(d+1): coordinate along dimension d
    logical, intent(out) :: is_member  !< whether the caller is part of the mesh
    integer, optional, intent(out) :: ierror  !< error class
    integer(c_int) :: ccoords(max(1, size(coords))), member, err
    integer :: nd
    if (.not. room_ok("dmesh_get_coordinate", "coords", size(coords), mesh, ierror)) &
      return
    err = c_get_coordinate(mesh%ptr, int(size(coords), c_int), ccoords, member)
    if (err == DMESH_SUCCESS) then
      is_member = member /= 0
      nd = dmesh_f_ndims(mesh)
      if (is_member) coords(1:nd) = int(ccoords(1:nd))
      if (.not. is_member) coords(1:nd) = MPI_UNDEFINED
    end if
    call finish(ierror, err)
  end subroutine dmesh_get_coordinate

  !> \brief Rank of the caller in the communicator of dimension \p dim, i.e.
  !>        its coordinate on \p dim (dmesh_get_local_rank()). Local.
  subroutine dmesh_get_local_rank(mesh, dim, rank, ierror)
    type(dmesh_t), intent(in) :: mesh  !< the mesh
    integer, intent(in) :: dim  !< dimension index, 0-based
    integer, intent(out) :: rank  !< the local rank, 0-based
    integer, optional, intent(out) :: ierror  !< error class (DMESH_ERR_NOT_MEMBER)
    integer(c_int) :: r, err
    err = c_get_local_rank(mesh%ptr, int(dim, c_int), r)
    if (err == DMESH_SUCCESS) rank = int(r)
    call finish(ierror, err)
  end subroutine dmesh_get_local_rank

  !> \brief Rank of the caller in the communicator of the dimension called
  !>        \p dim (dmesh_get_local_rank_by_name()). Local.
  subroutine dmesh_get_local_rank_by_name(mesh, dim, rank, ierror)
    type(dmesh_t), intent(in) :: mesh  !< the mesh
    character(len=*), intent(in) :: dim  !< dimension name
    integer, intent(out) :: rank  !< the local rank, 0-based
    integer, optional, intent(out) :: ierror  !< error class (DMESH_ERR_NAME: no such name)
    integer(c_int) :: r, err
    err = c_get_local_rank_by_name(mesh%ptr, c_string(dim), r)
    if (err == DMESH_SUCCESS) rank = int(r)
    call finish(ierror, err)
  end subroutine dmesh_get_local_rank_by_name

  !> \brief Members of the caller's group along \p dim, as ranks of the root
  !>        communicator in local-rank order (dmesh_get_group_ranks()). Local.
  !>        \p ranks needs at least as many elements as \p dim has ranks
  !>        (DMESH_ERR_ARG otherwise).
  subroutine dmesh_get_group_ranks(mesh, dim, ranks, nranks, ierror)
    type(dmesh_t), intent(in) :: mesh  !< the mesh
    integer, intent(in) :: dim  !< dimension index, 0-based
    integer, intent(inout) :: ranks(:)  !< the members (capacity >= size of dim)
    integer, intent(out) :: nranks  !< number written
    integer, optional, intent(out) :: ierror  !< error class
    integer(c_int), allocatable :: cranks(:)
    integer(c_int) :: n, err, cshape(DMESH_MAX_DIMS)
    if (dim >= 0 .and. dim < dmesh_f_ndims(mesh)) then
      if (quiet_shape(mesh, cshape) == DMESH_SUCCESS) then
        if (size(ranks) < cshape(dim + 1)) then
          call dmesh_f_fail_size(ierror, DMESH_ERR_ARG, "dmesh_get_group_ranks", "ranks", &
                                 size(ranks), "dim " // dmesh_f_itoa(dim) // " has " // &
                                 dmesh_f_itoa(int(cshape(dim + 1))) // " ranks", mesh)
          return
        end if
      end if
    end if
    allocate (cranks(max(1, size(ranks))))
    err = c_get_group_ranks(mesh%ptr, int(dim, c_int), int(size(ranks), c_int), cranks, n)
    if (err == DMESH_SUCCESS) then
      nranks = int(n)
      ranks(1:n) = int(cranks(1:n))
    end if
    call finish(ierror, err)
  end subroutine dmesh_get_group_ranks

  !> \brief Members of the caller's group along the dimension called \p dim
  !>        (dmesh_get_group_ranks_by_name()). Local. \p ranks needs at
  !>        least as many elements as that dimension has ranks.
  subroutine dmesh_get_group_ranks_by_name(mesh, dim, ranks, nranks, ierror)
    type(dmesh_t), intent(in) :: mesh  !< the mesh
    character(len=*), intent(in) :: dim  !< dimension name
    integer, intent(inout) :: ranks(:)  !< the members (capacity >= size of dim)
    integer, intent(out) :: nranks  !< number written
    integer, optional, intent(out) :: ierror  !< error class (DMESH_ERR_NAME: no such name)
    integer(c_int), allocatable :: cranks(:)
    integer(c_int) :: n, err, cshape(DMESH_MAX_DIMS)
    integer :: d
    d = dmesh_f_quiet_dim(mesh, dim)
    if (d >= 0) then
      if (quiet_shape(mesh, cshape) == DMESH_SUCCESS) then
        if (size(ranks) < cshape(d + 1)) then
          call dmesh_f_fail_size(ierror, DMESH_ERR_ARG, "dmesh_get_group_ranks_by_name", &
                                 "ranks", size(ranks), "dim " // trim(dim) // " has " // &
                                 dmesh_f_itoa(int(cshape(d + 1))) // " ranks", mesh)
          return
        end if
      end if
    end if
    allocate (cranks(max(1, size(ranks))))
    err = c_get_group_ranks_by_name(mesh%ptr, c_string(dim), int(size(ranks), c_int), cranks, n)
    if (err == DMESH_SUCCESS) then
      nranks = int(n)
      ranks(1:n) = int(cranks(1:n))
    end if
    call finish(ierror, err)
  end subroutine dmesh_get_group_ranks_by_name

  !> \brief The "mesh tensor": ranks of the caller's copy of the mesh,
  !>        row-major (dmesh_get_ranks()). Local. \p ranks needs at least
  !>        the mesh's size elements (DMESH_ERR_ARG otherwise).
  subroutine dmesh_get_ranks(mesh, ranks, nranks, ierror)
    type(dmesh_t), intent(in) :: mesh  !< the mesh
    integer, intent(inout) :: ranks(:)  !< the ranks (capacity >= the mesh size)
    integer, intent(out) :: nranks  !< number written
    integer, optional, intent(out) :: ierror  !< error class
    integer(c_int), allocatable :: cranks(:)
    integer(c_int) :: n, err
    call shim_quiet(1_c_int)
    err = c_get_size(mesh%ptr, n)
    call shim_quiet(0_c_int)
    if (err == DMESH_SUCCESS) then
      if (size(ranks) < n) then
        call dmesh_f_fail_size(ierror, DMESH_ERR_ARG, "dmesh_get_ranks", "ranks", size(ranks), &
                               "the mesh has " // dmesh_f_itoa(int(n)) // " ranks", mesh)
        return
      end if
    end if
    allocate (cranks(max(1, size(ranks))))
    err = c_get_ranks(mesh%ptr, int(size(ranks), c_int), cranks, n)
    if (err == DMESH_SUCCESS) then
      nranks = int(n)
      ranks(1:n) = int(cranks(1:n))
    end if
    call finish(ierror, err)
  end subroutine dmesh_get_ranks

  !> \brief CUDA device ordinal of the caller, -1 for "cpu" (dmesh_get_device()).
  subroutine dmesh_get_device(mesh, device, ierror)
    type(dmesh_t), intent(in) :: mesh  !< the mesh
    integer, intent(out) :: device  !< the ordinal
    integer, optional, intent(out) :: ierror  !< error class
    integer(c_int) :: dev, err
    err = c_get_device(mesh%ptr, dev)
    if (err == DMESH_SUCCESS) device = int(dev)
    call finish(ierror, err)
  end subroutine dmesh_get_device

  !> \brief Value equality, as PyTorch's `==` (dmesh_equal()). Local.
  subroutine dmesh_equal(a, b, equal, ierror)
    type(dmesh_t), intent(in) :: a  !< first mesh
    type(dmesh_t), intent(in) :: b  !< second mesh
    logical, intent(out) :: equal  !< whether they are equal
    integer, optional, intent(out) :: ierror  !< error class
    integer(c_int) :: eq, err
    err = c_equal(a%ptr, b%ptr, eq)
    if (err == DMESH_SUCCESS) equal = eq /= 0
    call finish(ierror, err)
  end subroutine dmesh_equal

  !> \brief Human-readable description of a mesh (dmesh_to_string()). Local.
  subroutine dmesh_to_string(mesh, string, ierror)
    type(dmesh_t), intent(in) :: mesh  !< the mesh
    character(len=:), allocatable, intent(out) :: string  !< the description
    integer, optional, intent(out) :: ierror  !< error class
    character(kind=c_char), allocatable :: buf(:)
    integer(c_size_t) :: needed
    integer(c_int) :: err
    integer :: i
    needed = 0
    allocate (buf(1))
    err = c_to_string(mesh%ptr, buf, 0_c_size_t, needed)
    if (err == DMESH_SUCCESS) then
      deallocate (buf)
      allocate (buf(needed + 1))
      err = c_to_string(mesh%ptr, buf, needed + 1, needed)
    end if
    if (err == DMESH_SUCCESS) then
      allocate (character(len=needed) :: string)
      do i = 1, int(needed)
        string(i:i) = buf(i)
      end do
    end if
    call finish(ierror, err)
  end subroutine dmesh_to_string

  !> \brief Cache figures of the universe of \p mesh (dmesh_get_cache_info()).
  subroutine dmesh_get_cache_info(mesh, info, ierror)
    type(dmesh_t), intent(in) :: mesh  !< the mesh
    type(dmesh_cache_info_t), intent(out) :: info  !< the figures
    integer, optional, intent(out) :: ierror  !< error class
    type(dmesh_cache_info_t) :: ci
    integer(c_int) :: err
    err = c_get_cache_info(mesh%ptr, ci)
    if (err == DMESH_SUCCESS) info = ci
    call finish(ierror, err)
  end subroutine dmesh_get_cache_info

  !> \brief Push \p mesh on the calling thread's current-mesh stack (dmesh_push()).
  subroutine dmesh_push(mesh, ierror)
    type(dmesh_t), intent(in) :: mesh  !< the mesh (borrowed by the stack)
    integer, optional, intent(out) :: ierror  !< error class
    call finish(ierror, c_push(mesh%ptr))
  end subroutine dmesh_push

  !> \brief Pop the calling thread's current-mesh stack (dmesh_pop()).
  subroutine dmesh_pop(mesh, ierror)
    type(dmesh_t), optional, intent(inout) :: mesh  !< the popped mesh (omit to discard)
    integer, optional, intent(out) :: ierror  !< error class
    type(c_ptr) :: top
    integer(c_int) :: err
    err = c_pop(top)
    if (err == DMESH_SUCCESS .and. present(mesh)) mesh%ptr = top
    call finish(ierror, err)
  end subroutine dmesh_pop

  !> \brief Top of the calling thread's stack, DMESH_NULL when empty
  !>        (dmesh_get_current()).
  subroutine dmesh_get_current(mesh, ierror)
    type(dmesh_t), intent(inout) :: mesh  !< the current mesh (borrowed)
    integer, optional, intent(out) :: ierror  !< error class
    type(c_ptr) :: top
    integer(c_int) :: err
    err = c_get_current(top)
    mesh%ptr = top ! DMESH_NULL on failure
    call finish(ierror, err)
  end subroutine dmesh_get_current

  !> \brief Name and description of an error class (dmesh_error_string()).
  subroutine dmesh_error_string(errorcode, string, ierror)
    integer, intent(in) :: errorcode  !< an error class
    character(len=:), allocatable, intent(out) :: string  !< its description
    integer, optional, intent(out) :: ierror  !< always DMESH_SUCCESS
    string = f_string(c_error_string(int(errorcode, c_int)))
    if (present(ierror)) ierror = DMESH_SUCCESS
  end subroutine dmesh_error_string

  !> \brief Detail of the last failure on the calling thread, "" if none
  !>        (dmesh_last_error()); includes failures found by the Fortran
  !>        layer itself (an argument array of the wrong size).
  subroutine dmesh_last_error(string, ierror)
    character(len=:), allocatable, intent(out) :: string  !< the detail
    integer, optional, intent(out) :: ierror  !< always DMESH_SUCCESS
    string = f_string(shim_last_error())
    if (present(ierror)) ierror = DMESH_SUCCESS
  end subroutine dmesh_last_error

  !> \brief The DMESH_ERR_* class of an MPI error code that dmesh raised
  !>        (dmesh_error_class()): what an error handler of the program
  !>        receives, mapped back. Local; never calls an error handler.
  subroutine dmesh_error_class(errorcode, errorclass, ierror)
    integer, intent(in) :: errorcode  !< an MPI error code
    integer, intent(inout) :: errorclass  !< its DMESH_ERR_* class (unchanged on failure)
    integer, optional, intent(out) :: ierror  !< DMESH_SUCCESS, or DMESH_ERR_ARG: not dmesh's
    integer(c_int) :: c, err
    err = c_error_class(int(errorcode, c_int), c)
    if (err == DMESH_SUCCESS) errorclass = int(c)
    if (present(ierror)) ierror = int(err)
  end subroutine dmesh_error_class

  !> \brief Revoke the universe of \p mesh (dmesh_revoke()): every process
  !>        blocked in one of its communicators returns; its collective calls
  !>        then fail with DMESH_ERR_PROC_FAILED. Local. DMESH_ERR_UNSUPPORTED
  !>        without fault tolerance (mpiexec --with-ft ulfm, Open MPI 5).
  subroutine dmesh_revoke(mesh, ierror)
    type(dmesh_t), intent(in) :: mesh  !< any mesh of the universe
    integer, optional, intent(out) :: ierror  !< error class
    call finish(ierror, c_revoke(mesh%ptr))
  end subroutine dmesh_revoke

  !> \brief The failed processes known here (dmesh_get_failed()): ascending
  !>        ranks of the communicator the root mesh was made from, the first
  !>        size(ranks) of them written. Local.
  subroutine dmesh_get_failed(mesh, ranks, nfailed, ierror)
    type(dmesh_t), intent(in) :: mesh  !< any mesh of the universe
    integer, intent(inout) :: ranks(:)  !< the failed ranks (its size: the room)
    integer, intent(inout) :: nfailed  !< how many failed (may exceed size(ranks))
    integer, optional, intent(out) :: ierror  !< error class
    integer(c_int) :: cranks(max(1, size(ranks))), n
    integer(c_int) :: err
    integer :: k
    err = c_get_failed(mesh%ptr, int(size(ranks), c_int), cranks, n)
    if (err == DMESH_SUCCESS) then
      k = min(int(n), size(ranks))
      ranks(1:k) = int(cranks(1:k))
      nfailed = int(n)
    end if
    call finish(ierror, err)
  end subroutine dmesh_get_failed

  subroutine dmesh_f_shrink_impl(mesh, dim, newmesh, has_info, info, want, survivors, ok, ierror)
    type(dmesh_t), intent(in) :: mesh
    integer, intent(in) :: dim, info
    type(dmesh_t), intent(inout) :: newmesh
    logical, intent(in) :: has_info, want
    integer, intent(out) :: survivors
    logical, intent(out) :: ok
    integer, optional, intent(out) :: ierror
    type(c_ptr) :: out
    integer(c_int) :: err, s
    s = 0
    err = shim_shrink(mesh%ptr, int(dim, c_int), merge(1_c_int, 0_c_int, has_info), &
                      int(info, c_int), merge(1_c_int, 0_c_int, want), s, out)
    ok = err == DMESH_SUCCESS
    survivors = int(s)
    newmesh%ptr = out ! DMESH_NULL on failure
    call finish(ierror, err)
  end subroutine dmesh_f_shrink_impl

  ! dmesh_respawn (dim < 0) or dmesh_grow: newcomm as an integer handle
  subroutine dmesh_f_respawn_impl(mesh, dim, n, command, has_info, info, newcomm, newmesh, &
                                  ierror)
    type(dmesh_t), intent(in) :: mesh
    integer, intent(in) :: dim, n, info
    character(len=*), intent(in) :: command
    logical, intent(in) :: has_info
    integer, intent(out) :: newcomm
    type(dmesh_t), intent(inout) :: newmesh
    integer, optional, intent(out) :: ierror
    type(c_ptr) :: out
    integer(c_int) :: err, c
    c = 0
    if (dim < 0) then
      err = shim_respawn(mesh%ptr, c_string(command), merge(1_c_int, 0_c_int, has_info), &
                         int(info, c_int), c, out)
    else
      err = shim_grow(mesh%ptr, int(dim, c_int), int(n, c_int), c_string(command), &
                      merge(1_c_int, 0_c_int, has_info), int(info, c_int), c, out)
    end if
    newcomm = int(c) ! MPI_COMM_NULL on failure
    newmesh%ptr = out ! DMESH_NULL on failure
    call finish(ierror, err)
  end subroutine dmesh_f_respawn_impl

  ! The _by_name twins of the three above (dmesh_shrink's and dmesh_grow's).
  subroutine dmesh_f_shrink_by_name_impl(mesh, dim_name, newmesh, has_info, info, want, &
                                         survivors, ok, ierror)
    type(dmesh_t), intent(in) :: mesh
    character(len=*), intent(in) :: dim_name
    integer, intent(in) :: info
    type(dmesh_t), intent(inout) :: newmesh
    logical, intent(in) :: has_info, want
    integer, intent(out) :: survivors
    logical, intent(out) :: ok
    integer, optional, intent(out) :: ierror
    type(c_ptr) :: out
    integer(c_int) :: err, s
    s = 0
    err = shim_shrink_by_name(mesh%ptr, c_string(dim_name), merge(1_c_int, 0_c_int, has_info), &
                              int(info, c_int), merge(1_c_int, 0_c_int, want), s, out)
    ok = err == DMESH_SUCCESS
    survivors = int(s)
    newmesh%ptr = out ! DMESH_NULL on failure
    call finish(ierror, err)
  end subroutine dmesh_f_shrink_by_name_impl

  subroutine dmesh_f_grow_by_name_impl(mesh, dim_name, n, command, has_info, info, newcomm, &
                                       newmesh, ierror)
    type(dmesh_t), intent(in) :: mesh
    character(len=*), intent(in) :: dim_name, command
    integer, intent(in) :: n, info
    logical, intent(in) :: has_info
    integer, intent(out) :: newcomm
    type(dmesh_t), intent(inout) :: newmesh
    integer, optional, intent(out) :: ierror
    type(c_ptr) :: out
    integer(c_int) :: err, c
    c = 0
    err = shim_grow_by_name(mesh%ptr, c_string(dim_name), int(n, c_int), c_string(command), &
                            merge(1_c_int, 0_c_int, has_info), int(info, c_int), c, out)
    newcomm = int(c) ! MPI_COMM_NULL on failure
    newmesh%ptr = out ! DMESH_NULL on failure
    call finish(ierror, err)
  end subroutine dmesh_f_grow_by_name_impl

  subroutine dmesh_f_join_impl(has_info, info, reason, newcomm, newmesh, ierror)
    logical, intent(in) :: has_info
    integer, intent(in) :: info
    integer, intent(out) :: reason, newcomm
    type(dmesh_t), intent(inout) :: newmesh
    integer, optional, intent(out) :: ierror
    type(c_ptr) :: out
    integer(c_int) :: err, c, r
    c = 0
    r = 0
    err = shim_join(merge(1_c_int, 0_c_int, has_info), int(info, c_int), r, c, out)
    reason = int(r)
    newcomm = int(c)
    newmesh%ptr = out
    call finish(ierror, err)
  end subroutine dmesh_f_join_impl

  ! dmesh_start: dmesh_init's checks of the names (a new process, which
  ! joins, reads neither shape nor names); newcomm as an integer handle.
  subroutine dmesh_f_start_impl(comm, device_type, shape, newcomm, mesh, has_info, info, ierror, &
                                names)
    integer, intent(in) :: comm, info
    character(len=*), intent(in) :: device_type
    integer, intent(in) :: shape(:)
    integer, intent(out) :: newcomm
    type(dmesh_t), intent(inout) :: mesh
    logical, intent(in) :: has_info
    integer, optional, intent(out) :: ierror
    character(len=*), optional, intent(in) :: names(:)
    type(c_names_t), target :: cn
    integer(c_int) :: cshape(max(1, size(shape)))
    integer(c_int) :: err, c
    type(c_ptr) :: out
    logical :: ok
    ok = names_ok("dmesh_start", size(shape), dims_text(size(shape)), names)
    if (ok) call pack_names(cn, names)
    cshape(1:size(shape)) = int(shape, c_int)
    c = 0
    ! rejected (ok false): 0 dims, then the call fails with the rejection
    err = shim_start(int(comm, c_int), c_string(device_type), &
                     int(merge(size(shape), 0, ok), c_int), cshape, cn%array, &
                     merge(1_c_int, 0_c_int, has_info), int(info, c_int), c, out)
    newcomm = int(c) ! MPI_COMM_NULL on failure
    mesh%ptr = out ! DMESH_NULL on failure
    call finish(ierror, err)
  end subroutine dmesh_f_start_impl

  !> \brief Agree a step's outcome (dmesh_agree_step()): \p ok becomes
  !>        .true. on every process exactly when it was .true. on every
  !>        process and no process failed. Collective over the communicator
  !>        the mesh was made from under fault tolerance, where a process
  !>        that passes .false. first revokes the mesh's universe and that
  !>        communicator; without fault tolerance local, \p ok unchanged.
  subroutine dmesh_agree_step(mesh, ok, ierror)
    type(dmesh_t), intent(in) :: mesh  !< a mesh of the program (any of its universe)
    logical, intent(inout) :: ok  !< in: the step succeeded here; out: agreed
    integer, optional, intent(out) :: ierror  !< error class
    integer(c_int) :: flag, err
    flag = merge(1_c_int, 0_c_int, ok)
    err = c_agree_step(mesh%ptr, flag)
    if (err == DMESH_SUCCESS) ok = flag /= 0
    call finish(ierror, err)
  end subroutine dmesh_agree_step

  ! dmesh_repair: comm as an integer handle, replaced (with mesh) where the
  ! library replaces it; version DMESH_COPIES_NONE (-1) on failure, as
  ! dmesh_copies_restore's.
  subroutine dmesh_f_repair_impl(mesh, comm, version, has_info, info, ierror)
    type(dmesh_t), intent(inout) :: mesh
    integer, intent(inout) :: comm
    integer, intent(out) :: version
    logical, intent(in) :: has_info
    integer, intent(in) :: info
    integer, optional, intent(out) :: ierror
    integer(c_int) :: err, c, v
    c = int(comm, c_int)
    v = -1
    err = shim_repair(mesh%ptr, c, merge(1_c_int, 0_c_int, has_info), int(info, c_int), v)
    comm = int(c)
    version = int(v)
    call finish(ierror, err)
  end subroutine dmesh_f_repair_impl

end module dmesh_base

#include "dmesh_sim.inc"
#include "dmesh_version.inc"
#include "dmesh_copies.inc"

! The modules dmesh and dmesh_f08 differ only in their MPI handle types.
! Each is written as this table of C preprocessor macros and an include of
! dmesh_handles.inc, which holds everything else, once: the uses of
! dmesh_base, dmesh_sim_base and dmesh_version_base (re-exported, the
! dmesh_f_*_impl routines made private), the generic interfaces and the
! routines with MPI handles.
!   DMESH_MPI_F08               defined: the handle types of mpi_f08
!   DMESH_COMM_T, DMESH_INFO_T  the handle types;
!   DMESH_FINT(h)               handle h as an integer (MPI_Fint);
!   DMESH_HANDLES               the kind of handles, for the doc comments;
!   DMESH_*_S                   the names of the specific procedures, which
!                               are symbols of libdmesh_fortran.
! (Doxygen reads this file through the preprocessor too: doc/Doxyfile.in.)

!> \brief dmesh for programs that `use mpi` (or include mpif.h):
!>        communicators and info objects are INTEGER handles.
module dmesh
#define DMESH_COMM_T integer
#define DMESH_INFO_T integer
#define DMESH_FINT(h) h
#define DMESH_HANDLES INTEGER
#define DMESH_INIT_S dmesh_init_int
#define DMESH_INIT_HYBRID_S dmesh_init_hybrid_int
#define DMESH_CREATE_S dmesh_create_int
#define DMESH_FROM_COMMS_S dmesh_from_comms_int
#define DMESH_FLATTEN_S dmesh_flatten_int
#define DMESH_UNFLATTEN_S dmesh_unflatten_int
#define DMESH_UNFLATTEN_NAME_S dmesh_unflatten_by_name_int
#define DMESH_GET_COMM_S dmesh_get_comm_int
#define DMESH_GET_COMM_NAME_S dmesh_get_comm_by_name_int
#define DMESH_SHRINK_S dmesh_shrink_int
#define DMESH_SHRINK_NAME_S dmesh_shrink_by_name_int
#define DMESH_RESPAWN_S dmesh_respawn_int
#define DMESH_GROW_S dmesh_grow_int
#define DMESH_GROW_NAME_S dmesh_grow_by_name_int
#define DMESH_JOIN_S dmesh_join_int
#define DMESH_COPIES_OPEN_S dmesh_copies_open_int
#define DMESH_START_S dmesh_start_int
#define DMESH_REPAIR_S dmesh_repair_int
#include "dmesh_handles.inc"
end module dmesh

!> \brief dmesh for programs that `use mpi_f08`: communicators and info
!>        objects are TYPE(MPI_Comm) and TYPE(MPI_Info).
module dmesh_f08
#define DMESH_MPI_F08
#define DMESH_COMM_T type(MPI_Comm)
#define DMESH_INFO_T type(MPI_Info)
#define DMESH_FINT(h) h%MPI_VAL
#define DMESH_HANDLES mpi_f08
#define DMESH_INIT_S dmesh_init_f08
#define DMESH_INIT_HYBRID_S dmesh_init_hybrid_f08
#define DMESH_CREATE_S dmesh_create_f08
#define DMESH_FROM_COMMS_S dmesh_from_comms_f08
#define DMESH_FLATTEN_S dmesh_flatten_f08
#define DMESH_UNFLATTEN_S dmesh_unflatten_f08
#define DMESH_UNFLATTEN_NAME_S dmesh_unflatten_by_name_f08
#define DMESH_GET_COMM_S dmesh_get_comm_f08
#define DMESH_GET_COMM_NAME_S dmesh_get_comm_by_name_f08
#define DMESH_SHRINK_S dmesh_shrink_f08
#define DMESH_SHRINK_NAME_S dmesh_shrink_by_name_f08
#define DMESH_RESPAWN_S dmesh_respawn_f08
#define DMESH_GROW_S dmesh_grow_f08
#define DMESH_GROW_NAME_S dmesh_grow_by_name_f08
#define DMESH_JOIN_S dmesh_join_f08
#define DMESH_COPIES_OPEN_S dmesh_copies_open_f08
#define DMESH_START_S dmesh_start_f08
#define DMESH_REPAIR_S dmesh_repair_f08
#include "dmesh_handles.inc"
end module dmesh_f08
