# SPDX-License-Identifier: BSD-3-Clause
# tools/plan.mk: the --plan part of dmesh-info (included by Makefile.am after
# tools/local.mk, which defines tools_dmesh_info_SOURCES). The plan calls
# the library's internal binding functions, so dmesh-info must link
# lib/libdmesh_core.la (not lib/libdmesh.la). dmesh-info calls
# dmesh_info_plan(argc, argv) when argv holds --plan; without hwloc that
# prints an error and returns 1.
tools_dmesh_info_SOURCES += tools/dmesh-info-plan.h
if DMESH_HAVE_HWLOC
tools_dmesh_info_SOURCES += tools/dmesh-info-plan.c
else
tools_dmesh_info_SOURCES += tools/dmesh-info-plan-none.c
endif
tools_dmesh_info_CPPFLAGS = $(AM_CPPFLAGS) $(HWLOC_CPPFLAGS)
