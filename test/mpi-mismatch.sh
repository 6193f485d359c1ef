#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# make check: a program built with the other MPI (MPICH for an Open MPI
# build of dmesh, and the reverse) linked against this libdmesh gets
# DMESH_ERR_MPI "built with X, running under Y" from dmesh_init (see
# test/mpi_mismatch.c), and the detail on stderr, since no handler of an
# MPI dmesh cannot read is called. Skipped (77) when the other MPI's wrapper or a
# shared libdmesh is missing.
. "$top_srcdir/test/check.sh"
vendor=$(check_pc mpi_vendor)
case $vendor in
"Open MPI") other=mpicc.mpich ;;
MPICH) other=mpicc.openmpi ;;
*) check_skip "MPI vendor '$vendor'" ;;
esac
check_need "$other"
libs=$top_builddir/lib/.libs
[ -f "$libs/libdmesh.so" ] || check_skip "no shared libdmesh"
prog=test/mpi_mismatch
"$other" -I"$top_srcdir/include" -I"$top_builddir/include" "$top_srcdir/test/mpi_mismatch.c" \
    -o "$prog" -L"$libs" -ldmesh -Wl,-rpath,"$libs" || exit 1
OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM
timeout -k 10 "$(sh "$top_srcdir/test/load-scale.sh" 60)" "./$prog" 2>"$prog.err"
rc=$?
cat "$prog.err"
# no handler can be trusted: the detail goes to stderr all the same
grep -q '^dmesh: dmesh_init failed (process [0-9]*, not raised: the MPI running is not the one dmesh was built for): dmesh_init: built with ' "$prog.err" ||
    check_fail "no detail on stderr"
rm -f "$prog" "$prog.err"
[ "$rc" -eq 0 ] || check_fail "exit $rc"
check_exit
