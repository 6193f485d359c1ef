# SPDX-License-Identifier: BSD-3-Clause
# DMESH_CHECK_NCCL: NCCL 2.18 or newer, optional; --with-nccl[=DIR], or the
# NCCL_HOME environment variable. It needs the CUDA runtime: --with-nccl
# without CUDA fails, a probe without CUDA turns it off.
#
# Where it looks: DIR when given (and only there: a DIR without NCCL fails
# even when CUDA's directories hold one); else $NCCL_HOME, /usr/local/cuda,
# then the compiler's default paths. In a directory, DIR/include must hold
# nccl.h and the library directory is the first of DIR/lib64, DIR/lib that
# holds libnccl (an empty lib64 is skipped); a pip wheel's layout with only
# libnccl.so.2 links with -l:libnccl.so.2. NCCL's -I and -L come before
# CUDA's, so that CUDA's copy of NCCL never hides the one asked for.
#
# Also reports (and defines DMESH_HAVE_NCCL_SCALABLE for) the creation
# paths the found version offers: ncclCommSplit (2.18, always, since that is
# the minimum) and ncclCommInitRankScalable (2.23).
AC_DEFUN([DMESH_NCCL_LIBDIR], [
  dmesh_nccl_libdir=
  for dmesh_d in "$1/lib64" "$1/lib"; do
    for dmesh_f in "$dmesh_d"/libnccl.so* "$dmesh_d"/libnccl.a; do
      AS_IF([test -z "$dmesh_nccl_libdir" && test -e "$dmesh_f"], [dmesh_nccl_libdir=$dmesh_d])
    done
  done
  dmesh_nccl_lib=-lnccl
  AS_IF([test -n "$dmesh_nccl_libdir" && test ! -e "$dmesh_nccl_libdir/libnccl.so" &&
         test ! -e "$dmesh_nccl_libdir/libnccl.a" && test -e "$dmesh_nccl_libdir/libnccl.so.2"],
    [dmesh_nccl_lib=-l:libnccl.so.2])
])

# DMESH_NCCL_TRY: try $dmesh_dir (empty: default paths); sets dmesh_nccl_ok and NCCL_* on success,
# dmesh_nccl_why on failure.
AC_DEFUN([DMESH_NCCL_TRY], [
  dmesh_cppflags=; dmesh_ldflags=; dmesh_nccl_lib=-lnccl; dmesh_nccl_why=
  AS_IF([test -n "$dmesh_dir"],
    [AS_IF([test -f "$dmesh_dir/include/nccl.h"], [], [dmesh_nccl_why="no $dmesh_dir/include/nccl.h"])
     DMESH_NCCL_LIBDIR([$dmesh_dir])
     AS_IF([test -z "$dmesh_nccl_libdir"], [dmesh_nccl_why="${dmesh_nccl_why:+$dmesh_nccl_why, }no libnccl in $dmesh_dir/lib64 or $dmesh_dir/lib"])
     dmesh_cppflags="-I$dmesh_dir/include"
     dmesh_ldflags="-L$dmesh_nccl_libdir -Wl,-rpath,$dmesh_nccl_libdir"])
  AC_MSG_CHECKING([for NCCL >= 2.18 (${dmesh_dir:-default paths})])
  AS_IF([test -z "$dmesh_nccl_why"], [
    CPPFLAGS="$dmesh_cppflags $dmesh_nccl_save_CPPFLAGS $CUDA_CPPFLAGS"
    LDFLAGS="$dmesh_ldflags $dmesh_nccl_save_LDFLAGS $CUDA_LDFLAGS"
    LIBS="$dmesh_nccl_lib $CUDA_LIBS $dmesh_nccl_save_LIBS"
    AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <nccl.h>
#if !defined(NCCL_VERSION_CODE) || NCCL_VERSION_CODE < NCCL_VERSION(2, 18, 0)
#error NCCL older than 2.18
#endif]], [[(void)&ncclCommInitRankConfig; (void)&ncclCommSplit;]])],
      [dmesh_nccl_ok=yes
       NCCL_CPPFLAGS=$dmesh_cppflags
       NCCL_LDFLAGS=$dmesh_ldflags
       NCCL_LIBS=$dmesh_nccl_lib],
      [dmesh_nccl_why="nccl.h older than 2.18, or $dmesh_nccl_lib does not link"])])
  AS_IF([test "$dmesh_nccl_ok" = yes], [AC_MSG_RESULT([yes])], [AC_MSG_RESULT([no: $dmesh_nccl_why])])
])

