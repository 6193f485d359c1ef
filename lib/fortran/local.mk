# SPDX-License-Identifier: BSD-3-Clause
# lib/fortran/local.mk: the Fortran modules dmesh (use mpi) and dmesh_f08
# (use mpi_f08), with their common module dmesh_base, in libdmesh_fortran.la
# (which links libdmesh.la). Built when configure finds an MPI Fortran
# compiler with mpi_f08 (FC is the MPI wrapper).
#
# Module files: the three modules live in one source file, so that no rule
# has to order the modules among themselves. dmesh.F90 goes through the C
# preprocessor: it includes dmesh_handles.inc (the body of both modules,
# written once) into dmesh and dmesh_f08. The compiler writes
# the .mod files into the current directory, the top build directory (VPATH
# builds included); programs that use the modules find them through
# AM_FCFLAGS and must depend on $(DMESH_FORTRAN_MODS) (see test/fortran.mk
# and examples/local.mk). They are installed into $(fmoddir), the directory
# that pkg-config reports (dmesh.pc: fflags; dmesh-fortran.pc: Cflags).

DMESH_FORTRAN_MODS = dmesh.mod dmesh_f08.mod dmesh_base.mod
AM_FCFLAGS = -I$(top_builddir)

if DMESH_HAVE_FORTRAN
lib_LTLIBRARIES += lib/fortran/libdmesh_fortran.la
lib_fortran_libdmesh_fortran_la_SOURCES = lib/fortran/dmesh.F90 lib/fortran/dmesh_handles.inc \
	lib/fortran/dmesh_f.c
lib_fortran_libdmesh_fortran_la_LIBADD = lib/libdmesh.la
lib_fortran_libdmesh_fortran_la_LDFLAGS = -version-info $(DMESH_LT_VERSION)
# Linked with libtool's Fortran tag, the MPI Fortran wrapper as the driver
# (configure scrubs the tag's library list: autotools/dmesh_fortran.m4).

fmoddir = $(libdir)/dmesh/fortran
nodist_fmod_DATA = $(DMESH_FORTRAN_MODS)
pkgconfig_DATA += dmesh-fortran.pc
CLEANFILES += $(DMESH_FORTRAN_MODS)

# Automake tracks no dependencies of Fortran sources: name the include.
lib/fortran/dmesh.lo: lib/fortran/dmesh_handles.inc

# The module files come out of compiling dmesh.F90; if one was deleted,
# compile it again.
$(DMESH_FORTRAN_MODS): lib/fortran/dmesh.lo
	@test -f $@ || { rm -f lib/fortran/dmesh.lo; \
	  $(MAKE) $(AM_MAKEFLAGS) lib/fortran/dmesh.lo; }
endif

# Simulation-code routines: the module dmesh_sim_base, included
# into dmesh.F90 and used by dmesh and dmesh_f08.
DMESH_FORTRAN_MODS += dmesh_sim_base.mod
if DMESH_HAVE_FORTRAN
lib_fortran_libdmesh_fortran_la_SOURCES += lib/fortran/dmesh_sim.inc lib/fortran/dmesh_sim_f.c
lib/fortran/dmesh.lo: lib/fortran/dmesh_sim.inc
endif

# Version and build routines: the module dmesh_version_base,
# included into dmesh.F90 and used by dmesh and dmesh_f08.
DMESH_FORTRAN_MODS += dmesh_version_base.mod
if DMESH_HAVE_FORTRAN
lib_fortran_libdmesh_fortran_la_SOURCES += lib/fortran/dmesh_version.inc
lib/fortran/dmesh.lo: lib/fortran/dmesh_version.inc
endif

# Copies in memory: the module dmesh_copies_base, included into dmesh.F90
# and used by dmesh and dmesh_f08 (dmesh_copies_open is in dmesh_handles.inc).
DMESH_FORTRAN_MODS += dmesh_copies_base.mod
if DMESH_HAVE_FORTRAN
lib_fortran_libdmesh_fortran_la_SOURCES += lib/fortran/dmesh_copies.inc lib/fortran/dmesh_copies_f.c
lib/fortran/dmesh.lo: lib/fortran/dmesh_copies.inc
endif
