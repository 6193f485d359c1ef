# SPDX-License-Identifier: BSD-3-Clause
# DMESH_CHECK_VISIBILITY: build the library with -fvisibility=hidden when the
# compiler has it; public symbols carry DMESH_EXPORT.
AC_DEFUN([DMESH_CHECK_VISIBILITY], [
  AC_MSG_CHECKING([whether $CC accepts -fvisibility=hidden])
  dmesh_save_CFLAGS=$CFLAGS
  CFLAGS="$CFLAGS -fvisibility=hidden -Werror"
  AC_COMPILE_IFELSE([AC_LANG_PROGRAM([], [])],
    [DMESH_VISIBILITY_CFLAGS=-fvisibility=hidden; AC_MSG_RESULT([yes])],
    [DMESH_VISIBILITY_CFLAGS=; AC_MSG_RESULT([no])])
  CFLAGS=$dmesh_save_CFLAGS
  AC_SUBST([DMESH_VISIBILITY_CFLAGS])
])