AC_DEFUN([DMESH_CHECK_NCCL], [
  AC_ARG_WITH([nccl],
    [AS_HELP_STRING([--with-nccl@<:@=DIR@:>@],
      [use NCCL >= 2.18 (installed in DIR); default: probe $NCCL_HOME, /usr/local/cuda and the standard paths])],
    [], [with_nccl=check])
  AC_ARG_VAR([NCCL_HOME], [NCCL installation directory probed when --with-nccl names none])
  AS_IF([test "$dmesh_cuda_ok" != yes],
    [AS_CASE([$with_nccl],
       [""|check|no], [with_nccl=no],
       [AC_MSG_ERROR([--with-nccl needs the CUDA runtime (--with-cuda)])])])
  dmesh_nccl_ok=no
  NCCL_CPPFLAGS=
  NCCL_LDFLAGS=
  NCCL_LIBS=
  dmesh_nccl_version=
  dmesh_nccl_scalable=no
  AS_CASE([$with_nccl],
    [no], [dmesh_nccl_summary="no (--without-nccl)"],
    [dmesh_nccl_save_CPPFLAGS=$CPPFLAGS
     dmesh_nccl_save_LDFLAGS=$LDFLAGS
     dmesh_nccl_save_LIBS=$LIBS
     AS_CASE([$with_nccl], [yes|check], [dmesh_nccl_dirs="$NCCL_HOME /usr/local/cuda ''"],
       [dmesh_nccl_dirs="'$with_nccl'"])
     eval "set x $dmesh_nccl_dirs"
     shift
     for dmesh_dir in "$[]@"; do
       DMESH_NCCL_TRY
       test "$dmesh_nccl_ok" = yes && break
     done
     AS_IF([test "$dmesh_nccl_ok" = yes], [
       CPPFLAGS="$NCCL_CPPFLAGS $dmesh_nccl_save_CPPFLAGS $CUDA_CPPFLAGS"
       LDFLAGS="$NCCL_LDFLAGS $dmesh_nccl_save_LDFLAGS $CUDA_LDFLAGS"
       LIBS="$NCCL_LIBS $CUDA_LIBS $dmesh_nccl_save_LIBS"
       AC_COMPUTE_INT([dmesh_nccl_code], [NCCL_VERSION_CODE], [[#include <nccl.h>]], [dmesh_nccl_code=0])
       dmesh_nccl_version="`expr $dmesh_nccl_code / 10000`.`expr $dmesh_nccl_code / 100 % 100`.`expr $dmesh_nccl_code % 100`"
       AC_MSG_CHECKING([for ncclCommInitRankScalable (NCCL >= 2.23)])
       AC_LINK_IFELSE([AC_LANG_PROGRAM([[#include <nccl.h>
#if NCCL_VERSION_CODE < NCCL_VERSION(2, 23, 0)
#error NCCL older than 2.23
#endif]], [[(void)&ncclCommInitRankScalable;]])],
         [dmesh_nccl_scalable=yes
          AC_DEFINE([DMESH_HAVE_NCCL_SCALABLE], [1],
                    [Define to 1 when NCCL has ncclCommInitRankScalable (2.23)])])
       AC_MSG_RESULT([$dmesh_nccl_scalable])
       dnl fault tolerance (dmesh_revoke, dmesh_shrink): used when the loaded
       dnl NCCL has them too (lib/gpu_lib.h: optional functions)
       dnl by the header's flags macros, as lib/gpu_lib.h decides (2.28.3
       dnl has no ncclCommRevoke)
       AC_CHECK_DECL([NCCL_SHRINK_DEFAULT], [dmesh_nccl_shrink=yes], [dmesh_nccl_shrink=no],
                     [[#include <nccl.h>]])
       AC_CHECK_DECL([NCCL_REVOKE_DEFAULT], [dmesh_nccl_revoke=yes], [dmesh_nccl_revoke=no],
                     [[#include <nccl.h>]])
       AC_DEFINE([DMESH_HAVE_NCCL], [1], [Define to 1 when nccl is used])
       dmesh_nccl_summary="yes $dmesh_nccl_version ${NCCL_CPPFLAGS:-(default paths)} $NCCL_LIBS; split: yes, scalable: $dmesh_nccl_scalable, ncclCommShrink: $dmesh_nccl_shrink, ncclCommRevoke: $dmesh_nccl_revoke"],
      [test "$with_nccl" != check],
      [AC_MSG_ERROR([--with-nccl=$with_nccl was given but NCCL >= 2.18 was not found there: $dmesh_nccl_why])],
      [dmesh_nccl_summary="no (not found: $dmesh_nccl_why)"])
     CPPFLAGS=$dmesh_nccl_save_CPPFLAGS
     LDFLAGS=$dmesh_nccl_save_LDFLAGS
     LIBS=$dmesh_nccl_save_LIBS])
  dnl where configure found NCCL: the last place the run-time load looks
  dmesh_nccl_found_libdir=`echo " $NCCL_LDFLAGS" | sed -n 's/^.* -L\([[^ ]]*\).*$/\1/p'`
  AC_DEFINE_UNQUOTED([DMESH_NCCL_FOUND_LIBDIR], ["$dmesh_nccl_found_libdir"],
                     [Directory configure found NCCL in (empty: default paths)])
  AS_IF([test "$with_nccl" = no && test "$dmesh_cuda_ok" != yes],
    [dmesh_nccl_summary="no (needs CUDA)"])
  AC_SUBST([NCCL_CPPFLAGS])
  AC_SUBST([NCCL_LDFLAGS])
  AC_SUBST([NCCL_LIBS])
  AM_CONDITIONAL([DMESH_HAVE_NCCL], [test "$dmesh_nccl_ok" = yes])
])
