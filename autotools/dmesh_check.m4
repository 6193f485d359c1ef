# SPDX-License-Identifier: BSD-3-Clause
# DMESH_CHECK_CHECK: the Check unit-test framework, needed by make check only.
AC_DEFUN([DMESH_CHECK_CHECK], [
  PKG_CHECK_MODULES([CHECK], [check >= 0.9.10],
    [dmesh_check_ok=yes; dmesh_check_summary="yes (`$PKG_CONFIG --modversion check`)"],
    [dmesh_check_ok=no; dmesh_check_summary="no: make check will fail (install check)"])
  AM_CONDITIONAL([DMESH_HAVE_CHECK], [test "$dmesh_check_ok" = yes])
])
