# SPDX-License-Identifier: BSD-3-Clause
# examples/local.mk: the examples, built and run by make check on 8 ranks
# (skipped above DMESH_TEST_MAX_NP by test/mpirun.sh) and on 2 ranks (so
# that MPICH builds run them too). Each example exits non-zero when its
# allreduce result is wrong. Their sources are also installed, with the
# launch scripts, under $(docdir)/examples. The runs are named
# PROGRAM-npN.mpi (test/mpirun.sh runs PROGRAM at N ranks).
DMESH_EXAMPLE_RUNS = \
	examples/hello_mesh-np8.mpi examples/hello_mesh-np2.mpi \
	examples/expert_parallel-np8.mpi examples/expert_parallel-np2.mpi \
	examples/flatten-np8.mpi examples/flatten-np2.mpi
DMESH_FORTRAN_EXAMPLE_RUNS = \
	examples/hello_mesh_fortran-np8.mpi examples/hello_mesh_fortran-np2.mpi \
	examples/hello_mesh_f08-np8.mpi examples/hello_mesh_f08-np2.mpi \
	examples/cart_port-np8.mpi examples/cart_port-np2.mpi

dist_example_DATA += examples/hello_mesh.c examples/expert_parallel.c examples/flatten.c \
	examples/hello_mesh.f90 examples/hello_mesh_f08.f90 examples/cart_port.f90
dist_example_SCRIPTS = examples/slurm.sbatch examples/slurm-respawn.sbatch examples/mpirun.sh

check_PROGRAMS += examples/hello_mesh examples/expert_parallel examples/flatten
# A (dp, tp) iteration that survives a lost process (fault tolerance, run
# with a killed rank by test/ft.sh under mpiexec --with-ft ulfm).
check_PROGRAMS += examples/resilient
examples_resilient_SOURCES = examples/resilient.c
examples_resilient_LDADD = lib/libdmesh.la
dist_example_DATA += examples/resilient.c
examples_hello_mesh_SOURCES = examples/hello_mesh.c
examples_hello_mesh_LDADD = lib/libdmesh.la
examples_expert_parallel_SOURCES = examples/expert_parallel.c
examples_expert_parallel_LDADD = lib/libdmesh.la
examples_flatten_SOURCES = examples/flatten.c
examples_flatten_LDADD = lib/libdmesh.la
TESTS += $(DMESH_EXAMPLE_RUNS)

if DMESH_HAVE_FORTRAN
check_PROGRAMS += examples/hello_mesh_fortran examples/hello_mesh_f08
# An MPI_Cart code and its dmesh form, checked against each other (the user
# guide's "Porting an MPI_Cart code").
check_PROGRAMS += examples/cart_port
examples_cart_port_SOURCES = examples/cart_port.f90
examples_cart_port_LDADD = lib/fortran/libdmesh_fortran.la lib/libdmesh.la
$(examples_cart_port_OBJECTS): $(DMESH_FORTRAN_MODS)
examples_hello_mesh_fortran_SOURCES = examples/hello_mesh.f90
# Per-target flags give the object its own name: hello_mesh.c has the same stem.
examples_hello_mesh_fortran_FCFLAGS = $(AM_FCFLAGS)
examples_hello_mesh_fortran_LDADD = lib/fortran/libdmesh_fortran.la lib/libdmesh.la
examples_hello_mesh_f08_SOURCES = examples/hello_mesh_f08.f90
examples_hello_mesh_f08_LDADD = lib/fortran/libdmesh_fortran.la lib/libdmesh.la
$(examples_hello_mesh_fortran_OBJECTS) $(examples_hello_mesh_f08_OBJECTS): $(DMESH_FORTRAN_MODS)
TESTS += $(DMESH_FORTRAN_EXAMPLE_RUNS)
endif

# The examples' Makefile (pkg-config) is installed as $(exampledir)/Makefile.
EXTRA_DIST += examples/Makefile.installed
install-data-local: install-examples-makefile
install-examples-makefile:
	$(MKDIR_P) '$(DESTDIR)$(exampledir)'
	$(INSTALL_DATA) $(srcdir)/examples/Makefile.installed '$(DESTDIR)$(exampledir)/Makefile'
uninstall-local: uninstall-examples-makefile
uninstall-examples-makefile:
	rm -f '$(DESTDIR)$(exampledir)/Makefile'
.PHONY: install-examples-makefile uninstall-examples-makefile
