# lib/gpu.mk: device binding and NCCL pairing sources of libdmesh_core.la.
lib_libdmesh_core_la_SOURCES += lib/topo_none.c lib/comm_nccl_none.c
