# SPDX-License-Identifier: BSD-3-Clause
# test/sim.mk: tests of the simulation-code calls, included by
# Makefile.am.
#   test_mesh_sim   rank_of, coordinate_of, shift, all groups and the
#                   Cartesian communicator against MPI_Cart_* and the layout
#                   enumeration, at 1, 2, 4, 6 and 8 ranks
#   test_serialize  dmesh_serialize / dmesh_deserialize round trips and
#                   malformed texts, at 1, 2, 4, 6 and 8 ranks
#   test_sub_comm   dmesh_get_sub_comm against MPI_Cart_sub (every remain_dims
#                   pattern of 3-D and 4-D meshes) and with dmesh_flatten's
#                   communicator; processes outside a mesh (coordinates,
#                   an early dmesh_free), at 1, 2, 4, 6 and 8 ranks

check_PROGRAMS += test/test_mesh_sim
test_test_mesh_sim_SOURCES = test/test_mesh_sim.c $(MESH_TESTUTIL)
test_test_mesh_sim_CPPFLAGS = $(DMESH_TEST_CPPFLAGS)
test_test_mesh_sim_CFLAGS = $(DMESH_TEST_CFLAGS)
test_test_mesh_sim_LDADD = $(DMESH_TEST_LIBS)

TESTS += test/test_mesh_sim-np1.mpi test/test_mesh_sim-np2.mpi test/test_mesh_sim-np4.mpi \
	test/test_mesh_sim-np6.mpi test/test_mesh_sim-np8.mpi

check_PROGRAMS += test/test_serialize
test_test_serialize_SOURCES = test/test_serialize.c $(MESH_TESTUTIL)
test_test_serialize_CPPFLAGS = $(DMESH_TEST_CPPFLAGS)
test_test_serialize_CFLAGS = $(DMESH_TEST_CFLAGS)
test_test_serialize_LDADD = $(DMESH_TEST_LIBS)

TESTS += test/test_serialize-np1.mpi test/test_serialize-np2.mpi test/test_serialize-np4.mpi \
	test/test_serialize-np6.mpi test/test_serialize-np8.mpi

# test/comm_count.c counts live communicators (PMPI wrappers; -export-dynamic
# so that libdmesh's calls reach them): nothing may be left after a free.
check_PROGRAMS += test/test_sub_comm
test_test_sub_comm_SOURCES = test/test_sub_comm.c test/comm_count.c test/comm_count.h \
	$(MESH_TESTUTIL)
test_test_sub_comm_CPPFLAGS = $(DMESH_TEST_CPPFLAGS)
test_test_sub_comm_CFLAGS = $(DMESH_TEST_CFLAGS)
test_test_sub_comm_LDFLAGS = -export-dynamic
test_test_sub_comm_LDADD = $(DMESH_TEST_LIBS)
TESTS += test/test_sub_comm-np1.mpi test/test_sub_comm-np2.mpi test/test_sub_comm-np4.mpi \
	test/test_sub_comm-np6.mpi test/test_sub_comm-np8.mpi

# Fuzzing of the saved-mesh parser under ASan and UBSan (the fuzz stage of
# .ci/run; needs clang). Not in TESTS: it builds its own sanitized program.
EXTRA_DIST += test/fuzz-deserialize.sh test/fuzz_deserialize.c
CLEANFILES += test/fuzz_deserialize
.PHONY: fuzz-check
fuzz-check:
	$(DMESH_TEST_ENV) MPICC='$(MPICC)' \
	  $(SHELL) '$(abs_top_srcdir)/test/fuzz-deserialize.sh' $(FUZZ_ITERATIONS)

# The heat2d example (C, and Fortran when built) and the same solver on
# MPI_Cart_* (test/heat2d_cart), compared bit for bit at 2, 4 and 8 ranks
# by the script test/heat2d-compare.sh (test/mpirun.sh runs it with the rank
# count of the test's name).
HEAT2D_KERNEL = examples/heat2d_kernel.c examples/heat2d_kernel.h
check_PROGRAMS += examples/heat2d test/heat2d_cart
examples_heat2d_SOURCES = examples/heat2d.c $(HEAT2D_KERNEL)
examples_heat2d_LDADD = lib/libdmesh.la
test_heat2d_cart_SOURCES = test/heat2d_cart.c $(HEAT2D_KERNEL)
test_heat2d_cart_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/examples
dist_example_DATA += examples/heat2d.c $(HEAT2D_KERNEL)
TESTS += test/heat2d-compare-np2.mpi test/heat2d-compare-np4.mpi test/heat2d-compare-np8.mpi
EXTRA_DIST += test/heat2d-compare.sh
CLEANFILES += test/heat2d-np*.dmesh test/heat2d-np*.cart test/heat2d-np*.serial \
	test/heat2d-np*.fortran test/heat2d-np*.all.*

