# SPDX-License-Identifier: BSD-3-Clause
# tools/local.mk: dmesh-info.
bin_PROGRAMS += tools/dmesh-info
tools_dmesh_info_SOURCES = tools/dmesh-info.c
tools_dmesh_info_LDADD = lib/libdmesh_core.la
# Argument helpers shared by the tools (strict numbers, named bad options).
tools_dmesh_info_SOURCES += tools/args.c tools/args.h
