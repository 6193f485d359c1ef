# SPDX-License-Identifier: BSD-3-Clause
# DMESH_CHECK_DOXYGEN: make doc builds the reference when doxygen is present.
AC_DEFUN([DMESH_CHECK_DOXYGEN], [
  AC_CHECK_PROGS([DOXYGEN], [doxygen], [])
  AS_IF([test -n "$DOXYGEN"], [dmesh_doxygen_summary=yes], [dmesh_doxygen_summary="no (make doc unavailable)"])
  AM_CONDITIONAL([DMESH_HAVE_DOXYGEN], [test -n "$DOXYGEN"])
])
