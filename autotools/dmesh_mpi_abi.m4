# SPDX-License-Identifier: BSD-3-Clause
# --with-mpi-abi[=DIR]: one libdmesh for every MPI. The C library, tools and
# tests are built with the plain C compiler against the MPI-5 standard ABI
# (its mpi.h, and libmpi_abi.so.1, whose soname every implementation that
# ships the ABI shares: MPICH 5, Open MPI 6), and run under whichever of them
# the loader finds. The ABI's mpi.h and library come from
#   DIR                    DIR/include/mpi.h (or include/standard_abi/mpi.h,
#                          Open MPI's layout, or include/mpi_abi.h, MPICH's:
#                          mpi.h with -DMPI_ABI) and DIR/lib or DIR/lib64
#   MPI_PC=module          that pkg-config module
#   (neither)              pkg-config ompi-abi or mpi-abi; then Open MPI's
#                          ompi-abi.pc beside its ompi-c.pc; then MPICH's
#                          mpi_abi.h beside the mpi.h of its mpich.pc
# A given MPICC (MPICC='mpicc.mpich -mpi-abi') is used as it is, and must
# compile and link an ABI program, or configure stops naming it. The ABI has
# C only (no Fortran module) and no fault-tolerance extension (no MPIX_
# calls: dmesh_revoke, dmesh_shrink, dmesh_get_failed return
# DMESH_ERR_UNSUPPORTED), and no vendor macro applies.

# DMESH_MPI_ABI_ARG: the option, before the compiler is chosen.
AC_DEFUN([DMESH_MPI_ABI_ARG], [
  AC_ARG_WITH([mpi-abi],
    [AS_HELP_STRING([--with-mpi-abi@<:@=DIR@:>@],
      [build against the MPI-5 standard ABI (mpi.h and libmpi_abi.so.1 from DIR, MPI_PC or pkg-config ompi-abi / mpi-abi, or MPICH's mpi_abi.h) with the plain C compiler: one libdmesh for every MPI that ships the ABI; C only])],
    [], [with_mpi_abi=no])
  dmesh_mpi_abi=no
  AS_IF([test "x$with_mpi_abi" != xno], [
    dmesh_mpi_abi=yes
    AS_IF([test "x$with_smpi" != xno], [AC_MSG_ERROR([--with-mpi-abi and --with-smpi exclude each other])])
    AS_IF([test "x$enable_fortran" = xyes],
      [AC_MSG_ERROR([--with-mpi-abi: the MPI-5 standard ABI is C only; no Fortran module (drop --enable-fortran)])])
    enable_fortran=no
    dmesh_fortran_abi_why="the MPI-5 standard ABI is C only (--with-mpi-abi)"])
  AM_CONDITIONAL([DMESH_MPI_ABI], [test "$dmesh_mpi_abi" = yes])
])

# _DMESH_MPI_ABI_TRY(FLAGS-CPP, FLAGS-LIBS, SOURCE): dmesh_abi_ok=yes when an
# ABI program (MPI_ABI_VERSION defined, MPI_Abi_get_version linked) builds
# with them.
AC_DEFUN([_DMESH_MPI_ABI_TRY], [
  dmesh_save_CPPFLAGS=$CPPFLAGS dmesh_save_LIBS=$LIBS
  CPPFLAGS="$CPPFLAGS $1" LIBS="$2 $LIBS"
  AC_MSG_CHECKING([for the MPI-5 standard ABI from $3])
  dnl an implementation's own mpi.h may define MPI_ABI_VERSION too (Open MPI
  dnl 6's is -1) and link against libmpi_abi: the handles tell them apart
  AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <mpi.h>
#if !defined(MPI_ABI_VERSION) || MPI_ABI_VERSION < 1 || MPI_VERSION < 5
#error not the MPI-5 standard ABI
#endif
typedef char dmesh_abi_handles[__builtin_types_compatible_p(MPI_Comm, struct MPI_ABI_Comm *) ? 1 : -1];]],
    [[int major, minor; MPI_Init(0, 0); MPI_Abi_get_version(&major, &minor); MPI_Finalize();]])],
    [dmesh_abi_ok=yes], [dmesh_abi_ok=no])
  AC_MSG_RESULT([$dmesh_abi_ok])
  CPPFLAGS=$dmesh_save_CPPFLAGS LIBS=$dmesh_save_LIBS
])

