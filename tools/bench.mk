# SPDX-License-Identifier: BSD-3-Clause
# tools/bench.mk: dmesh-bench and the sweep script (included by Makefile.am).
# dmesh-bench links the convenience library libdmesh_core.la (not
# libdmesh.la) for two reasons: it reports the size of internal structs
# (lib/mesh.h, lib/universe.h), and its PMPI wrappers (--profile) must see
# the library's own MPI calls, which they do when the library is linked in.
bin_PROGRAMS += tools/dmesh-bench
tools_dmesh_bench_SOURCES = tools/dmesh-bench.c tools/bench.h tools/bench-create.c \
	tools/bench-local.c tools/bench-layout.c tools/bench-pmpi.c tools/args.c tools/args.h
tools_dmesh_bench_LDADD = lib/libdmesh_core.la -lm

# make check: one small run under MPI and one layout-only run, no timing
# assertions (tools/bench-smoke.sh).
TESTS += tools/bench-smoke.sh
EXTRA_DIST += tools/bench-smoke.sh tools/bench-sweep.sh \
	doc/performance.md doc/bench-sweep.csv doc/bench-sweep.svg
