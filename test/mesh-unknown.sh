#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# mesh-unknown.sh NP: test_mesh_errors's "unknown_env" case at NP ranks with
# an unknown variable DMESH_BOGUS set before the processes start (the library
# reads its variables once per process), first with DMESH_DEBUG=1, which must
# list the variable once per process and the unknown info key dmesh_foo, then
# with DMESH_STRICT=true, which makes both errors (make check runs it as
# test/mesh-unknown-npN.mpi, from the build directory).
np=${1:-2}
log=$(mktemp) || exit 99
trap 'rm -f "$log"' EXIT
DMESH_BOGUS=1
CK_RUN_CASE=unknown_env
export DMESH_BOGUS CK_RUN_CASE
DMESH_DEBUG=1 "$MPIRUN" "$np" ./test/test_mesh_errors 2>"$log"
rc=$?
cat "$log"
case $rc in 0) ;; 77) exit 77 ;; *) exit "$rc" ;; esac
n=$(grep -c '^dmesh: unknown environment variable DMESH_BOGUS$' "$log")
if [ "$n" -ne "$np" ]; then
    echo "mesh-unknown.sh: DMESH_BOGUS listed $n times, expected once per process ($np)" >&2
    exit 1
fi
if ! grep -q '^dmesh: unknown info key dmesh_foo$' "$log"; then
    echo "mesh-unknown.sh: the unknown info key dmesh_foo was not listed" >&2
    exit 1
fi
if grep 'unknown' "$log" | grep -q 'DMESH_DEBUG\|DMESH_STRICT\|dmesh_strict'; then
    echo "mesh-unknown.sh: a known name was listed as unknown" >&2
    exit 1
fi
DMESH_STRICT=true exec "$MPIRUN" "$np" ./test/test_mesh_errors