# _DMESH_MPI_ABI_DIR(DIR, SOURCE): try the layouts of a prefix; sets
# dmesh_abi_cppflags and dmesh_abi_libs when one works.
AC_DEFUN([_DMESH_MPI_ABI_DIR], [
  dmesh_try_cpp=
  if test -f "$1/include/standard_abi/mpi.h"; then
    dmesh_try_cpp="-I$1/include/standard_abi"
  elif test -f "$1/include/mpi_abi.h"; then
    dmesh_try_cpp="-DMPI_ABI -I$1/include"
  elif grep MPI_ABI_Comm "$1/include/mpi.h" >/dev/null 2>&1; then
    dmesh_try_cpp="-I$1/include"
  fi
  AS_IF([test -n "$dmesh_try_cpp"], [
    for dmesh_lib in "$1/lib" "$1/lib64"; do
      dnl the library itself where the development link leads nowhere
      dnl (Debian's MPICH 5: mpich/lib/libmpi_abi.so -> ../../libmpi_abi_mpich.so,
      dnl which only exists as .so.1.0.0); its soname is libmpi_abi.so.1 all the same
      dmesh_try_libs=
      if test -e "$dmesh_lib/libmpi_abi.so"; then
        dmesh_try_libs="-L$dmesh_lib -lmpi_abi"
      elif test -L "$dmesh_lib/libmpi_abi.so"; then
        dmesh_t=`readlink "$dmesh_lib/libmpi_abi.so"`
        AS_CASE([$dmesh_t], [/*], [], [dmesh_t="$dmesh_lib/$dmesh_t"])
        dmesh_d=`dirname "$dmesh_t"`
        dmesh_d=`cd "$dmesh_d" 2>/dev/null && pwd -P`
        dmesh_t="$dmesh_d/`basename "$dmesh_t"`"
        dmesh_try_libs=`ls "$dmesh_t".1* 2>/dev/null | head -n 1`
      else
        dmesh_try_libs=`ls "$dmesh_lib"/libmpi_abi.so.1* 2>/dev/null | head -n 1`
      fi
      dnl a file: by name (-l:), which libtool passes on to the link
      AS_CASE([$dmesh_try_libs], [/*],
        [dmesh_try_libs="-L`dirname "$dmesh_try_libs"` -l:`basename "$dmesh_try_libs"`"])
      AS_IF([test -n "$dmesh_try_libs"], [
        _DMESH_MPI_ABI_TRY([$dmesh_try_cpp], [$dmesh_try_libs], [$2])
        AS_IF([test $dmesh_abi_ok = yes],
          [dmesh_abi_cppflags=$dmesh_try_cpp dmesh_abi_libs=$dmesh_try_libs dmesh_abi_from="$2"; break])])
    done])
])

# DMESH_MPI_ABI_FLAGS: the ABI's compile and link flags, added to CPPFLAGS
# and LIBS; DMESH_PC_MPI_CFLAGS / _LIBS for dmesh.pc.
AC_DEFUN([DMESH_MPI_ABI_FLAGS], [
  dmesh_abi_cppflags= dmesh_abi_libs= dmesh_abi_from=
  AS_IF([test -n "$dmesh_mpicc_given"], [
    dnl the user's wrapper, as it is: it must build an ABI program
    _DMESH_MPI_ABI_TRY([], [], [MPICC=$MPICC])
    AS_IF([test $dmesh_abi_ok = yes], [dmesh_abi_from="MPICC=$MPICC"],
      [AC_MSG_ERROR([--with-mpi-abi: MPICC=$MPICC cannot compile and link an MPI-5 standard ABI program (see config.log); leave MPICC out to let configure find the ABI's mpi.h and libmpi_abi.so.1, or give --with-mpi-abi=DIR])])
    DMESH_MPI_WRAPPER_FLAGS
    dmesh_abi_cppflags=$DMESH_PC_MPI_CFLAGS dmesh_abi_libs=$DMESH_PC_MPI_LIBS],
   [test "x$with_mpi_abi" != xyes], [
    _DMESH_MPI_ABI_DIR([$with_mpi_abi], [$with_mpi_abi])
    AS_IF([test -z "$dmesh_abi_from"],
      [AC_MSG_ERROR([--with-mpi-abi=$with_mpi_abi: no MPI-5 standard ABI there (include/mpi.h with MPI_ABI_VERSION, include/standard_abi/mpi.h or include/mpi_abi.h, and lib/libmpi_abi.so that $CC links; see config.log)])])],
   [
    for dmesh_pc in ${MPI_PC:-ompi-abi mpi-abi}; do
      AS_IF([$PKG_CONFIG --exists "$dmesh_pc" 2>/dev/null], [
        dmesh_try_cpp=`$PKG_CONFIG --cflags $dmesh_pc` dmesh_try_libs=`$PKG_CONFIG --libs $dmesh_pc`
        _DMESH_MPI_ABI_TRY([$dmesh_try_cpp], [$dmesh_try_libs], [pkg-config $dmesh_pc])
        AS_IF([test $dmesh_abi_ok = yes],
          [dmesh_abi_cppflags=$dmesh_try_cpp dmesh_abi_libs=$dmesh_try_libs
           dmesh_abi_from="pkg-config $dmesh_pc"; break])])
    done
    AS_IF([test -n "$MPI_PC" && test -z "$dmesh_abi_from"],
      [AC_MSG_ERROR([--with-mpi-abi: MPI_PC=$MPI_PC gives no MPI-5 standard ABI that $CC links (see config.log)])])
    dnl Open MPI installs ompi-abi.pc beside ompi-c.pc, which may be on the path alone
    AS_IF([test -z "$dmesh_abi_from" && $PKG_CONFIG --exists ompi-c 2>/dev/null], [
      dmesh_pcdir=`$PKG_CONFIG --variable=pcfiledir ompi-c`
      dmesh_pcdir=`cd "$dmesh_pcdir" && pwd -P`
      AS_IF([test -f "$dmesh_pcdir/ompi-abi.pc"], [
        dmesh_try_cpp=`PKG_CONFIG_PATH="$dmesh_pcdir" $PKG_CONFIG --cflags ompi-abi`
        dmesh_try_libs=`PKG_CONFIG_PATH="$dmesh_pcdir" $PKG_CONFIG --libs ompi-abi`
        _DMESH_MPI_ABI_TRY([$dmesh_try_cpp], [$dmesh_try_libs], [$dmesh_pcdir/ompi-abi.pc])
        AS_IF([test $dmesh_abi_ok = yes],
          [dmesh_abi_cppflags=$dmesh_try_cpp dmesh_abi_libs=$dmesh_try_libs
           dmesh_abi_from="$dmesh_pcdir/ompi-abi.pc"])])])
    dnl MPICH: mpi_abi.h beside its mpi.h, which includes it under -DMPI_ABI
    AS_IF([test -z "$dmesh_abi_from" && $PKG_CONFIG --exists mpich 2>/dev/null], [
      dmesh_mpich_inc=`$PKG_CONFIG --variable=includedir mpich`
      dmesh_mpich_lib=`$PKG_CONFIG --variable=libdir mpich`
      AS_IF([test -f "$dmesh_mpich_inc/mpi_abi.h"], [
        _DMESH_MPI_ABI_DIR([`dirname "$dmesh_mpich_inc"`], [MPICH's mpi_abi.h ($dmesh_mpich_inc)])])])
    AS_IF([test -z "$dmesh_abi_from"],
      [AC_MSG_ERROR([--with-mpi-abi: no MPI-5 standard ABI found (pkg-config ompi-abi or mpi-abi, Open MPI's ompi-abi.pc, MPICH's mpi_abi.h): give --with-mpi-abi=DIR, or MPI_PC with PKG_CONFIG_PATH])])])
  AS_IF([test -z "$dmesh_mpicc_given"], [
    CPPFLAGS="$CPPFLAGS $dmesh_abi_cppflags"
    LIBS="$dmesh_abi_libs $LIBS"])
  DMESH_PC_MPI_CFLAGS=$dmesh_abi_cppflags
  DMESH_PC_MPI_LIBS=$dmesh_abi_libs
  dmesh_mpi_summary="standard ABI (MPI 5.0), libmpi_abi.so.1, from $dmesh_abi_from"
  AC_DEFINE([DMESH_MPI_ABI], [1],
    [Define to 1 when built against the MPI-5 standard ABI (--with-mpi-abi).])
])
