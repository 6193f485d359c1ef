# SPDX-License-Identifier: BSD-3-Clause
# DMESH_CHECK_HWLOC: hwloc for device binding, optional; --with-hwloc[=DIR].
AC_DEFUN([DMESH_CHECK_HWLOC], [
  DMESH_OPTIONAL_LIB([hwloc], [hwloc.h], [hwloc], [hwloc_topology_init], [])
])
