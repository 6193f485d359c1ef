# SPDX-License-Identifier: BSD-3-Clause
# packaging/local.mk: the licence and release files, and the packaging for
# other build systems: the CMake package (lib/cmake/dmesh). The Spack recipe
# (packaging/spack) stays out of the tarball, see below.
dist_doc_DATA += LICENSE NEWS CONTRIBUTING.md

# dmeshConfig.cmake and dmeshConfigVersion.cmake carry the installation
# directories, so they are made at make time (make prefix=... works).
cmakedir = $(libdir)/cmake/dmesh
nodist_cmake_DATA = packaging/cmake/dmeshConfig.cmake packaging/cmake/dmeshConfigVersion.cmake
EXTRA_DIST += packaging/cmake/dmeshConfig.cmake.in packaging/cmake/dmeshConfigVersion.cmake.in
CLEANFILES += $(nodist_cmake_DATA)
if DMESH_HAVE_FORTRAN
DMESH_CMAKE_FORTRAN = TRUE
else
DMESH_CMAKE_FORTRAN = FALSE
endif
if DMESH_HAVE_NCCL
DMESH_CMAKE_NCCL = TRUE
else
DMESH_CMAKE_NCCL = FALSE
endif
if DMESH_MPI_ABI
DMESH_CMAKE_MPI_ABI = TRUE
else
DMESH_CMAKE_MPI_ABI = FALSE
endif
dmesh_cmake_subst = sed \
	-e 's|@DMESH_CMAKE_MPI_ABI[@]|$(DMESH_CMAKE_MPI_ABI)|g' \
	-e 's|@DMESH_PC_MPI_CFLAGS[@]|$(DMESH_PC_MPI_CFLAGS)|g' \
	-e 's|@DMESH_PC_MPI_LIBS[@]|$(DMESH_PC_MPI_LIBS)|g' \
	-e 's|@PACKAGE_VERSION[@]|$(PACKAGE_VERSION)|g' \
	-e 's|@DMESH_VERSION_MAJOR[@]|$(DMESH_VERSION_MAJOR)|g' \
	-e 's|@DMESH_VERSION_MINOR[@]|$(DMESH_VERSION_MINOR)|g' \
	-e 's|@DMESH_SIZEOF_VOID_P[@]|$(DMESH_SIZEOF_VOID_P)|g' \
	-e 's|@MPI_VENDOR[@]|$(MPI_VENDOR)|g' \
	-e 's|@DMESH_MPICC_PATH[@]|$(DMESH_MPICC_PATH)|g' \
	-e 's|@DMESH_MPIFC_PATH[@]|$(DMESH_MPIFC_PATH)|g' \
	-e 's|@DMESH_CMAKE_FORTRAN[@]|$(DMESH_CMAKE_FORTRAN)|g' \
	-e 's|@DMESH_CMAKE_NCCL[@]|$(DMESH_CMAKE_NCCL)|g' \
	-e 's|@DMESH_GPU_CPPFLAGS[@]|$(DMESH_PC_CFLAGS)|g' \
	-e 's|@DMESH_LIBS_PRIVATE[@]|$(DMESH_PC_LIBS_PRIVATE)|g' \
	-e 's|@DMESH_PC_NCCL_LIBS[@]|$(DMESH_PC_NCCL_LIBS)|g' \
	-e 's|@libdir[@]|$(libdir)|g' \
	-e 's|@includedir[@]|$(includedir)|g'
packaging/cmake/dmeshConfig.cmake: $(srcdir)/packaging/cmake/dmeshConfig.cmake.in Makefile
	$(AM_V_GEN)$(MKDIR_P) packaging/cmake && $(dmesh_cmake_subst) $(srcdir)/packaging/cmake/dmeshConfig.cmake.in > $@
packaging/cmake/dmeshConfigVersion.cmake: $(srcdir)/packaging/cmake/dmeshConfigVersion.cmake.in Makefile
	$(AM_V_GEN)$(MKDIR_P) packaging/cmake && $(dmesh_cmake_subst) $(srcdir)/packaging/cmake/dmeshConfigVersion.cmake.in > $@
EXTRA_DIST += test/cmake-consumer/CMakeLists.txt test/cmake-consumer/consumer.c \
	test/cmake-consumer/consumer_nccl.c \
	test/cmake-consumer/consumer_f08.f90 test/cmake-consumer/run.sh \
	test/cmake-consumer/fortran-only/CMakeLists.txt \
	test/cmake-consumer/fortran-only/consumer_mpi.f90
# The Spack recipe (packaging/spack) is not in the dist tarball: it carries
# the sha256 of that tarball (packaging/spack/release-line.sh), which a
# tarball cannot hold of itself. Sites take it from the git repository.
