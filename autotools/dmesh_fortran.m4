# DMESH_CHECK_FORTRAN: the Fortran module, --enable-fortran (default: auto).
# Needs an MPI Fortran wrapper next to the C one that compiles "use mpi_f08".
# Expanded before LT_INIT so that libtool configures its Fortran tag.
AC_DEFUN([DMESH_CHECK_FORTRAN], [
  AC_ARG_ENABLE([fortran],
    [AS_HELP_STRING([--enable-fortran], [build the Fortran module (default: when MPI Fortran works)])],
    [], [enable_fortran=auto])
  dmesh_fortran_ok=no
  AS_IF([test "$enable_fortran" != no && test -z "$MPIFC"], [
    dmesh_fc_guess=`echo "$CC" | sed 's/ .*//; s/mpicc/mpifort/'`
    AC_CHECK_PROGS([MPIFC], [$dmesh_fc_guess mpifort mpif90], [])])
  AS_IF([test "$enable_fortran" != no && test -n "$MPIFC"], [FC=$MPIFC])
  AC_PROG_FC
  AS_IF([test "$enable_fortran" != no && test -n "$MPIFC"], [
    AC_LANG_PUSH([Fortran])
    AC_MSG_CHECKING([whether $FC compiles use mpi_f08])
    AC_COMPILE_IFELSE([AC_LANG_SOURCE([[
      program t
      use mpi_f08
      type(MPI_Comm) :: c
      c = MPI_COMM_WORLD
      end program t]])],
      [dmesh_fortran_ok=yes], [])
    AC_MSG_RESULT([$dmesh_fortran_ok])
    AC_LANG_POP([Fortran])
  ])
  AS_IF([test "$dmesh_fortran_ok" = yes], [dmesh_fortran_summary="yes ($FC)"],
    [test "$enable_fortran" = yes], [AC_MSG_ERROR([--enable-fortran: no MPI Fortran compiler with mpi_f08 (set MPIFC)])],
    [dmesh_fortran_summary=no])
  AM_CONDITIONAL([DMESH_HAVE_FORTRAN], [test "$dmesh_fortran_ok" = yes])
])
