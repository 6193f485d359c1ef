# SPDX-License-Identifier: BSD-3-Clause
# test/mesh.mk: rules of this part of the tree (included by Makefile.am).
#
# MPI tests of the mesh API (device type "cpu"). Each MPI run is a test
# named PROGRAM-npN.mpi, which test/mpirun.sh runs at N ranks (skips with 77
# above DMESH_TEST_MAX_NP).
#   test_mesh         facts from PyTorch's DeviceMesh tests and every operation
#   test_mesh_errors  error classes, agreement check, options
#   mesh-unknown.sh   test_mesh_errors with unknown DMESH_* variables set
#   test_mesh_valgrind  short program for `make valgrind-check` (and in TESTS):
#                     error paths, and freed, copied and never-made handles in
#                     every entry point
#   test_backend      the backend table with one more line: the "dup" backend
#                     of test/backend_dup.c, through every hook

check_PROGRAMS += test/test_mesh test/test_mesh_errors test/test_mesh_valgrind

test_test_mesh_SOURCES = test/test_mesh.c test/ft_launch.h $(MESH_TESTUTIL)
test_test_mesh_CPPFLAGS = $(DMESH_TEST_CPPFLAGS)
test_test_mesh_CFLAGS = $(DMESH_TEST_CFLAGS) -pthread
test_test_mesh_LDFLAGS = -pthread
test_test_mesh_LDADD = $(DMESH_TEST_LIBS)

test_test_mesh_errors_SOURCES = test/test_mesh_errors.c $(MESH_TESTUTIL)
test_test_mesh_errors_CPPFLAGS = $(DMESH_TEST_CPPFLAGS)
test_test_mesh_errors_CFLAGS = $(DMESH_TEST_CFLAGS)
test_test_mesh_errors_LDADD = $(DMESH_TEST_LIBS)

# -no-install: a real executable (not a libtool wrapper script), so that
# valgrind runs the program itself.
test_test_mesh_valgrind_SOURCES = test/test_mesh_valgrind.c
test_test_mesh_valgrind_CPPFLAGS = $(DMESH_TEST_CPPFLAGS)
test_test_mesh_valgrind_CFLAGS = $(AM_CFLAGS)
test_test_mesh_valgrind_LDFLAGS = -no-install
test_test_mesh_valgrind_LDADD = lib/libdmesh.la

# DMESH_DEBUG=1's report of the meshes never freed, at MPI_Finalize.
check_PROGRAMS += test/leak_report
test_leak_report_SOURCES = test/leak_report.c
test_leak_report_CPPFLAGS = $(DMESH_TEST_CPPFLAGS)
test_leak_report_CFLAGS = $(AM_CFLAGS)
test_leak_report_LDADD = lib/libdmesh.la
TESTS += test/leak-report-np1.mpi test/leak-report-np4.mpi
EXTRA_DIST += test/leak-report.sh

TESTS += test/test_mesh_valgrind-np1.mpi test/test_mesh_valgrind-np2.mpi

# Mesh handles under MPI_THREAD_MULTIPLE: threads reading and freeing
# copies of one handle while others make meshes (lib/handle.h).
check_PROGRAMS += test/test_handle_threads
test_test_handle_threads_SOURCES = test/test_handle_threads.c
test_test_handle_threads_CPPFLAGS = $(DMESH_TEST_CPPFLAGS)
test_test_handle_threads_CFLAGS = $(AM_CFLAGS) -pthread
test_test_handle_threads_LDADD = lib/libdmesh.la -lpthread
TESTS += test/test_handle_threads-np1.mpi

# Its own copy of lib/backend.c, whose table lists test/backend_dup.c's
# backend: the rest of the library comes from libdmesh_core unchanged.
check_PROGRAMS += test/test_backend
test_test_backend_SOURCES = test/test_backend.c test/backend_dup.c test/backend_dup.h \
	lib/backend.c $(MESH_TESTUTIL)
test_test_backend_CPPFLAGS = $(DMESH_TEST_CPPFLAGS) -DDMESH_BACKEND_EXTRA=dmesh_backend_dup
test_test_backend_CFLAGS = $(DMESH_TEST_CFLAGS)
test_test_backend_LDADD = lib/libdmesh_core.la $(CHECK_LIBS)
TESTS += test/test_backend-np1.mpi test/test_backend-np2.mpi test/test_backend-np4.mpi

