# SPDX-License-Identifier: BSD-3-Clause
# DMESH_CHECK_ULFM: fault tolerance (User-Level Failure Mitigation) of the
# MPI. Found when <mpi-ext.h> declares Open MPI's ftmpi extension
# (OMPI_HAVE_MPI_EXT_FTMPI) and MPIX_Comm_revoke, MPIX_Comm_shrink,
# MPIX_Comm_agree and MPIX_Comm_get_failed link; then DMESH_HAVE_ULFM is
# defined and lib/ft/ulfm.c calls them. Whether a run has fault tolerance is
# decided at run time (the MPIX_FT attribute: Open MPI 5 under
# mpiexec --with-ft ulfm). MPICH declares MPIX_ calls in mpi.h but does not
# survive a killed process: it has no <mpi-ext.h> ftmpi and is reported
# "no". Sets dmesh_ulfm_summary for configure's summary and the build
# description. dmesh_cv_ulfm=yes|no overrides the check. The MPI-5 standard
# ABI (--with-mpi-abi) has no such extension: no MPIX_ call is compiled there.
AC_DEFUN([DMESH_CHECK_ULFM], [
  AS_IF([test "$dmesh_mpi_abi" = yes], [dmesh_cv_ulfm=no])
  AC_CACHE_CHECK([whether the MPI has fault tolerance (ULFM, mpi-ext.h ftmpi)], [dmesh_cv_ulfm], [
    AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <mpi.h>
#include <mpi-ext.h>
#ifndef OMPI_HAVE_MPI_EXT_FTMPI
#error no ftmpi extension
#endif]], [[
MPI_Comm c = MPI_COMM_WORLD, s; MPI_Group g; int flag = 1;
MPIX_Comm_revoke(c); MPIX_Comm_shrink(c, &s); MPIX_Comm_agree(c, &flag);
MPIX_Comm_get_failed(c, &g);
return MPIX_ERR_PROC_FAILED + MPIX_ERR_PROC_FAILED_PENDING + MPIX_ERR_REVOKED + MPIX_FT;]])],
      [dmesh_cv_ulfm=yes], [dmesh_cv_ulfm=no])])
  AS_IF([test "x$dmesh_cv_ulfm" = xyes],
    [AC_DEFINE([DMESH_HAVE_ULFM], [1],
       [Define to 1 if the MPI has the ULFM extension (MPIX_Comm_revoke, shrink, agree, get_failed).])
     dmesh_ulfm_summary="yes (mpi-ext.h ftmpi; at run time when the launch enables it: mpiexec --with-ft ulfm)"],
    [test "$dmesh_mpi_abi" = yes],
    [dmesh_ulfm_summary="no: the MPI-5 standard ABI has no fault-tolerance extension (dmesh_revoke, dmesh_shrink, dmesh_get_failed: DMESH_ERR_UNSUPPORTED)"],
    [dmesh_ulfm_summary="no (dmesh_revoke, dmesh_shrink, dmesh_get_failed: DMESH_ERR_UNSUPPORTED)"])
  AM_CONDITIONAL([DMESH_HAVE_ULFM], [test "x$dmesh_cv_ulfm" = xyes])
])
