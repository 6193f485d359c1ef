# SPDX-License-Identifier: BSD-3-Clause
# test/layout.mk: unit and property tests of the layout algebra. Pure C, no
# MPI calls: runs without mpiexec. Linked against the convenience library so
# that the internal error helpers are reachable.
check_PROGRAMS += test/test_layout
test_test_layout_SOURCES = test/test_layout.c
test_test_layout_CPPFLAGS = $(DMESH_TEST_CPPFLAGS)
test_test_layout_CFLAGS = $(DMESH_TEST_CFLAGS)
test_test_layout_LDADD = lib/libdmesh_core.la $(CHECK_LIBS)
TESTS += test/test_layout
