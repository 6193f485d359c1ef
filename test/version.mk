# SPDX-License-Identifier: BSD-3-Clause
# test/version.mk: version and build reporting, the MPI identity check, and
# the pkg-config files and tool options (dmesh-info under mpiexec too).
check_PROGRAMS += test/test_version
test_test_version_SOURCES = test/test_version.c
test_test_version_CPPFLAGS = $(DMESH_TEST_CPPFLAGS)
test_test_version_CFLAGS = $(DMESH_TEST_CFLAGS)
test_test_version_LDADD = lib/libdmesh_core.la $(CHECK_LIBS)
TESTS += test/test_version
TESTS += test/tools-args.sh
EXTRA_DIST += test/tools-args.sh
# dmesh-info under mpiexec at several rank counts: the default shape fits,
# messages once, exit without MPI_Abort, DMESH_DEBUG names ranks left out.
TESTS += test/info-ranks-np1.mpi test/info-ranks-np2.mpi test/info-ranks-np6.mpi
EXTRA_DIST += test/info-ranks.sh
# A program of the other MPI against this libdmesh: DMESH_ERR_MPI, no crash.
TESTS += test/mpi-mismatch.sh
EXTRA_DIST += test/mpi-mismatch.sh test/mpi_mismatch.c
# dmesh_layout.h is MPI-free: it compiles with a plain C compiler.
TESTS += test/layout-plain-cc.sh
EXTRA_DIST += test/layout-plain-cc.sh
# dmesh.pc: no repeated flags; pkg-config --static links libdmesh.a.
TESTS += test/pkgconfig.sh
EXTRA_DIST += test/pkgconfig.sh
# The compile lines of README.md, the user guide and dmesh(7), as printed,
# against an installed prefix outside the default library path: needs an
# installation, so not in TESTS (.ci/run's cmake-consumer stage runs it;
# by hand: test/readme-lines.sh PREFIX mpiexec).
EXTRA_DIST += test/readme-lines.sh
# A man3 page for every exported function; dmesh(7) lists them.
TESTS += test/man-pages.sh
EXTRA_DIST += test/man-pages.sh
if DMESH_HAVE_FORTRAN
# The Fortran version routines (both modules); runs without mpiexec.
check_PROGRAMS += test/test_fortran_version
test_test_fortran_version_SOURCES = test/fortran/test_version.F90
test_test_fortran_version_FCFLAGS = $(AM_FCFLAGS) -DDMESH_EXPECTED='"dmesh $(PACKAGE_VERSION)"'
test_test_fortran_version_LDADD = lib/fortran/libdmesh_fortran.la lib/libdmesh.la
$(test_test_fortran_version_OBJECTS): $(DMESH_FORTRAN_MODS)
TESTS += test/test_fortran_version
endif
# SPDX-License-Identifier lines in every source file.
TESTS += test/spdx.sh
EXTRA_DIST += test/spdx.sh tools/check-spdx.sh
