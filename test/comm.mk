# SPDX-License-Identifier: BSD-3-Clause
# test/comm.mk: the communicator module (lib/comm_mpi.c) under mpiexec,
# through its internal interface: libdmesh_core.
#   test_comm_mpi  split colours that do not fit an int fail on the ranks
#                  concerned, inside the split, so that no rank hangs
check_PROGRAMS += test/test_comm_mpi
test_test_comm_mpi_SOURCES = test/test_comm_mpi.c $(MESH_TESTUTIL)
test_test_comm_mpi_CPPFLAGS = $(DMESH_TEST_CPPFLAGS)
test_test_comm_mpi_CFLAGS = $(DMESH_TEST_CFLAGS)
test_test_comm_mpi_LDADD = lib/libdmesh_core.la $(CHECK_LIBS)
TESTS += test/test_comm_mpi-np2.mpi test/test_comm_mpi-np4.mpi

# Node finding (lib/node_find.c): test_node_find works out the nodes of each
# rule (dmesh_node) from what the MPI reports and compares; plain here, and
# by test/node-double.sh under the PMPI interposer libnode_double (a test
# module for LD_PRELOAD, never linked into libdmesh): one-process shared
# splits (MPICH 5 ch4:ucx on one host), fake host lists, two host names of
# one hash; with the CUDA double, 8 ranks on 4 devices bind two per device.
check_PROGRAMS += test/test_node_find
test_test_node_find_SOURCES = test/test_node_find.c $(MESH_TESTUTIL)
test_test_node_find_CPPFLAGS = $(DMESH_TEST_CPPFLAGS)
test_test_node_find_CFLAGS = $(DMESH_TEST_CFLAGS)
test_test_node_find_LDADD = lib/libdmesh_core.la $(CHECK_LIBS)
check_LTLIBRARIES += test/libnode_double.la
test_libnode_double_la_SOURCES = test/node_double/node_double.c
test_libnode_double_la_LDFLAGS = -module -avoid-version -shared -rpath /nowhere
TESTS += test/test_node_find-np2.mpi test/test_node_find-np4.mpi test/node-double-np4.mpi \
	test/node-double-np8.mpi
# test_node_find_chunk: test_node_find with lib/node_find.c built into the
# program with the splits' hosts in allreduces of one hash each (in place
# of 512), so that node-double.sh's layouts take the path of many splits.
check_PROGRAMS += test/test_node_find_chunk
test_test_node_find_chunk_SOURCES = test/test_node_find.c $(MESH_TESTUTIL) lib/node_find.c
test_test_node_find_chunk_CPPFLAGS = $(DMESH_TEST_CPPFLAGS) -I$(top_srcdir)/lib \
	-DDMESH_NODE_SPLITS_CHUNK=1
test_test_node_find_chunk_CFLAGS = $(DMESH_TEST_CFLAGS)
test_test_node_find_chunk_LDADD = lib/libdmesh_core.la $(CHECK_LIBS)
EXTRA_DIST += test/node-double.sh
