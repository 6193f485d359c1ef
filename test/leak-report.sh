#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# leak-report.sh NP: under DMESH_DEBUG=1, MPI_Finalize reports the meshes
# a program never freed, once (on the universe's rank 0), with their count
# and the call that made each (test/leak_report.c); a program that freed
# everything gets no report.
. "$top_srcdir/test/check.sh"
np=${1:-1}
DMESH_DEBUG=1
export DMESH_DEBUG

out=$("$MPIRUN" "$np" ./test/leak_report keep 2>&1)
rc=$?
printf '%s\n' "$out" | sed 's/^/keep: /'
[ "$rc" -ne 77 ] || check_skip "the launcher skipped"
[ "$rc" -eq 0 ] || check_fail "keep: exit $rc (want 0)"
n=$(printf '%s\n' "$out" | grep -c 'at MPI_Finalize, 2 meshes never freed')
[ "$n" -eq 1 ] || check_fail "keep: $n reports of 2 meshes never freed (want 1)"
n=$(printf '%s\n' "$out" | grep -c 'made by dmesh_init: DeviceMesh(cpu, (a=1, b=')
[ "$n" -eq 1 ] || check_fail "keep: $n lines for the root made by dmesh_init (want 1)"
n=$(printf '%s\n' "$out" | grep -c 'made by dmesh_slice: DeviceMesh(cpu, (b=')
[ "$n" -eq 1 ] || check_fail "keep: $n lines for the slice made by dmesh_slice (want 1)"
! printf '%s\n' "$out" | grep -q 'made by dmesh_flatten' || check_fail "keep: the freed mesh reported"

out=$("$MPIRUN" "$np" ./test/leak_report free 2>&1)
rc=$?
printf '%s\n' "$out" | sed 's/^/free: /'
[ "$rc" -eq 0 ] || check_fail "free: exit $rc (want 0)"
! printf '%s\n' "$out" | grep -q 'never freed' || check_fail "free: a report although all was freed"
check_exit
