# SPDX-License-Identifier: BSD-3-Clause
# DMESH_CHECK_FORTRAN: the Fortran module, --enable-fortran (default: auto).
# Needs an MPI Fortran wrapper that compiles "use mpi_f08": MPIFC if given,
# else the wrapper beside an MPI C wrapper (mpicc.mpich -> mpifort.mpich),
# else mpifort or mpif90 on PATH (so that a plain CC=gcc build, with MPI's
# C flags from pkg-config, still gets the modules). Expanded before LT_INIT
# so that libtool configures its Fortran tag (whose library lists
# DMESH_FC_LIBTOOL_DEPS then scrubs).

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
  AS_IF([test "$enable_fortran" = no], [dmesh_fortran_why=${dmesh_fortran_abi_why:-"--disable-fortran"}])
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
  AC_CONFIG_COMMANDS_PRE([DMESH_FC_LIBTOOL_DEPS])
])

# DMESH_FC_LIBTOOL_DEPS: scrub the bare "-l" entries from the library lists
# of libtool's Fortran tag (predeps_FC, postdeps_FC), so that
# libdmesh_fortran links with the FC tag. libtool reads them from the
# verbose output of a link by $FC: gfortran's "Driving:" line, which it
# parses because an MPI wrapper (Open MPI's mpifort) puts -L options on it,
# writes its own libraries as "-l gfortran", and libtool keeps the "-l"
# without its argument; "-l -L/usr/lib/gcc/..." then breaks the shared link
# ("cannot find -l-L/usr/lib/..."). The libraries are in the lists anyway,
# from the linker's command line. Run just before config.status is written
# (AC_CONFIG_COMMANDS_PRE), when LT_INIT has set the tag's variables.
AC_DEFUN([DMESH_FC_LIBTOOL_DEPS], [
  for dmesh_var in predeps_FC postdeps_FC; do
    eval "dmesh_old=\$$dmesh_var"
    dmesh_new=
    dmesh_bare=0
    for dmesh_w in $dmesh_old; do
      AS_IF([test "x$dmesh_w" = x-l], [dmesh_bare=`expr $dmesh_bare + 1`],
        [dmesh_new="${dmesh_new:+$dmesh_new }$dmesh_w"])
    done
    AS_IF([test $dmesh_bare -gt 0], [
      AC_MSG_NOTICE([libtool's Fortran tag: $dmesh_bare bare -l entries removed from $dmesh_var])
      eval "$dmesh_var=\$dmesh_new"])
  done
])
