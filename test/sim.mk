# test/sim.mk: tests of the simulation-code calls (issue 14), included by
# Makefile.am.
#   test_mesh_sim   rank_of, coordinate_of, shift, all groups and the
#                   Cartesian communicator against MPI_Cart_* and the layout
#                   enumeration, at 1, 2, 4, 6 and 8 ranks
#   test_serialize  dmesh_serialize / dmesh_deserialize round trips and
#                   malformed texts, at 1, 2, 4, 6 and 8 ranks

check_PROGRAMS += test/test_mesh_sim
test_test_mesh_sim_SOURCES = test/test_mesh_sim.c $(MESH_TESTUTIL)
test_test_mesh_sim_CPPFLAGS = $(DMESH_TEST_CPPFLAGS)
test_test_mesh_sim_CFLAGS = $(DMESH_TEST_CFLAGS)
test_test_mesh_sim_LDADD = $(DMESH_TEST_LIBS)

SIM_MPI_RUNS = test/sim-np1.sh test/sim-np2.sh test/sim-np4.sh test/sim-np6.sh test/sim-np8.sh
TESTS += $(SIM_MPI_RUNS)
EXTRA_DIST += $(SIM_MPI_RUNS)

check_PROGRAMS += test/test_serialize
test_test_serialize_SOURCES = test/test_serialize.c $(MESH_TESTUTIL)
test_test_serialize_CPPFLAGS = $(DMESH_TEST_CPPFLAGS)
test_test_serialize_CFLAGS = $(DMESH_TEST_CFLAGS)
test_test_serialize_LDADD = $(DMESH_TEST_LIBS)

SERIALIZE_MPI_RUNS = test/serialize-np1.sh test/serialize-np2.sh test/serialize-np4.sh \
	test/serialize-np6.sh test/serialize-np8.sh
TESTS += $(SERIALIZE_MPI_RUNS)
EXTRA_DIST += $(SERIALIZE_MPI_RUNS)

# Fuzzing of the saved-mesh parser under ASan and UBSan (the fuzz stage of
# .ci/run; needs clang). Not in TESTS: it builds its own sanitized program.
EXTRA_DIST += test/fuzz-deserialize.sh test/fuzz_deserialize.c
CLEANFILES += test/fuzz_deserialize
.PHONY: fuzz-check
fuzz-check:
	top_srcdir='$(abs_top_srcdir)' top_builddir='$(abs_top_builddir)' MPICC='$(MPICC)' \
	  $(SHELL) '$(abs_top_srcdir)/test/fuzz-deserialize.sh' $(FUZZ_ITERATIONS)
