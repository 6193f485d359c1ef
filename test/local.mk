# SPDX-License-Identifier: BSD-3-Clause
# test/local.mk: shared test infrastructure. Suites have their own fragments
# (layout.mk, mesh.mk, gpu.mk).
#
# MPI runs: the test DIR/PROGRAM-npN.mpi (a name, no file) runs ./DIR/PROGRAM
# at N ranks, or the script DIR/PROGRAM.sh with the argument N when there is
# one, through test/mpirun.sh --test, the log compiler of the extension .mpi
# (Makefile.am); above DMESH_TEST_MAX_NP ranks it skips (77). A new run is a
# TESTS += line in the suite's fragment.
#
# Shell tests (.sh) source test/check.sh, the one set of check helpers: a
# failed check is recorded and the test goes on (check_fail, check_expect),
# a missing prerequisite skips it (check_skip, check_need: 77), check_exit
# ends it with the outcome; check_pc reads the build tree's dmesh.pc.
EXTRA_DIST += test/mpirun.sh.in test/check.sh test/load-scale.sh test/repeat.sh
# check-programs.sh: the check programs a subset of the tests runs (CI's
# stages that run a subset build only those)
EXTRA_DIST += test/check-programs.sh
# tsan.sh: the threads tests under ThreadSanitizer (CI's stage tsan-threads);
# tsan-reports.py sorts its reports into dmesh's and the MPI's
EXTRA_DIST += test/tsan.sh test/tsan-reports.py
DMESH_TEST_CPPFLAGS = $(AM_CPPFLAGS)
DMESH_TEST_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
DMESH_TEST_LIBS = lib/libdmesh.la $(CHECK_LIBS)
# The checks and program frame of the MPI mesh suites (mesh.mk, failure.mk,
# sim.mk).
MESH_TESTUTIL = test/mesh_testutil.c test/mesh_testutil.h

# Public headers must compile as C++.
check_PROGRAMS += test/test_cxx_headers
test_test_cxx_headers_SOURCES = test/test_cxx_headers.cc
test_test_cxx_headers_LDADD = lib/libdmesh.la
TESTS += test/test_cxx_headers
test_test_cxx_headers_CPPFLAGS = $(AM_CPPFLAGS) -DOMPI_SKIP_MPICXX -DMPICH_SKIP_MPICXX
if DMESH_HAVE_NCCL
test_test_cxx_headers_CPPFLAGS += -DDMESH_TEST_NCCL_HEADER $(NCCL_CPPFLAGS) $(CUDA_CPPFLAGS)
endif

# make list-tests-above-4: the MPI tests of more than 4 ranks, one a line
# (test/trixie/inside.sh runs them at 8 under mpiexec --with-ft ulfm after
# the whole suite at 4).
list-tests-above-4:
	@for t in $(TESTS); do case $$t in *-np[5-9].mpi | *-np[1-9][0-9].mpi) echo $$t ;; esac; done
.PHONY: list-tests-above-4
