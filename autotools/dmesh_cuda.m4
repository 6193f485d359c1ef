# SPDX-License-Identifier: BSD-3-Clause
# DMESH_CHECK_CUDA: the CUDA runtime (cudart), optional; --with-cuda[=DIR].
AC_DEFUN([DMESH_CHECK_CUDA], [
  DMESH_OPTIONAL_LIB([cuda], [cuda_runtime_api.h], [cudart], [cudaGetDeviceCount],
                     [/usr/local/cuda])
])
