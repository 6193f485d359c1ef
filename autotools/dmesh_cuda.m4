# SPDX-License-Identifier: BSD-3-Clause
# DMESH_CHECK_CUDA: the CUDA runtime (cudart), optional; --with-cuda[=DIR].
# libdmesh does not link cudart (nor NCCL) but loads them at run time
# (lib/gpu_lib.c): CUDA_LIBS is for programs that call CUDA themselves, and
# DMESH_DL_LIBS is what dlopen needs (empty where libc has it).
AC_DEFUN([DMESH_CHECK_CUDA], [
  DMESH_OPTIONAL_LIB([cuda], [cuda_runtime_api.h], [cudart], [cudaGetDeviceCount],
                     [/usr/local/cuda])
  DMESH_DL_LIBS=
  AS_IF([test "$dmesh_cuda_ok" = yes], [
    dmesh_save_LIBS=$LIBS
    AC_SEARCH_LIBS([dlopen], [dl], [],
      [AC_MSG_ERROR([CUDA support loads the CUDA runtime with dlopen, which was not found])])
    AS_CASE([$ac_cv_search_dlopen], ["none required"], [], [DMESH_DL_LIBS=$ac_cv_search_dlopen])
    LIBS=$dmesh_save_LIBS])
  dnl where configure found cudart: the last place the run-time load looks
  dmesh_cuda_libdir=`echo " $CUDA_LDFLAGS" | sed -n 's/^.* -L\([[^ ]]*\).*$/\1/p'`
  AC_DEFINE_UNQUOTED([DMESH_CUDART_FOUND_LIBDIR], ["$dmesh_cuda_libdir"],
                     [Directory configure found the CUDA runtime in (empty: default paths)])
  AC_SUBST([DMESH_DL_LIBS])
])
