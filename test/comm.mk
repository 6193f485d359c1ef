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
