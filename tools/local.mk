# SPDX-License-Identifier: BSD-3-Clause
# tools/local.mk: dmesh-info, and the format targets (dmesh-bench has its
# own fragment, tools/bench.mk).
#
# dmesh-info --plan previews the binding plan. The plan calls the library's
# internal binding functions, so dmesh-info links lib/libdmesh_core.la (not
# lib/libdmesh.la). dmesh-info calls dmesh_info_plan(argc, argv) when argv
# holds --plan; without hwloc that prints an error and returns 1. tools/args.c:
# the argument helpers shared by the tools (strict numbers, named bad options).
if DMESH_HAVE_HWLOC
DMESH_INFO_PLAN = tools/dmesh-info-plan.c
else
DMESH_INFO_PLAN = tools/dmesh-info-plan-none.c
endif
bin_PROGRAMS += tools/dmesh-info
tools_dmesh_info_SOURCES = tools/dmesh-info.c tools/args.c tools/args.h \
	tools/dmesh-info-plan.h $(DMESH_INFO_PLAN)
tools_dmesh_info_CPPFLAGS = $(AM_CPPFLAGS) $(HWLOC_CPPFLAGS)
tools_dmesh_info_LDADD = lib/libdmesh_core.la

# make check-format: the C and C++ sources against .clang-format
# (tools/check-format.sh lists the files that differ; the format stage of
# .ci/run). make format formats them in place. Not in make check: the
# result depends on clang-format's version (CI: Debian 12's, 14).
EXTRA_DIST += tools/check-format.sh
check-format:
	$(SHELL) $(top_srcdir)/tools/check-format.sh
format:
	$(SHELL) $(top_srcdir)/tools/check-format.sh --fix
.PHONY: check-format format

# make check-loops: no loop in the symbol references between the objects
# of lib/, and every reference going down the rows doc/architecture.md
# draws (tools/check-loops.sh and tools/check-rooms.sh, on this build;
# stage object-loops of .ci/run).
EXTRA_DIST += tools/check-loops.sh tools/check-rooms.sh
check-loops:
	$(SHELL) $(top_srcdir)/tools/check-loops.sh $(abs_top_builddir)
.PHONY: check-loops

# bench-scale: creation time and memory of one mesh's communicators, five
# ways, for tools/bench-scale.sh under SimGrid's SMPI (doc/performance.md,
# "At scale"). Built with make check, installed nowhere.
check_PROGRAMS += tools/bench-scale
tools_bench_scale_SOURCES = tools/bench-scale.c
tools_bench_scale_LDADD = lib/libdmesh.la
EXTRA_DIST += tools/bench-scale.sh
