# SPDX-License-Identifier: BSD-3-Clause
# test/failure.mk: failure semantics of the collective calls (included by
# Makefile.am). test_mesh_failure runs at 2, 4 and 8 ranks under
# test/mpirun.sh (timeout: a hang fails it); in a build configured with
# --enable-fault-injection it also injects a fault at every site, on one
# rank, on several and on all, into every collective call, and prints how
# many combinations it ran.
check_PROGRAMS += test/test_mesh_failure
test_test_mesh_failure_SOURCES = test/test_mesh_failure.c $(MESH_TESTUTIL)
test_test_mesh_failure_CPPFLAGS = $(DMESH_TEST_CPPFLAGS)
test_test_mesh_failure_CFLAGS = $(DMESH_TEST_CFLAGS)
test_test_mesh_failure_LDADD = $(DMESH_TEST_LIBS)

TESTS += test/test_mesh_failure-np2.mpi test/test_mesh_failure-np4.mpi \
	test/test_mesh_failure-np8.mpi test/mesh-env-np2.mpi
EXTRA_DIST += test/mesh-env.sh test/asan-mpi.supp test/no-dlclose.c

# Fault tolerance (ULFM): test/ft.sh runs test_ft plainly (it must find
# DMESH_ERR_UNSUPPORTED) and, in a build with ULFM, each case under
# mpiexec --with-ft ulfm, then the kill sweep when fault injection is on.
check_PROGRAMS += test/test_ft
# test/comm_count.c counts live communicators (PMPI wrappers; -export-dynamic
# so that libdmesh's calls reach them): every case must leave none behind.
test_test_ft_SOURCES = test/test_ft.c test/comm_count.c test/comm_count.h \
	test/mesh_compare.c test/mesh_compare.h
test_test_ft_CPPFLAGS = $(DMESH_TEST_CPPFLAGS)
test_test_ft_CFLAGS = $(DMESH_TEST_CFLAGS)
# -no-install: the processes a respawn starts run the program itself (/proc/self/exe)
test_test_ft_LDFLAGS = -export-dynamic -no-install
test_test_ft_LDADD = $(DMESH_TEST_LIBS)
if DMESH_HAVE_NCCL
# With NCCL, the NCCL and CUDA test doubles (libdmesh finds their functions
# in the program, which exports them): the sweep kills a process in the
# lazy and the eager creation of NCCL communicators on a "cuda" mesh, no
# GPU needed.
test_test_ft_SOURCES += test/nccl_double/nccl_double.c test/nccl_double/nccl_double.h \
	test/gpu/cuda_double.c test/gpu/cuda_double.h
test_test_ft_CPPFLAGS += $(NCCL_CPPFLAGS) $(CUDA_CPPFLAGS) -I$(top_srcdir)/test/nccl_double \
	-I$(top_srcdir)/test/gpu
endif
TESTS += test/ft-np4.mpi test/ft-np8.mpi
EXTRA_DIST += test/ft.sh
# dmesh_shrink's plan (which indices go, where the spares go): pure, every build.
check_PROGRAMS += test/test_ft_plan
test_test_ft_plan_SOURCES = test/test_ft_plan.c
test_test_ft_plan_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/lib
test_test_ft_plan_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
test_test_ft_plan_LDADD = lib/libdmesh_core.la $(CHECK_LIBS)
TESTS += test/test_ft_plan
# SIGPIPE under fault tolerance (lib/ulfm.h): caught, not ignored, so that
# the programs a process starts get it at its default; the program's own
# choice kept. No MPI: every build.
check_PROGRAMS += test/test_sigpipe
test_test_sigpipe_SOURCES = test/test_sigpipe.c
test_test_sigpipe_CPPFLAGS = $(AM_CPPFLAGS) -I$(top_srcdir)/lib
test_test_sigpipe_CFLAGS = $(AM_CFLAGS) $(CHECK_CFLAGS)
test_test_sigpipe_LDADD = lib/libdmesh_core.la $(CHECK_LIBS)
TESTS += test/test_sigpipe
# The Fortran bindings of fault tolerance (module dmesh_f08), run by
# test/ft.sh: DMESH_ERR_UNSUPPORTED plainly, a killed rank under ULFM.
if DMESH_HAVE_FORTRAN
check_PROGRAMS += test/test_ft_fortran
test_test_ft_fortran_SOURCES = test/test_ft_fortran.f90
test_test_ft_fortran_LDADD = lib/fortran/libdmesh_fortran.la lib/libdmesh.la
$(test_test_ft_fortran_OBJECTS): $(DMESH_FORTRAN_MODS)
endif
# The outputs test/ft.sh keeps beside its log, one per run.
CLEANFILES += test/ft-np*.plain test/ft-np*.fortran-plain test/ft-np*.fortran \
	test/ft-np*.between_calls test/ft-np*.in_allreduce test/ft-np*.revoke_releases \
	test/ft-np*.two_failures test/ft-np*.spares test/ft-np*.nccl_shrink test/ft-np*.shrink_by_name \
	test/ft-np*.resilient-* test/ft-np*.sweep
# Coming back whole (test/respawn.sh): dmesh_grow under any MPI that spawns,
# dmesh_respawn under mpiexec --with-ft ulfm, dmesh_join under a parent that
# is not dmesh's; the new processes run test_respawn too.
check_PROGRAMS += test/test_respawn
test_test_respawn_SOURCES = test/test_respawn.c test/mesh_compare.c test/mesh_compare.h
test_test_respawn_CPPFLAGS = $(DMESH_TEST_CPPFLAGS)
test_test_respawn_CFLAGS = $(DMESH_TEST_CFLAGS)
test_test_respawn_LDADD = $(DMESH_TEST_LIBS)
# no libtool wrapper: the new processes run the program itself (/proc/self/exe)
test_test_respawn_LDFLAGS = -no-install
# test_respawn_args: the new process starts as the launcher started its
# parents (their arguments byte for byte, their wrapper, test/respawn-wrap.sh),
# with their options and the program's error handlers.
check_PROGRAMS += test/test_respawn_args
test_test_respawn_args_SOURCES = test/test_respawn_args.c
test_test_respawn_args_CPPFLAGS = $(DMESH_TEST_CPPFLAGS)
test_test_respawn_args_CFLAGS = $(DMESH_TEST_CFLAGS)
test_test_respawn_args_LDADD = $(DMESH_TEST_LIBS)
test_test_respawn_args_LDFLAGS = -no-install
TESTS += test/respawn-np2.mpi test/respawn-np4.mpi test/respawn-np8.mpi
# test_respawn_program: the arguments of the program a respawn starts where
# the system gives no command line (MPI_INFO_ENV's "argv" as Open MPI 4, 5
# and MPICH fill it, a command line file that does not exist); one
# process, every build.
check_PROGRAMS += test/test_respawn_program
test_test_respawn_program_SOURCES = test/test_respawn_program.c
test_test_respawn_program_CPPFLAGS = $(DMESH_TEST_CPPFLAGS) -I$(top_srcdir)/lib
test_test_respawn_program_CFLAGS = $(DMESH_TEST_CFLAGS)
test_test_respawn_program_LDADD = lib/libdmesh_core.la $(CHECK_LIBS)
# no libtool wrapper: the cases take the program's own path (/proc/self/exe)
test_test_respawn_program_LDFLAGS = -no-install
TESTS += test/test_respawn_program-np1.mpi
EXTRA_DIST += test/respawn.sh test/respawn-wrap.sh
CLEANFILES += test/respawn-np*.out test/respawn-np*-again.* test/respawn-np*-growkill.*
