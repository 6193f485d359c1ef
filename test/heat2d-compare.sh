#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# heat2d-compare.sh NP: run the heat2d solver on dmesh (examples/heat2d, and
# examples/heat2d_fortran when built) and the same solver on MPI_Cart_*
# (test/heat2d_cart) at NP ranks, and the latter on 1 rank; all outputs
# (residuals as hexadecimal floats, FNV-1a hash of the field's bytes) must be
# the same text, bit for bit. make check runs it from the build directory
# as the tests test/heat2d-compare-npN.mpi (test/mpirun.sh --test). Exit 77 (skip) when NP is above DMESH_TEST_MAX_NP.
np=$1
out=test/heat2d-np$np
# run NAME NP PROGRAM: the program's own lines of its output (a launcher
# may add its own: Open MPI 5 under --with-ft ulfm warns of components not
# tested under failures)
run() {
    "$MPIRUN" "$2" "$3" >"$out.all.$1" || return $?
    # (its banner can end without a newline, before the program's line)
    grep -a -o -E '(heat2d: [0-9]+ x |iteration [0-9]+: |field: FNV-1a ).*$' "$out.all.$1" >"$out.$1"
    grep -q '^field: FNV-1a' "$out.$1" || { echo "heat2d-compare: no field line from $3"; cat "$out.all.$1"; return 1; }
}
run dmesh "$np" ./examples/heat2d
rc=$?
[ $rc -eq 0 ] || exit $rc
run cart "$np" ./test/heat2d_cart || exit 1
run serial 1 ./test/heat2d_cart || exit 1
set -- cart serial
if [ -x ./examples/heat2d_fortran ]; then
    run fortran "$np" ./examples/heat2d_fortran || exit 1
    set -- "$@" fortran
fi
cat "$out.dmesh"
for other in "$@"; do
    if ! cmp -s "$out.dmesh" "$out.$other"; then
        echo "heat2d-compare: $np ranks: dmesh and $other differ"
        diff "$out.dmesh" "$out.$other"
        exit 1
    fi
    echo "heat2d-compare: $np ranks: dmesh = $other, bit for bit"
done
