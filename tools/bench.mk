# SPDX-License-Identifier: BSD-3-Clause
# tools/bench.mk: dmesh-bench and the sweep script (included by Makefile.am).
# dmesh-bench links the convenience library libdmesh_core.la (not
# libdmesh.la) for two reasons: it reports the size of internal structs
# (lib/mesh.h, lib/universe.h), and its PMPI wrappers (--profile) must see
# the library's own MPI calls, which they do when the library is linked in.
bin_PROGRAMS += tools/dmesh-bench
tools_dmesh_bench_SOURCES = tools/dmesh-bench.c tools/bench.h tools/bench-create.c \
	tools/bench-local.c tools/bench-layout.c tools/bench-pmpi.c tools/args.c tools/args.h \
	tools/bench-nccl.c tools/bench-util.c tools/bench-ft.c tools/bench-copies.c
tools_dmesh_bench_LDADD = lib/libdmesh_core.la -lm

# dmesh-bench-double (not installed): dmesh-bench with the NCCL and CUDA
# test doubles in place of the real libraries, so that --nccl runs without
# a GPU (its counts are exact, its times are the double's).
if DMESH_HAVE_NCCL
noinst_PROGRAMS += tools/dmesh-bench-double
tools_dmesh_bench_double_SOURCES = $(tools_dmesh_bench_SOURCES) tools/bench-nccl-double.c \
	test/nccl_double/nccl_double.c test/nccl_double/nccl_double.h \
	test/gpu/cuda_double.c test/gpu/cuda_double.h
tools_dmesh_bench_double_CPPFLAGS = $(AM_CPPFLAGS) $(NCCL_CPPFLAGS) $(CUDA_CPPFLAGS) \
	-I$(top_srcdir)/test/nccl_double -I$(top_srcdir)/test/gpu \
	-DDMESH_BENCH_NCCL='"the NCCL test double, no GPU: counts exact, times of the double"'
tools_dmesh_bench_double_LDFLAGS = -export-dynamic # libdmesh finds the doubles in the program
tools_dmesh_bench_double_LDADD = lib/libdmesh_core.la -lm
endif

# make check: one small run under MPI and one layout-only run, no timing
# assertions (tools/bench-smoke.sh).
TESTS += tools/bench-smoke.sh
EXTRA_DIST += tools/bench-smoke.sh tools/bench-sweep.sh tools/bench-ab.c \
	doc/performance.md doc/bench-sweep.csv doc/bench-sweep.svg
