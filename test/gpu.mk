# SPDX-License-Identifier: BSD-3-Clause
# test/gpu.mk: device binding and NCCL pairing tests (included by Makefile.am).
#   test_topo_plan     the binding plan on the hwloc XML topologies of
#                      test/data, and dmesh-info --plan (hwloc; no GPU, no MPI)
#   test_nccl_pairing  lib/comm_nccl.c against the NCCL test double under
#                      mpiexec (NCCL headers; no GPU, libnccl not linked)
#   test_topo_bind     lib/topo.c end to end under mpiexec: a CUDA runtime test
#                      double reports the GPUs of an XML topology that hwloc
#                      reads as this machine's (CUDA and hwloc; no GPU)
#   test_gpu_mesh      meshes on real GPUs with NCCL, public API only; exits 77
#                      without a GPU (CUDA and NCCL)
#   test_copies_device copies of device memory on a "cuda" mesh against the
#                      CUDA double (CUDA; no GPU)
# The three MPI programs share their soft checks and program frame
# (test/gpu_testutil.c). Programs with a double are linked with
# -export-dynamic: libdmesh loads the CUDA runtime and NCCL at run time
# (lib/gpu_lib.c), and finds the double's functions in the program first.
GPU_DOUBLE_LINK = -export-dynamic
GPU_TESTUTIL = test/gpu_testutil.c test/gpu_testutil.h
GPU_TEST_TOPOLOGIES = test/data/2s-8gpu.xml test/data/2s-8gpu-interleaved.xml \
	test/data/1s-8gpu.xml test/data/2s-4gpu-socket0.xml
EXTRA_DIST += $(GPU_TEST_TOPOLOGIES) test/data/make-topologies.py test/gpu/gpu-mesh.sh \
	test/gpu/gpu-libs.sh test/gpu/hide-gpu-libs.sh

if DMESH_HAVE_HWLOC
check_PROGRAMS += test/test_topo_plan
test_test_topo_plan_SOURCES = test/test_topo_plan.c lib/topo_plan.c lib/topo_hwloc.c lib/error.c lib/ulfm.c lib/fault.c \
	tools/dmesh-info-plan.c tools/dmesh-info-plan.h tools/args.c tools/args.h
test_test_topo_plan_CPPFLAGS = $(DMESH_TEST_CPPFLAGS) -DDMESH_API_DIRECT $(HWLOC_CPPFLAGS) -I$(top_srcdir)/tools \
	-DDMESH_TEST_DATA='"$(abs_top_srcdir)/test/data"'
test_test_topo_plan_CFLAGS = $(DMESH_TEST_CFLAGS)
test_test_topo_plan_LDADD = $(HWLOC_LDFLAGS) $(HWLOC_LIBS) $(CHECK_LIBS)
TESTS += test/test_topo_plan
endif

if DMESH_HAVE_CUDA
# libdmesh neither links nor calls the CUDA runtime and NCCL directly (one
# build for every node, doc/architecture.md, Coding rules)
TESTS += test/gpu/gpu-libs.sh

# Copies of device memory on a "cuda" mesh (libdmesh_core, the CUDA double)
check_PROGRAMS += test/gpu/test_copies_device
test_gpu_test_copies_device_SOURCES = test/gpu/test_copies_device.c test/gpu/cuda_double.c \
	test/gpu/cuda_double.h $(GPU_TESTUTIL)
test_gpu_test_copies_device_CPPFLAGS = $(DMESH_TEST_CPPFLAGS) $(CUDA_CPPFLAGS) \
	-I$(top_srcdir)/test/gpu -I$(top_srcdir)/test
test_gpu_test_copies_device_CFLAGS = $(DMESH_TEST_CFLAGS)
test_gpu_test_copies_device_LDFLAGS = $(GPU_DOUBLE_LINK)
test_gpu_test_copies_device_LDADD = lib/libdmesh_core.la $(CHECK_LIBS)
TESTS += test/gpu/test_copies_device-np2.mpi test/gpu/test_copies_device-np4.mpi

if DMESH_HAVE_HWLOC
check_PROGRAMS += test/gpu/test_topo_bind
test_gpu_test_topo_bind_SOURCES = test/gpu/test_topo_bind.c test/ft_launch.h test/gpu/cuda_double.c \
	test/gpu/cuda_double.h $(GPU_TESTUTIL) lib/topo.c lib/topo_node.c lib/topo_hwloc.c \
	lib/topo_plan.c lib/node_find.c lib/error.c lib/ulfm.c lib/agree.c lib/fault.c lib/gpu_lib.c
test_gpu_test_topo_bind_CPPFLAGS = $(DMESH_TEST_CPPFLAGS) -DDMESH_API_DIRECT $(CUDA_CPPFLAGS) $(NCCL_CPPFLAGS) \
	$(HWLOC_CPPFLAGS) \
	-I$(top_srcdir)/test/gpu -I$(top_srcdir)/test \
	-DDMESH_TEST_DATA='"$(abs_top_srcdir)/test/data"'