# Fortran: the routines of both modules (test_sim: use mpi + dmesh;
# test_sim_f08: use mpi_f08 + dmesh_f08) at 2 and 4 ranks, and heat2d in
# Fortran, compared with the C solvers by test/heat2d-compare.sh.
EXTRA_DIST += test/fortran/test_sim_body.inc
dist_example_DATA += examples/heat2d.f90
if DMESH_HAVE_FORTRAN
check_PROGRAMS += test/test_sim test/test_sim_f08 examples/heat2d_fortran
test_test_sim_SOURCES = test/fortran/test_sim.F90 test/fortran/test_sim_body.inc
test_test_sim_LDADD = lib/fortran/libdmesh_fortran.la lib/libdmesh.la
test_test_sim_f08_SOURCES = test/fortran/test_sim_f08.F90 test/fortran/test_sim_body.inc
test_test_sim_f08_LDADD = lib/fortran/libdmesh_fortran.la lib/libdmesh.la
examples_heat2d_fortran_SOURCES = examples/heat2d.f90 $(HEAT2D_KERNEL)
# Per-target flags give the object its own name: heat2d.c has the same stem.
examples_heat2d_fortran_FCFLAGS = $(AM_FCFLAGS)
examples_heat2d_fortran_LDADD = lib/fortran/libdmesh_fortran.la lib/libdmesh.la
$(test_test_sim_OBJECTS) $(test_test_sim_f08_OBJECTS): $(DMESH_FORTRAN_MODS) \
	test/fortran/test_sim_body.inc
$(examples_heat2d_fortran_OBJECTS): $(DMESH_FORTRAN_MODS)
TESTS += test/test_sim-np2.mpi test/test_sim-np4.mpi \
	test/test_sim_f08-np2.mpi test/test_sim_f08-np4.mpi
endif
# heat_respawn: the heat2d solver on a mesh that comes back whole (the
# survivors respawn the dead process; it restores its block from a buddy
# copy). test/heat-respawn.sh compares its final residual and field, bit for
# bit, with a run without a failure, under mpiexec --with-ft ulfm, for a
# kill in the first, a middle and the last rank, and in a spare.
check_PROGRAMS += examples/heat_respawn
examples_heat_respawn_SOURCES = examples/heat_respawn.c $(HEAT2D_KERNEL)
examples_heat_respawn_LDADD = lib/libdmesh.la
# no libtool wrapper: the new processes run the program itself (/proc/self/exe)
examples_heat_respawn_LDFLAGS = -no-install
dist_example_DATA += examples/heat_respawn.c
TESTS += test/heat-respawn-np4.mpi test/heat-respawn-np8.mpi
EXTRA_DIST += test/heat-respawn.sh
CLEANFILES += test/heat-respawn-np*.out
# test/heat-restart.sh: heat_respawn with its state on disk too
# (DMESH_EXAMPLE_CHECKPOINT), a kill that ends the job (a plain launch), and
# the same command again going on from the newest step every block has
TESTS += test/heat-restart-np2.mpi test/heat-restart-np4.mpi
EXTRA_DIST += test/heat-restart.sh
CLEANFILES += test/heat-restart-np*.out*
# particles: particles that migrate between the cells of a mesh (a count
# per process that changes every step), kept by dmesh_copies_add_sized;
# test/particles.sh checks that 1 process, NP, and NP with processes killed
# (under mpiexec --with-ft ulfm) give the same answer.
check_PROGRAMS += examples/particles
examples_particles_SOURCES = examples/particles.c
examples_particles_LDADD = lib/libdmesh.la -lm
examples_particles_LDFLAGS = -no-install
dist_example_DATA += examples/particles.c
TESTS += test/particles-np4.mpi test/particles-np8.mpi
EXTRA_DIST += test/particles.sh
CLEANFILES += test/particles-np*.out
