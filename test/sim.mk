# test/sim.mk: tests of the simulation-code calls (issue 14), included by
# Makefile.am.
#   test_mesh_sim   rank_of, coordinate_of, shift, all groups and the
#                   Cartesian communicator against MPI_Cart_* and the layout
#                   enumeration, at 1, 2, 4, 6 and 8 ranks

check_PROGRAMS += test/test_mesh_sim
test_test_mesh_sim_SOURCES = test/test_mesh_sim.c $(MESH_TESTUTIL)
test_test_mesh_sim_CPPFLAGS = $(DMESH_TEST_CPPFLAGS)
test_test_mesh_sim_CFLAGS = $(DMESH_TEST_CFLAGS)
test_test_mesh_sim_LDADD = $(DMESH_TEST_LIBS)

SIM_MPI_RUNS = test/sim-np1.sh test/sim-np2.sh test/sim-np4.sh test/sim-np6.sh test/sim-np8.sh
TESTS += $(SIM_MPI_RUNS)
EXTRA_DIST += $(SIM_MPI_RUNS)
