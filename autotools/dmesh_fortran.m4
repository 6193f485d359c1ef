# SPDX-License-Identifier: BSD-3-Clause
# DMESH_CHECK_FORTRAN: the Fortran module, --enable-fortran (default: auto).
# Needs an MPI Fortran wrapper that compiles "use mpi_f08": MPIFC if given,
# else the wrapper beside an MPI C wrapper (mpicc.mpich -> mpifort.mpich),
# else mpifort or mpif90 on PATH (so that a plain CC=gcc build, with MPI's
# C flags from pkg-config, still gets the modules). Expanded before LT_INIT
# so that libtool configures its Fortran tag.

# DMESH_FC_CHOOSE: set FC to the MPI Fortran wrapper, before AC_PROG_FC.
AC_DEFUN([DMESH_FC_CHOOSE], [
  AC_ARG_ENABLE([fortran],
    [AS_HELP_STRING([--enable-fortran], [build the Fortran module (default: when MPI Fortran works)])],
    [], [enable_fortran=auto])
  AS_IF([test "$enable_fortran" != no && test -z "$MPIFC"], [
    dmesh_cc_base=`echo "$CC" | sed 's/ .*//'`
    dmesh_fc_guess=
    AS_CASE([$dmesh_cc_base], [*mpicc*], [dmesh_fc_guess=`echo "$dmesh_cc_base" | sed 's/mpicc/mpifort/'`])
    AC_CHECK_PROGS([MPIFC], [$dmesh_fc_guess mpifort mpif90], [])])
  AS_IF([test "$enable_fortran" != no && test -n "$MPIFC"], [FC=$MPIFC])
])

AC_DEFUN([DMESH_CHECK_FORTRAN], [
  AC_REQUIRE([DMESH_FC_CHOOSE])
  AC_REQUIRE([AC_PROG_FC])
  dmesh_fortran_ok=no
  dmesh_fortran_why="no MPI Fortran wrapper found (set MPIFC)"
  AS_IF([test "$enable_fortran" = no], [dmesh_fortran_why="--disable-fortran"])
  AS_IF([test "$enable_fortran" != no && test -n "$MPIFC"], [
    AC_LANG_PUSH([Fortran])
    AC_MSG_CHECKING([whether $FC compiles use mpi_f08])
    AC_COMPILE_IFELSE([AC_LANG_SOURCE([[
      program t
      use mpi_f08
      type(MPI_Comm) :: c
      c = MPI_COMM_WORLD
      end program t]])],
      [dmesh_fortran_ok=yes], [dmesh_fortran_why="$FC cannot compile use mpi_f08"])
    AC_MSG_RESULT([$dmesh_fortran_ok])
    AC_LANG_POP([Fortran])
  ])
  AS_IF([test "$dmesh_fortran_ok" = yes], [dmesh_fortran_summary="yes ($FC)"],
    [test "$enable_fortran" = yes], [AC_MSG_ERROR([--enable-fortran: $dmesh_fortran_why])],
    [dmesh_fortran_summary="no ($dmesh_fortran_why)"])
  AM_CONDITIONAL([DMESH_HAVE_FORTRAN], [test "$dmesh_fortran_ok" = yes])
])
