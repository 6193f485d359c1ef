# SPDX-License-Identifier: BSD-3-Clause
# test/fortran.mk: the Fortran modules under mpiexec. test_fortran uses
# `use mpi` + `use dmesh`, test_fortran_f08 `use mpi_f08` + `use dmesh_f08`
# (and hands a mesh to a routine that uses the other module). Each runs on 4
# ranks, and on 2 so that MPICH builds (DMESH_TEST_MAX_NP=2) run them too.
# Both programs include test_fortran_body.inc (the checks, written once)
# through the C preprocessor.
if DMESH_HAVE_FORTRAN
check_PROGRAMS += test/test_fortran test/test_fortran_f08
test_test_fortran_SOURCES = test/fortran/test_fortran.F90 test/fortran/test_fortran_body.inc
test_test_fortran_LDADD = lib/fortran/libdmesh_fortran.la lib/libdmesh.la
test_test_fortran_f08_SOURCES = test/fortran/test_fortran_f08.F90 \
	test/fortran/test_fortran_body.inc
test_test_fortran_f08_LDADD = lib/fortran/libdmesh_fortran.la lib/libdmesh.la
$(test_test_fortran_OBJECTS) $(test_test_fortran_f08_OBJECTS): $(DMESH_FORTRAN_MODS) \
	test/fortran/test_fortran_body.inc

TESTS += test/test_fortran-np4.mpi test/test_fortran-np2.mpi \
	test/test_fortran_f08-np4.mpi test/test_fortran_f08-np2.mpi

# Errors without ierror (the handler decides) and array sizes that differ
# between ranks, both modules: run by test/errors-fatal.sh (mesh.mk).
check_PROGRAMS += test/errors_fatal_fortran test/errors_fatal_f08
test_errors_fatal_fortran_SOURCES = test/fortran/errors_fatal.F90 test/fortran/errors_fatal_body.inc
test_errors_fatal_fortran_LDADD = lib/fortran/libdmesh_fortran.la lib/libdmesh.la
test_errors_fatal_f08_SOURCES = test/fortran/errors_fatal_f08.F90 \
	test/fortran/errors_fatal_body.inc
test_errors_fatal_f08_LDADD = lib/fortran/libdmesh_fortran.la lib/libdmesh.la
$(test_errors_fatal_fortran_OBJECTS) $(test_errors_fatal_f08_OBJECTS): $(DMESH_FORTRAN_MODS) \
	test/fortran/errors_fatal_body.inc
# dmesh_grow, dmesh_join (and dmesh_respawn's refusal without fault
# tolerance) through both modules; the new process runs the program itself.
check_PROGRAMS += test/test_grow_fortran test/test_grow_f08
test_test_grow_fortran_SOURCES = test/fortran/test_grow.F90 test/fortran/test_grow_body.inc
test_test_grow_fortran_LDADD = lib/fortran/libdmesh_fortran.la lib/libdmesh.la
test_test_grow_fortran_LDFLAGS = -no-install
test_test_grow_f08_SOURCES = test/fortran/test_grow_f08.F90 test/fortran/test_grow_body.inc
test_test_grow_f08_LDADD = lib/fortran/libdmesh_fortran.la lib/libdmesh.la
test_test_grow_f08_LDFLAGS = -no-install
$(test_test_grow_fortran_OBJECTS) $(test_test_grow_f08_OBJECTS): $(DMESH_FORTRAN_MODS) \
	test/fortran/test_grow_body.inc
TESTS += test/test_grow_fortran-np2.mpi test/test_grow_f08-np2.mpi
# Dimensions by index or by name: the generic interfaces of both modules.
check_PROGRAMS += test/test_names_fortran test/test_names_f08
test_test_names_fortran_SOURCES = test/fortran/test_names.F90 test/fortran/test_names_body.inc
test_test_names_fortran_LDADD = lib/fortran/libdmesh_fortran.la lib/libdmesh.la
test_test_names_f08_SOURCES = test/fortran/test_names_f08.F90 test/fortran/test_names_body.inc
test_test_names_f08_LDADD = lib/fortran/libdmesh_fortran.la lib/libdmesh.la
$(test_test_names_fortran_OBJECTS) $(test_test_names_f08_OBJECTS): $(DMESH_FORTRAN_MODS) \
	test/fortran/test_names_body.inc
TESTS += test/test_names_fortran-np2.mpi test/test_names_fortran-np4.mpi \
	test/test_names_f08-np2.mpi test/test_names_f08-np4.mpi
# dmesh_start, dmesh_agree_step and dmesh_repair without fault tolerance,
# both modules (test/fortran/test_start_body.inc).
check_PROGRAMS += test/test_start_fortran test/test_start_f08
test_test_start_fortran_SOURCES = test/fortran/test_start.F90 test/fortran/test_start_body.inc
test_test_start_fortran_LDADD = lib/fortran/libdmesh_fortran.la lib/libdmesh.la
test_test_start_f08_SOURCES = test/fortran/test_start_f08.F90 test/fortran/test_start_body.inc
test_test_start_f08_LDADD = lib/fortran/libdmesh_fortran.la lib/libdmesh.la
$(test_test_start_fortran_OBJECTS) $(test_test_start_f08_OBJECTS): $(DMESH_FORTRAN_MODS) \
	test/fortran/test_start_body.inc
TESTS += test/test_start_fortran-np2.mpi test/test_start_f08-np2.mpi

endif

# The Fortran program under the leak check of make valgrind-check too (a
# real executable, as test_mesh_valgrind).
if DMESH_HAVE_FORTRAN
test_test_fortran_LDFLAGS = -no-install
VALGRIND_FORTRAN = test/test_fortran$(EXEEXT)
endif
valgrind-check-fortran: $(VALGRIND_FORTRAN)
	$(DMESH_TEST_ENV) for p in $(VALGRIND_FORTRAN); do \
	  $(SHELL) '$(abs_top_srcdir)/test/valgrind-leaks.sh' ./$$p 2 || exit 1; done
