# SPDX-License-Identifier: BSD-3-Clause
# DMESH_BUILD_INFO: what dmesh_get_build_info reports and dmesh.pc records.
# Expanded after every dependency check. Defines DMESH_BUILD_* strings in
# config.h and substitutes MPI_VENDOR (from the MPI header CC compiles:
# "Open MPI", "MPICH" or "unknown") and MPI_VERSION_BUILT ("4.1").
AC_DEFUN([DMESH_BUILD_INFO], [
  AC_MSG_CHECKING([which MPI the headers of $CC belong to])
  dmesh_mpi_vendor=unknown
  DMESH_MPI_VERSION_BUILT=
  dnl the standard ABI: no implementation's header, whatever mpi.h defines
  AS_IF([test "$dmesh_mpi_abi" = yes], [dmesh_mpi_vendor="standard ABI" DMESH_MPI_VERSION_BUILT=5.0], [
  AC_COMPILE_IFELSE([AC_LANG_PROGRAM([[#include <mpi.h>
#ifndef OPEN_MPI
#error not Open MPI
#endif]], [])], [dmesh_mpi_vendor="Open MPI"
    AC_COMPUTE_INT([dmesh_ompi_major], [OMPI_MAJOR_VERSION], [[#include <mpi.h>]], [dmesh_ompi_major=0])
    AC_COMPUTE_INT([dmesh_ompi_minor], [OMPI_MINOR_VERSION], [[#include <mpi.h>]], [dmesh_ompi_minor=0])
    DMESH_MPI_VERSION_BUILT="$dmesh_ompi_major.$dmesh_ompi_minor"],
   [AC_COMPILE_IFELSE([AC_LANG_PROGRAM([[#include <mpi.h>
#ifndef MPICH_VERSION
#error not MPICH
#endif]], [])], [dmesh_mpi_vendor=MPICH
      AC_COMPUTE_INT([dmesh_mpich_num], [MPICH_NUMVERSION], [[#include <mpi.h>]], [dmesh_mpich_num=0])
      DMESH_MPI_VERSION_BUILT="`expr $dmesh_mpich_num / 10000000`.`expr $dmesh_mpich_num / 100000 % 100`"])])])
  AS_IF([test -z "$dmesh_mpi_summary"],
    [dmesh_mpi_summary="$dmesh_mpi_vendor${DMESH_MPI_VERSION_BUILT:+ $DMESH_MPI_VERSION_BUILT}"])
  AC_MSG_RESULT([$dmesh_mpi_vendor $DMESH_MPI_VERSION_BUILT])
  AC_SUBST([MPI_VENDOR], [$dmesh_mpi_vendor])
  AC_SUBST([DMESH_MPI_VERSION_BUILT])
  dnl The wrapper's full path, for dmeshConfig.cmake (FindMPI's MPI_C_COMPILER).
  dmesh_cc_word=`echo "$CC" | sed 's/ .*//'`
  DMESH_MPICC_PATH=`command -v "$dmesh_cc_word" 2>/dev/null || echo "$dmesh_cc_word"`
  AC_SUBST([DMESH_MPICC_PATH])
  dmesh_fc_word=`echo "$FC" | sed 's/ .*//'`
  DMESH_MPIFC_PATH=
  AS_IF([test "$dmesh_fortran_ok" = yes],
    [DMESH_MPIFC_PATH=`command -v "$dmesh_fc_word" 2>/dev/null || echo "$dmesh_fc_word"`])
  AC_SUBST([DMESH_MPIFC_PATH])
  dnl dmesh.pc and dmesh-nccl.pc (the CUDA/NCCL flags): each flag once. hwloc stays a plain -lhwloc (not
  dnl Requires.private: hwloc), since hwloc.pc's private libraries (-ludev)
  dnl are often not installed for linking.
  dmesh_uniq() { dmesh_u=; for dmesh_w in $[]*; do
    case " $dmesh_u " in *" $dmesh_w "*) ;; *) dmesh_u="$dmesh_u $dmesh_w" ;; esac; done
    echo $dmesh_u; }
  dmesh_pc_hwloc="$HWLOC_LDFLAGS $HWLOC_LIBS"
  DMESH_PC_CFLAGS=`dmesh_uniq $NCCL_CPPFLAGS $CUDA_CPPFLAGS`
  dnl No -lcudart / -lnccl: libdmesh loads them at run time (lib/gpu_lib.c).
  DMESH_PC_LIBS_PRIVATE=`dmesh_uniq $dmesh_pc_hwloc $DMESH_DL_LIBS`
  AC_SUBST([DMESH_PC_CFLAGS])
  dnl dmesh-nccl.pc: what a program that calls NCCL on dmesh's communicators links.
  DMESH_PC_NCCL_LIBS=`dmesh_uniq $NCCL_LDFLAGS $NCCL_LIBS $CUDA_LDFLAGS $CUDA_LIBS`
  AC_SUBST([DMESH_PC_NCCL_LIBS])
  AC_SUBST([DMESH_PC_LIBS_PRIVATE])
  AC_CHECK_SIZEOF([void *])
  AC_SUBST([DMESH_SIZEOF_VOID_P], [$ac_cv_sizeof_void_p])
  dnl C string literals: drop quotes and backslashes from what the user typed.
  dmesh_strip() { echo "$[]1" | sed "s/[['\"\\\\]]//g"; }
  AC_DEFINE_UNQUOTED([DMESH_BUILD_MPICC], ["`dmesh_strip "$CC"`"], [MPI C compiler of the build])
  AC_DEFINE_UNQUOTED([DMESH_BUILD_MPIEXEC], ["`dmesh_strip "$MPIEXEC"`"], [mpiexec make check uses])
  AC_DEFINE_UNQUOTED([DMESH_BUILD_CUDA], ["`dmesh_strip "$dmesh_cuda_summary"`"], [CUDA summary])
  AC_DEFINE_UNQUOTED([DMESH_BUILD_NCCL], ["`dmesh_strip "$dmesh_nccl_summary"`"], [NCCL summary])
  AC_DEFINE_UNQUOTED([DMESH_BUILD_HWLOC], ["`dmesh_strip "$dmesh_hwloc_summary"`"], [hwloc summary])
  AC_DEFINE_UNQUOTED([DMESH_BUILD_ULFM], ["`dmesh_strip "$dmesh_ulfm_summary"`"],
                     [fault tolerance (ULFM) summary])
  AC_DEFINE_UNQUOTED([DMESH_BUILD_FORTRAN], ["`dmesh_strip "$dmesh_fortran_summary"`"], [Fortran summary])
  AC_DEFINE_UNQUOTED([DMESH_BUILD_CONFIGURE_ARGS], ["`dmesh_strip "$ac_configure_args"`"],
                     [configure arguments of the build])
])
