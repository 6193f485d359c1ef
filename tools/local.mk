# SPDX-License-Identifier: BSD-3-Clause
# tools/local.mk: dmesh-info.
bin_PROGRAMS += tools/dmesh-info
tools_dmesh_info_SOURCES = tools/dmesh-info.c
tools_dmesh_info_LDADD = lib/libdmesh_core.la
# Argument helpers shared by the tools (strict numbers, named bad options).
tools_dmesh_info_SOURCES += tools/args.c tools/args.h

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
