# tools/local.mk: dmesh-info.
bin_PROGRAMS += tools/dmesh-info
tools_dmesh_info_SOURCES = tools/dmesh-info.c
tools_dmesh_info_LDADD = lib/libdmesh_core.la
