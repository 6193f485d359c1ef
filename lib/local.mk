# lib/local.mk: the dmesh library.
lib_LTLIBRARIES += lib/libdmesh.la
include_HEADERS += include/dmesh.h include/dmesh_layout.h
nodist_include_HEADERS += include/dmesh_version.h

lib_libdmesh_la_SOURCES = \
	lib/error.c lib/error.h \
	lib/layout.c
lib_libdmesh_la_CFLAGS = $(AM_CFLAGS) $(DMESH_VISIBILITY_CFLAGS)
lib_libdmesh_la_CPPFLAGS = $(AM_CPPFLAGS) $(CUDA_CPPFLAGS) $(NCCL_CPPFLAGS) $(HWLOC_CPPFLAGS)
lib_libdmesh_la_LDFLAGS = -version-info $(DMESH_LT_VERSION) $(CUDA_LDFLAGS) $(NCCL_LDFLAGS) $(HWLOC_LDFLAGS)
lib_libdmesh_la_LIBADD = $(NCCL_LIBS) $(CUDA_LIBS) $(HWLOC_LIBS)