test_gpu_test_topo_bind_CFLAGS = $(DMESH_TEST_CFLAGS)
test_gpu_test_topo_bind_LDFLAGS = $(GPU_DOUBLE_LINK)
test_gpu_test_topo_bind_LDADD = $(HWLOC_LDFLAGS) $(HWLOC_LIBS) $(CHECK_LIBS) $(DMESH_DL_LIBS)
TESTS += test/gpu/test_topo_bind-np4.mpi test/gpu/test_topo_bind-np2.mpi
endif
endif

if DMESH_HAVE_NCCL
check_PROGRAMS += test/test_nccl_pairing
test_test_nccl_pairing_SOURCES = test/test_nccl_pairing.c test/nccl_double/nccl_double.c \
	test/nccl_double/nccl_double.h test/gpu/cuda_double.c test/gpu/cuda_double.h \
	$(GPU_TESTUTIL) lib/comm_nccl.c lib/node_find.c lib/error.c lib/ulfm.c lib/agree.c lib/fault.c \
	lib/gpu_lib.c
test_test_nccl_pairing_CPPFLAGS = $(DMESH_TEST_CPPFLAGS) -DDMESH_API_DIRECT $(NCCL_CPPFLAGS) $(CUDA_CPPFLAGS) \
	-I$(top_srcdir)/test/nccl_double -I$(top_srcdir)/test/gpu
test_test_nccl_pairing_CFLAGS = $(DMESH_TEST_CFLAGS)
test_test_nccl_pairing_LDFLAGS = $(GPU_DOUBLE_LINK)
test_test_nccl_pairing_LDADD = $(CHECK_LIBS) $(DMESH_DL_LIBS)
TESTS += test/test_nccl_pairing-np4.mpi test/test_nccl_pairing-np2.mpi

check_PROGRAMS += test/gpu/test_gpu_mesh
test_gpu_test_gpu_mesh_SOURCES = test/gpu/test_gpu_mesh.c $(GPU_TESTUTIL)
test_gpu_test_gpu_mesh_CPPFLAGS = $(DMESH_TEST_CPPFLAGS) $(NCCL_CPPFLAGS) $(CUDA_CPPFLAGS) \
	-I$(top_srcdir)/test
test_gpu_test_gpu_mesh_CFLAGS = $(DMESH_TEST_CFLAGS)
test_gpu_test_gpu_mesh_LDADD = $(DMESH_TEST_LIBS) $(NCCL_LDFLAGS) $(NCCL_LIBS) \
	$(CUDA_LDFLAGS) $(CUDA_LIBS)
TESTS += test/gpu/gpu-mesh.sh

# NCCL creation strategies (dmesh_nccl_create, doc/gpu.md) through the mesh
# API: libdmesh_core with the NCCL and CUDA doubles in place of the real libraries.
check_PROGRAMS += test/test_nccl_create
test_test_nccl_create_SOURCES = test/test_nccl_create.c test/nccl_double/nccl_double.c \
	test/nccl_double/nccl_double.h test/gpu/cuda_double.c test/gpu/cuda_double.h $(GPU_TESTUTIL)
test_test_nccl_create_CPPFLAGS = $(test_test_nccl_pairing_CPPFLAGS)
test_test_nccl_create_CFLAGS = $(DMESH_TEST_CFLAGS)
test_test_nccl_create_LDFLAGS = $(GPU_DOUBLE_LINK)
test_test_nccl_create_LDADD = lib/libdmesh_core.la $(CHECK_LIBS)
TESTS += test/test_nccl_create-np4.mpi test/test_nccl_create-np2.mpi
endif

# make check-gpu: the real-GPU validation of test/gpu/run-device.sh (skips,
# status 77, on a machine without a GPU).
EXTRA_DIST += test/gpu/run-device.sh test/gpu/copies_stream.cu
check-gpu: all
	$(SHELL) $(top_srcdir)/test/gpu/run-device.sh $(abs_top_builddir)
.PHONY: check-gpu

# make check-configure: configure's NCCL detection (a pip wheel's layout,
# --with-nccl=/nonexistent, NCCL_HOME) and its choice of MPI (a wrapper that
# cannot link is an error, never replaced; --with-mpi-abi without an ABI;
# dmesh.pc's flags with a plain compiler); several configure runs, so not in
# make check (.ci/run runs them).
EXTRA_DIST += test/configure-nccl.sh test/configure-mpi.sh
check-configure:
	$(SHELL) $(top_srcdir)/test/configure-nccl.sh $(abs_top_srcdir) $(abs_top_builddir)/configure-nccl.tmp
	$(SHELL) $(top_srcdir)/test/configure-mpi.sh $(abs_top_srcdir) $(abs_top_builddir)/configure-mpi.tmp
.PHONY: check-configure
