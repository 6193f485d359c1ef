# SPDX-License-Identifier: BSD-3-Clause
# lib/gpu.mk: device binding and NCCL pairing sources of libdmesh_core.la.
# Each optional dependency has its own files; configure's conditionals pick
# the real one or its stub, no scattered #ifdef (doc/architecture.md, Coding
# rules: optional dependencies):
#   CUDA  : topo.c (binding; cudaSetDevice)     else topo_none.c (no device)
#           + gpu_lib.c: the CUDA runtime and NCCL loaded at run time, never
#           linked (one build for every node)
#   hwloc : topo_node.c + topo_hwloc.c + topo_plan.c (locality plan)
#           else topo_node_none.c (local rank modulo device count)
#   NCCL  : comm_nccl.c + mesh_nccl.c + api_nccl.c (its entry points)
#           + include/dmesh_nccl.h  else comm_nccl_none.c
lib_libdmesh_core_la_SOURCES += lib/topo_node.h

if DMESH_HAVE_CUDA
lib_libdmesh_core_la_SOURCES += lib/topo.c lib/gpu_lib.c lib/gpu_lib.h lib/copies_device.c
else
lib_libdmesh_core_la_SOURCES += lib/topo_none.c lib/copies_device_none.c
endif

if DMESH_HAVE_HWLOC
lib_libdmesh_core_la_SOURCES += lib/topo_node.c lib/topo_hwloc.c lib/topo_hwloc.h \
	lib/topo_plan.c lib/topo_plan.h
else
lib_libdmesh_core_la_SOURCES += lib/topo_node_none.c
endif

if DMESH_HAVE_NCCL
lib_libdmesh_core_la_SOURCES += lib/comm_nccl.c lib/mesh_nccl.c lib/api_nccl.c
include_HEADERS += include/dmesh_nccl.h
# dmesh.pc carries no CUDA/NCCL flags; programs that include dmesh_nccl.h use dmesh-nccl.pc.
pkgconfig_DATA += dmesh-nccl.pc
else
lib_libdmesh_core_la_SOURCES += lib/comm_nccl_none.c
endif
