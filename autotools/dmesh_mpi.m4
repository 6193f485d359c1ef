# SPDX-License-Identifier: BSD-3-Clause
# DMESH_CHECK_MPI: choose the MPI compiler wrapper as CC, before AC_PROG_CC.
# MPICC overrides the wrapper (mpicc.mpich for MPICH beside Open MPI); CC set by
# the user is kept when MPICC is not given, for builds with pkg-config flags.
AC_DEFUN([DMESH_CHECK_MPI], [
  AC_ARG_VAR([MPICC], [MPI C compiler wrapper (default: mpicc; none with --with-mpi-abi)])
  AC_ARG_VAR([MPIEXEC], [MPI launcher used by make check (default: mpiexec next to MPICC)])
  AC_ARG_VAR([MPIFC], [MPI Fortran compiler wrapper (default: mpifort next to MPICC)])
  AC_ARG_VAR([MPICXX], [MPI C++ compiler wrapper, for the header test (default: mpicxx next to MPICC)])
  AC_ARG_VAR([MPI_PC], [pkg-config module of MPI for a plain CC (default: first of mpi, ompi-c, mpich; with --with-mpi-abi: ompi-abi, mpi-abi)])
  DMESH_SMPI_SETUP
  DMESH_MPI_ABI_ARG
  dnl A wrapper the user named is used as it is: never replaced by another MPI.
  dmesh_mpicc_given=$MPICC
  AS_IF([test -z "$MPICC" && test -z "$CC" && test "$dmesh_mpi_abi" = no],
    [AC_CHECK_PROGS([MPICC], [mpicc], [])])
  AS_IF([test -n "$MPICC"], [CC="$MPICC"])
  dnl The C++ test of the public headers needs mpi.h too: use the matching wrapper
  dnl (with the ABI: the plain C++ compiler, with the ABI's flags in CPPFLAGS).
  AS_IF([test -z "$MPICXX" && test -z "$CXX" && test "$dmesh_mpi_abi" = no], [
    dmesh_cxx_guess=`echo "$CC" | sed 's/ .*//; s/mpicc/mpicxx/'`
    AC_CHECK_PROGS([MPICXX], [$dmesh_cxx_guess mpicxx mpic++], [])])
  AS_IF([test -n "$MPICXX"], [CXX="$MPICXX"])
])

# DMESH_MPI_WRAPPER_FLAGS: the compile and link flags that the MPI wrapper CC
# adds (Open MPI's --showme:compile and --showme:link, MPICH's
# -show-compile-info and -show-link-info, or -compile-info and -link-info
# without the compiler's name), as DMESH_PC_MPI_CFLAGS and _LIBS: dmesh.pc
# carries them, so that a program built with any compiler finds mpi.h and
# the MPI library that dmesh was built with.
AC_DEFUN([DMESH_MPI_WRAPPER_FLAGS], [
  DMESH_PC_MPI_CFLAGS= DMESH_PC_MPI_LIBS=
  if dmesh_c=`$CC --showme:compile 2>/dev/null` && dmesh_l=`$CC --showme:link 2>/dev/null`; then :
  elif dmesh_c=`$CC -show-compile-info 2>/dev/null` && dmesh_l=`$CC -show-link-info 2>/dev/null`; then :
  elif dmesh_c=`$CC -compile-info 2>/dev/null` && dmesh_l=`$CC -link-info 2>/dev/null`; then
    dmesh_c=`echo "$dmesh_c" | sed 's/^[[^- ]][[^ ]]*//'`
    dmesh_l=`echo "$dmesh_l" | sed 's/^[[^- ]][[^ ]]*//'`
  else
    dmesh_c= dmesh_l=
  fi
  DMESH_PC_MPI_CFLAGS=`echo $dmesh_c`
  dnl the -l and -L of the MPI (hardening options are the program's business)
  for dmesh_w in $dmesh_l; do
    AS_CASE([$dmesh_w], [-l*|-L*|-Wl,-rpath*|-Wl,--enable-new-dtags|-pthread],
      [DMESH_PC_MPI_LIBS="${DMESH_PC_MPI_LIBS:+$DMESH_PC_MPI_LIBS }$dmesh_w"])
  done
])

# DMESH_CHECK_MPI_WORKS: mpi.h must compile and MPI_Init link with CC; find
# the launcher and its flags for make check.
AC_DEFUN([DMESH_CHECK_MPI_WORKS], [
  AS_IF([test "$dmesh_mpi_abi" = yes], [DMESH_MPI_ABI_FLAGS], [
  AC_MSG_CHECKING([whether $CC compiles and links MPI programs])
  AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <mpi.h>]],
                   [[MPI_Init(0, 0); MPI_Finalize();]])],
    [AC_MSG_RESULT([yes])
     DMESH_MPI_WRAPPER_FLAGS],
    [AC_MSG_RESULT([no])
     dnl A wrapper (given, or found as mpicc) that cannot link is an error:
     dnl taking another MPI's flags instead would switch MPI silently.
     AS_IF([test -n "$MPICC"],
       [AC_MSG_ERROR([MPICC=$MPICC cannot compile and link an MPI program (see config.log); configure does not fall back to another MPI: fix MPICC, or give a plain CC with MPI_PC naming MPI's pkg-config module])])
     dnl A plain compiler: take MPI's flags from pkg-config (MPI_PC names the module).
     dmesh_mpi_pc_found=no
     for dmesh_pc in ${MPI_PC:-mpi ompi-c mpich}; do
       AS_IF([$PKG_CONFIG --exists "$dmesh_pc" 2>/dev/null], [
         DMESH_PC_MPI_CFLAGS=`$PKG_CONFIG --cflags $dmesh_pc`
         DMESH_PC_MPI_LIBS=`$PKG_CONFIG --libs $dmesh_pc`
         CPPFLAGS="$CPPFLAGS $DMESH_PC_MPI_CFLAGS"
         LIBS="$DMESH_PC_MPI_LIBS $LIBS"
         dmesh_mpi_pc_found=$dmesh_pc
         break])
     done
     AC_MSG_CHECKING([whether MPI links with pkg-config's $dmesh_mpi_pc_found flags])
     AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <mpi.h>]], [[MPI_Init(0, 0); MPI_Finalize();]])],
       [AC_MSG_RESULT([yes])],
       [AC_MSG_RESULT([no])
        AC_MSG_ERROR([no working MPI: set MPICC to an MPI compiler wrapper (mpicc, mpicc.mpich), or CC with MPI_PC naming MPI's pkg-config module])])])
  ])
  AC_SUBST([DMESH_PC_MPI_CFLAGS])
  AC_SUBST([DMESH_PC_MPI_LIBS])
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

# DMESH_SMPI_SETUP: --with-smpi, a build against SimGrid's simulated MPI
# (smpicc, smpirun), for studies at thousands of simulated ranks. smpicc
# links every program as a shared object that smpirun loads, which
# configure cannot run ("cannot run C compiled programs"): configure's own
# test programs are built with SMPI_PRETEND_CC=1 (plain executables; smpicc
# then prints a warning on standard output, which spoils libtool's
# "$CC -print-prog-name=ld", hence LD=ld), and the build itself without it.
# libdmesh is static (each simulated rank gets its own copy of the
# program's globals, its own copy of libdmesh's with it), and the Fortran
# module is off. smpicc's forced header turns malloc, calloc, realloc and
# free into macros (SMPI's shared-malloc), which breaks any later
# declaration of them (<malloc.h>): SMPI_NO_OVERRIDE_MALLOC keeps them
# functions. MPI_Comm_idup: see DMESH_CHECK_MPI_FEATURES.
AC_DEFUN([DMESH_SMPI_SETUP], [
  AC_ARG_WITH([smpi],
    [AS_HELP_STRING([--with-smpi],
      [build against SimGrid's SMPI (smpicc, smpirun): static library, no Fortran; make check-smpi])],
    [], [with_smpi=no])
  AS_IF([test "x$with_smpi" != xno], [
    AS_IF([test "x$with_smpi" != xyes], [dmesh_smpi_bin="$with_smpi/bin/"], [dmesh_smpi_bin=])
    : ${MPICC:=${dmesh_smpi_bin}smpicc}
    : ${MPICXX:=${dmesh_smpi_bin}smpicxx}
    : ${MPIEXEC:=${dmesh_smpi_bin}smpirun}
    : ${LD:=ld}
    CPPFLAGS="$CPPFLAGS -DSMPI_NO_OVERRIDE_MALLOC"
    SMPI_PRETEND_CC=1
    export SMPI_PRETEND_CC
    AS_IF([test "x${enable_shared+set}" != xset], [enable_shared=no])
    AS_IF([test "x${enable_fortran+set}" != xset], [enable_fortran=no])
    dmesh_cv_mpi_smpi=yes
  ])
  AM_CONDITIONAL([DMESH_SMPI], [test "x$with_smpi" != xno])
])

# DMESH_CHECK_MPI_FEATURES: what the MPI offers beyond MPI-3.0's basics.
# MPI_Comm_idup (MPI-3.0, but missing from old MPIs, and present in SMPI
# 3.32 as a symbol that aborts, "Not yet implemented"): without it the
# private duplicate of a user communicator is made by MPI_Comm_dup, which
# blocks where MPI_Comm_idup overlapped the agreement that follows.
# dmesh_cv_mpi_comm_idup=yes|no overrides the check (an SMPI that has it).
AC_DEFUN([DMESH_CHECK_MPI_FEATURES], [
  AC_CACHE_CHECK([whether MPI_Comm_idup works], [dmesh_cv_mpi_comm_idup], [
    AC_COMPILE_IFELSE([AC_LANG_PROGRAM([[#include <mpi.h>]], [[
#ifdef SMPI_H /* SimGrid's mpi.h */
#error SMPI: MPI_Comm_idup is declared, not implemented
#endif
]])], [
      AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <mpi.h>]], [[
MPI_Comm c; MPI_Request r;
MPI_Comm_idup(MPI_COMM_WORLD, &c, &r);]])],
        [dmesh_cv_mpi_comm_idup=yes], [dmesh_cv_mpi_comm_idup=no])],
      [dmesh_cv_mpi_comm_idup="no (SMPI)"])])
  AS_IF([test "x$dmesh_cv_mpi_comm_idup" = xyes],
    [AC_DEFINE([DMESH_HAVE_MPI_COMM_IDUP], [1], [Define to 1 if MPI_Comm_idup works.])])
  # MPI-4 sessions (MPI_Session_init, MPI_Comm_create_from_group): only the
  # test of the sessions model needs them; Open MPI 4.1 has none.
  AC_CACHE_CHECK([whether MPI has sessions], [dmesh_cv_mpi_sessions], [
    AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <mpi.h>]], [[
MPI_Session s; MPI_Group g; MPI_Comm c;
MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &s);
MPI_Group_from_session_pset(s, "mpi://WORLD", &g);
MPI_Comm_create_from_group(g, "x", MPI_INFO_NULL, MPI_ERRORS_RETURN, &c);]])],
      [dmesh_cv_mpi_sessions=yes], [dmesh_cv_mpi_sessions=no])])
  AS_IF([test "x$dmesh_cv_mpi_sessions" = xyes],
    [AC_DEFINE([DMESH_HAVE_MPI_SESSIONS], [1], [Define to 1 if MPI has MPI-4 sessions.])])
])