TESTS += test/test_mesh-np1.mpi test/test_mesh-np2.mpi test/test_mesh-np4.mpi \
	test/test_mesh-np6.mpi test/test_mesh-np8.mpi \
	test/test_mesh_errors-np1.mpi test/test_mesh_errors-np2.mpi test/test_mesh_errors-np4.mpi \
	test/test_mesh_errors-np6.mpi test/test_mesh_errors-np8.mpi \
	test/mesh-unknown-np2.mpi test/mesh-unknown-np4.mpi
EXTRA_DIST += test/valgrind-leaks.sh test/mesh-unknown.sh

# Leak check of dmesh under valgrind at 2 ranks (called by .ci/run; not in
# TESTS). Fails only on lost blocks that dmesh allocated.
.PHONY: valgrind-check valgrind-check-fortran
valgrind-check: test/test_mesh_valgrind$(EXEEXT) valgrind-check-fortran
	$(DMESH_TEST_ENV) $(SHELL) '$(abs_top_srcdir)/test/valgrind-leaks.sh' \
	  ./test/test_mesh_valgrind$(EXEEXT) 2

# Creation calls on a communicator of the MPI-4 sessions model (no
# MPI_Init), and the release of the private duplicate when the program frees
# that communicator (test/sessions.sh). Skips where the MPI has no sessions.
check_PROGRAMS += test/test_sessions
test_test_sessions_SOURCES = test/test_sessions.c
test_test_sessions_CPPFLAGS = $(DMESH_TEST_CPPFLAGS)
test_test_sessions_CFLAGS = $(DMESH_TEST_CFLAGS)
test_test_sessions_LDADD = $(DMESH_TEST_LIBS)
TESTS += test/sessions-np1.mpi test/sessions-np2.mpi test/sessions-np4.mpi
EXTRA_DIST += test/sessions.sh

# Communicators handed to the program: the error handler of the mesh's
# communicator on each, and a borrowed handle that the program frees.
check_PROGRAMS += test/test_handout
test_test_handout_SOURCES = test/test_handout.c $(MESH_TESTUTIL)
test_test_handout_CPPFLAGS = $(DMESH_TEST_CPPFLAGS)
test_test_handout_CFLAGS = $(DMESH_TEST_CFLAGS)
test_test_handout_LDADD = $(DMESH_TEST_LIBS)
TESTS += test/test_handout-np1.mpi test/test_handout-np2.mpi test/test_handout-np4.mpi

# Errors raised on MPI error handlers: a program's handler on the right
# communicator, once per failing call (test_errors); the fatal default
# (the job ends with dmesh's detail on stderr), DMESH_ERRORS=return, calls
# before MPI_Init and after MPI_Finalize, Fortran without ierror and Fortran
# array sizes that differ between ranks (errors-fatal.sh, which runs
# errors_fatal and, with Fortran, errors_fatal_fortran and errors_fatal_f08).
check_PROGRAMS += test/test_errors test/errors_fatal
test_test_errors_SOURCES = test/test_errors.c $(MESH_TESTUTIL)
test_test_errors_CPPFLAGS = $(DMESH_TEST_CPPFLAGS)
test_test_errors_CFLAGS = $(DMESH_TEST_CFLAGS)
test_test_errors_LDADD = $(DMESH_TEST_LIBS)
test_errors_fatal_SOURCES = test/errors_fatal.c
test_errors_fatal_CPPFLAGS = $(DMESH_TEST_CPPFLAGS)
test_errors_fatal_CFLAGS = $(DMESH_TEST_CFLAGS)
test_errors_fatal_LDADD = lib/libdmesh.la
TESTS += test/test_errors-np1.mpi test/test_errors-np2.mpi test/test_errors-np4.mpi \
	test/errors-fatal-np1.mpi test/errors-fatal-np2.mpi test/errors-fatal-np4.mpi \
	test/errors-fatal-np8.mpi
EXTRA_DIST += test/errors-fatal.sh

# Dimensions by name: every _by_name call against its index form, unknown
# names, dimensions named like numbers in calls and options.
check_PROGRAMS += test/test_dim_names
test_test_dim_names_SOURCES = test/test_dim_names.c $(MESH_TESTUTIL)
test_test_dim_names_CPPFLAGS = $(DMESH_TEST_CPPFLAGS)
test_test_dim_names_CFLAGS = $(DMESH_TEST_CFLAGS)
test_test_dim_names_LDADD = $(DMESH_TEST_LIBS)
TESTS += test/test_dim_names-np1.mpi test/test_dim_names-np2.mpi test/test_dim_names-np4.mpi \
	test/test_dim_names-np6.mpi
