# SPDX-License-Identifier: BSD-3-Clause
# DMESH_CHECK_MPI: choose the MPI compiler wrapper as CC, before AC_PROG_CC.
# MPICC overrides the wrapper (mpicc.mpich for MPICH beside Open MPI); CC set by
# the user is kept when MPICC is not given, for builds with pkg-config flags.
AC_DEFUN([DMESH_CHECK_MPI], [
  AC_ARG_VAR([MPICC], [MPI C compiler wrapper (default: mpicc)])
  AC_ARG_VAR([MPIEXEC], [MPI launcher used by make check (default: mpiexec next to MPICC)])
  AC_ARG_VAR([MPIFC], [MPI Fortran compiler wrapper (default: mpifort next to MPICC)])
  AC_ARG_VAR([MPICXX], [MPI C++ compiler wrapper, for the header test (default: mpicxx next to MPICC)])
  AS_IF([test -z "$MPICC" && test -z "$CC"], [AC_CHECK_PROGS([MPICC], [mpicc], [])])
  AS_IF([test -n "$MPICC"], [CC="$MPICC"])
  dnl The C++ test of the public headers needs mpi.h too: use the matching wrapper.
  AS_IF([test -z "$MPICXX" && test -z "$CXX"], [
    dmesh_cxx_guess=`echo "$CC" | sed 's/ .*//; s/mpicc/mpicxx/'`
    AC_CHECK_PROGS([MPICXX], [$dmesh_cxx_guess mpicxx mpic++], [])])
  AS_IF([test -n "$MPICXX"], [CXX="$MPICXX"])
])

# DMESH_CHECK_MPI_WORKS: mpi.h must compile and MPI_Init link with CC; find
# the launcher and its flags for make check.
AC_DEFUN([DMESH_CHECK_MPI_WORKS], [
  AC_MSG_CHECKING([whether $CC compiles and links MPI programs])
  AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <mpi.h>]],
                   [[MPI_Init(0, 0); MPI_Finalize();]])],
    [AC_MSG_RESULT([yes])],
    [AC_MSG_RESULT([no])
     dnl A plain compiler: take MPI's flags from pkg-config (MPI_PC names the module).
     AC_ARG_VAR([MPI_PC], [pkg-config module of MPI for a plain CC (default: first of mpi, ompi-c, mpich)])
     dmesh_mpi_pc_found=no
     for dmesh_pc in ${MPI_PC:-mpi ompi-c mpich}; do
       AS_IF([$PKG_CONFIG --exists "$dmesh_pc" 2>/dev/null], [
         CPPFLAGS="$CPPFLAGS `$PKG_CONFIG --cflags $dmesh_pc`"
         LIBS="`$PKG_CONFIG --libs $dmesh_pc` $LIBS"
         dmesh_mpi_pc_found=$dmesh_pc
         break])
     done
     AC_MSG_CHECKING([whether MPI links with pkg-config's $dmesh_mpi_pc_found flags])
     AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <mpi.h>]], [[MPI_Init(0, 0); MPI_Finalize();]])],
       [AC_MSG_RESULT([yes])],
       [AC_MSG_RESULT([no])
        AC_MSG_ERROR([no working MPI: set MPICC to an MPI compiler wrapper (mpicc, mpicc.mpich), or CC with MPI_PC naming MPI's pkg-config module])])])
  AS_IF([test -z "$MPIEXEC"], [
    dmesh_mpicc_base=`echo "$CC" | sed 's/ .*//'`
    dmesh_mpicc_suffix=`echo "$dmesh_mpicc_base" | sed -n 's/^.*mpicc//p'`
    AC_PATH_PROGS([MPIEXEC], [mpiexec$dmesh_mpicc_suffix mpiexec mpirun], [mpiexec])
  ])
  AC_MSG_CHECKING([which MPI implementation $MPIEXEC launches])
  dmesh_mpiexec_version=`$MPIEXEC --version 2>&1 | head -n 3`
  MPIEXEC_PREFLAGS=
  AS_CASE([$dmesh_mpiexec_version],
    [*"Open MPI"*|*OpenRTE*], [dmesh_mpi_impl="Open MPI"; MPIEXEC_PREFLAGS="--oversubscribe"],
    [*HYDRA*|*mpich*|*MPICH*], [dmesh_mpi_impl=MPICH],
    [dmesh_mpi_impl=unknown])
  AC_MSG_RESULT([$dmesh_mpi_impl])
  AC_ARG_VAR([DMESH_TEST_MAX_NP], [most ranks an MPI test may start (default 16; MPICH 4)])
  AS_IF([test -z "$DMESH_TEST_MAX_NP"],
    [AS_IF([test "$dmesh_mpi_impl" = MPICH], [DMESH_TEST_MAX_NP=4], [DMESH_TEST_MAX_NP=16])])
  AC_SUBST([MPIEXEC_PREFLAGS])
  AC_SUBST([DMESH_MPI_IMPL], [$dmesh_mpi_impl])
])
