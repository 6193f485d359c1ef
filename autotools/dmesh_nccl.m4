# SPDX-License-Identifier: BSD-3-Clause
# DMESH_CHECK_NCCL: NCCL, optional; --with-nccl[=DIR]. It needs the CUDA
# runtime: --with-nccl without CUDA fails, a probe without CUDA turns it off.
AC_DEFUN([DMESH_CHECK_NCCL], [
  AS_IF([test "$dmesh_cuda_ok" != yes],
    [AS_CASE([$with_nccl],
       [""|check|no], [with_nccl=no],
       [AC_MSG_ERROR([--with-nccl needs the CUDA runtime (--with-cuda)])])])
  dmesh_nccl_save_CPPFLAGS=$CPPFLAGS
  dmesh_nccl_save_LDFLAGS=$LDFLAGS
  CPPFLAGS="$CPPFLAGS $CUDA_CPPFLAGS"
  LDFLAGS="$LDFLAGS $CUDA_LDFLAGS"
  DMESH_OPTIONAL_LIB([nccl], [nccl.h], [nccl], [ncclCommInitRankConfig], [/usr/local/cuda],
                     [$CUDA_LIBS])
  CPPFLAGS=$dmesh_nccl_save_CPPFLAGS
  LDFLAGS=$dmesh_nccl_save_LDFLAGS
  AS_IF([test "$with_nccl" = no && test "$dmesh_cuda_ok" != yes],
    [dmesh_nccl_summary="no (needs CUDA)"])
])
