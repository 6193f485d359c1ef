# SPDX-License-Identifier: BSD-3-Clause
# DMESH_OPTIONAL_LIB(NAME, HEADER, LIBRARY, FUNCTION, DEFAULT-DIR, [EXTRA-LIBS])
#
# Tri-state probe of an optional C library, driven by --with-NAME[=DIR]:
#   (not given) probe DEFAULT-DIR and the default paths, report, go on without it
#   yes / DIR   the library is required: configure fails when it is unusable
#   no          do not use it
# On success sets dmesh_NAME_ok=yes, NAME_CPPFLAGS, NAME_LDFLAGS, NAME_LIBS
# (upper-case NAME) and defines DMESH_HAVE_NAME; dmesh_NAME_summary says what
# happened, for the summary at the end of configure.
AC_DEFUN([DMESH_OPTIONAL_LIB], [
  m4_pushdef([UP], m4_toupper([$1]))
  AC_ARG_WITH([$1],
    [AS_HELP_STRING([--with-$1@<:@=DIR@:>@],
      [use $1 (installed in DIR); default: probe ]m4_ifval([$5], [$5 and ])[the standard paths])],
    [], [with_$1=check])
  dmesh_$1_ok=no
  UP[]_CPPFLAGS=
  UP[]_LDFLAGS=
  UP[]_LIBS=
  AS_CASE([$with_$1],
    [no], [dmesh_$1_summary="no (--without-$1)"],
    [
      dmesh_$1_dirs="$5"
      AS_CASE([$with_$1], [yes|check], [], [dmesh_$1_dirs="$with_$1"])
      dmesh_save_CPPFLAGS=$CPPFLAGS
      dmesh_save_LDFLAGS=$LDFLAGS
      dmesh_save_LIBS=$LIBS
      for dmesh_dir in $dmesh_$1_dirs ""; do
        AS_IF([test -n "$dmesh_dir"],
          [dmesh_cppflags="-I$dmesh_dir/include"
           dmesh_libdir="$dmesh_dir/lib64"
           dnl an empty (or foreign) lib64 beside the real lib is not the one
           ls "$dmesh_libdir"/lib$3.* >/dev/null 2>&1 || dmesh_libdir="$dmesh_dir/lib"
           dmesh_ldflags="-L$dmesh_libdir -Wl,-rpath,$dmesh_libdir"],
          [dmesh_cppflags=; dmesh_ldflags=])
        CPPFLAGS="$dmesh_save_CPPFLAGS $dmesh_cppflags"
        LDFLAGS="$dmesh_save_LDFLAGS $dmesh_ldflags"
        LIBS="-l$3 $6 $dmesh_save_LIBS"
        AC_MSG_CHECKING([for $4 in -l$3 m4_ifval([$5], [(${dmesh_dir:-default paths})])])
        AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <$2>]], [[(void)&$4;]])],
          [AC_MSG_RESULT([yes])
           dmesh_$1_ok=yes
           UP[]_CPPFLAGS=$dmesh_cppflags
           UP[]_LDFLAGS=$dmesh_ldflags
           UP[]_LIBS="-l$3 $6"],
          [AC_MSG_RESULT([no])])
        test "$dmesh_$1_ok" = yes && break
        test -n "$dmesh_dir" || break
      done
      CPPFLAGS=$dmesh_save_CPPFLAGS
      LDFLAGS=$dmesh_save_LDFLAGS
      LIBS=$dmesh_save_LIBS
      AS_IF([test "$dmesh_$1_ok" = yes],
        [dmesh_$1_summary="yes ${UP[]_CPPFLAGS:-(default paths)}"
         AC_DEFINE([DMESH_HAVE_]UP, [1], [Define to 1 when $1 is used])],
        [test "$with_$1" != check],
        [AC_MSG_ERROR([--with-$1 was given but $1 ($2, -l$3) was not found or does not link])],
        [dmesh_$1_summary="no (not found)"])
    ])
  AC_SUBST(UP[_CPPFLAGS])
  AC_SUBST(UP[_LDFLAGS])
  AC_SUBST(UP[_LIBS])
  AM_CONDITIONAL([DMESH_HAVE_]UP, [test "$dmesh_$1_ok" = yes])
  m4_popdef([UP])
])
