# SPDX-License-Identifier: BSD-3-Clause
# test/copies.mk: copies in memory (included by Makefile.am).
#   test_copies_plan  the pure parts: partners, XOR sets and parity, the
#                     version a restore gives back (every build)
#   test_copies       store and restore without failures at 1, 2, 4 and 8
#                     ranks: data round trips, versions, DMESH_COPIES_NONE,
#                     agreed mismatches, partners against coordinates and
#                     nodes, an XOR rebuild of a member whose copies go
#   copies-npN        (test/copies.sh) the same program under mpiexec
#                     --with-ft ulfm: a process killed, dmesh_respawn, the
#                     state back bit for bit; a second kill right after the
#                     restore; a process and its partner killed together:
#                     DMESH_ERR_DATA_LOST everywhere
check_PROGRAMS += test/test_copies_plan
test_test_copies_plan_SOURCES = test/test_copies_plan.c
test_test_copies_plan_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/lib
test_test_copies_plan_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
test_test_copies_plan_LDADD = lib/libdmesh_core.la $(CHECK_LIBS)
TESTS += test/test_copies_plan
# test_copies_model: seeded sequences of stores, losses (replacements in
# other domains), shrinks, grows and restores through the plan code,
# against a reference model of which states survive (every build)
check_PROGRAMS += test/test_copies_model
test_test_copies_model_SOURCES = test/test_copies_model.c
test_test_copies_model_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/lib
test_test_copies_model_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
test_test_copies_model_LDADD = lib/libdmesh_core.la $(CHECK_LIBS)
TESTS += test/test_copies_model
check_PROGRAMS += test/test_copies
test_test_copies_SOURCES = test/test_copies.c
test_test_copies_CPPFLAGS = $(DMESH_TEST_CPPFLAGS)
test_test_copies_CFLAGS = $(DMESH_TEST_CFLAGS)
test_test_copies_LDADD = $(DMESH_TEST_LIBS)
# no libtool wrapper: the new processes run the program itself (/proc/self/exe)
test_test_copies_LDFLAGS = -no-install
TESTS += test/copies-np1.mpi test/copies-np2.mpi test/copies-np4.mpi test/copies-np8.mpi
EXTRA_DIST += test/copies.sh
# Copies under MPI_THREAD_MULTIPLE: threads storing on meshes of their own
# at once, handles looked up while they are freed.
check_PROGRAMS += test/test_copies_threads
test_test_copies_threads_SOURCES = test/test_copies_threads.c test/ft_launch.h
test_test_copies_threads_CPPFLAGS = $(DMESH_TEST_CPPFLAGS)
test_test_copies_threads_CFLAGS = $(AM_CFLAGS) -pthread
test_test_copies_threads_LDADD = lib/libdmesh.la -lpthread
TESTS += test/test_copies_threads-np2.mpi test/test_copies_threads-np4.mpi
CLEANFILES += test/copies-np*.out
# test_copies_chunk (test/copies-chunk.sh): test_copies plain with the
# transfers in messages and reductions of 4 KiB (lib/copies_move.c built
# into the program with DMESH_COPIES_XFER_CHUNK=4096, in place of the
# library's): copies of many messages and rounds of them, XOR parity and
# rebuilds in many slices, both schemes, at 2 and 4 ranks.
check_PROGRAMS += test/test_copies_chunk
test_test_copies_chunk_SOURCES = test/test_copies.c lib/copies_move.c
test_test_copies_chunk_CPPFLAGS = $(DMESH_TEST_CPPFLAGS) $(NCCL_CPPFLAGS) $(CUDA_CPPFLAGS) \
	-I$(top_srcdir)/lib -DDMESH_COPIES_XFER_CHUNK=4096
test_test_copies_chunk_CFLAGS = $(DMESH_TEST_CFLAGS)
test_test_copies_chunk_LDADD = lib/libdmesh_core.la $(CHECK_LIBS)
test_test_copies_chunk_LDFLAGS = -no-install
TESTS += test/copies-chunk-np2.mpi test/copies-chunk-np4.mpi
EXTRA_DIST += test/copies-chunk.sh
# The Fortran bindings, both modules (test/fortran/test_copies_body.inc).
if DMESH_HAVE_FORTRAN
check_PROGRAMS += test/test_copies_fortran test/test_copies_f08
test_test_copies_fortran_SOURCES = test/fortran/test_copies.F90 test/fortran/test_copies_body.inc
test_test_copies_fortran_LDADD = lib/fortran/libdmesh_fortran.la lib/libdmesh.la
test_test_copies_f08_SOURCES = test/fortran/test_copies_f08.F90 test/fortran/test_copies_body.inc
test_test_copies_f08_LDADD = lib/fortran/libdmesh_fortran.la lib/libdmesh.la
$(test_test_copies_fortran_OBJECTS) $(test_test_copies_f08_OBJECTS): $(DMESH_FORTRAN_MODS) \
	test/fortran/test_copies_body.inc
TESTS += test/test_copies_fortran-np2.mpi test/test_copies_f08-np2.mpi
endif
# test_copies_seq (test/copies-seq.sh): copies against a model, through the
# real calls without fault tolerance: sequences of stores, losses (a whole
# domain, the holder of a copy, replacements in another domain), shrinks,
# grows, restores and opens that fail, made from seeds, each on a new mesh,
# both schemes; then fixed sequences that once failed.
check_PROGRAMS += test/test_copies_seq
test_test_copies_seq_SOURCES = test/test_copies_seq.c
test_test_copies_seq_CPPFLAGS = $(DMESH_TEST_CPPFLAGS)
test_test_copies_seq_CFLAGS = $(DMESH_TEST_CFLAGS)
test_test_copies_seq_LDADD = $(DMESH_TEST_LIBS)
TESTS += test/copies-seq-np4.mpi test/copies-seq-np8.mpi
EXTRA_DIST += test/copies-seq.sh
