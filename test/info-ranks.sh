#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# info-ranks.sh NP: dmesh-info at NP ranks, as a new user first runs it.
# The default shape (0,0,0) fits NP: the shape it prints multiplies to NP,
# in non-increasing sizes, and every rank has a row; entries 0 are filled
# next to given ones; a bad option and a failed dmesh call are reported
# once (rank 0) and every rank exits non-zero without MPI_Abort; the
# communicators a derived mesh shares with the mesh are named; DMESH_DEBUG
# names the ranks a mesh leaves out; --help, --version and --config print
# once. make check runs it from the build
# directory as test/info-ranks-npN.mpi (test/mpirun.sh --test).
. "$top_srcdir/test/check.sh"
np=$1
info=./tools/dmesh-info

# count TEXT OUTPUT: how many lines of OUTPUT hold the fixed string TEXT.
count() {
    printf '%s\n' "$2" | grep -cF -- "$1"
}

out=$("$MPIRUN" "$np" $info 2>&1)
rc=$?
[ $rc -ne 77 ] || check_skip "$np ranks"
[ $rc -eq 0 ] || check_fail "default shape at $np ranks: exit $rc"
shape=$(printf '%s\n' "$out" | sed -n "s/^shape 0,0,0 on $np ranks: \([0-9,]*\) .*/\1/p")
if ! echo "$shape" | awk -F, -v np="$np" '
    NF != 3 { exit 1 }
    { p = 1; for (i = 1; i <= NF; i++) { p *= $i; if (i > 1 && $i > $(i - 1)) exit 1 } }
    p != np { exit 1 }'; then
    check_fail "default shape at $np ranks: '$shape' (want 3 non-increasing sizes of product $np)"
    printf '%s\n' "$out"
fi
rows=$(printf '%s\n' "$out" | grep -cE '^ +[0-9]+  [^ ]+ +[0-9]+  \([0-9]+,[0-9]+,[0-9]+\)')
[ "$rows" -eq "$np" ] || check_fail "default shape at $np ranks: $rows rows with a coordinate"

check_expect 0 "shape 1,0 on $np ranks: 1,$np " "$MPIRUN" "$np" $info --shape 1,0

# The options that answer without MPI_Init print once under the launcher.
for opt in --help --version --config; do
    out=$("$MPIRUN" "$np" $info $opt 2>&1)
    rc=$?
    [ $rc -eq 0 ] || check_fail "$opt at $np ranks: exit $rc"
    case $opt in
    --help) text="usage: mpiexec" ;;
    --version) text="dmesh-info (dmesh)" ;;
    *) text="dmesh " ;;
    esac
    n=$(printf '%s\n' "$out" | grep -c "^$text")
    [ "$n" -eq 1 ] || check_fail "$opt at $np ranks: '$text' printed $n times"
done

# Errors once, every rank non-zero, no abort, and no hang: a launcher that
# ran past its bound (mpirun.sh's 124) is no failure this test wants.
out=$("$MPIRUN" "$np" $info --bogus 2>&1)
rc=$?
check_fails_in_bound $rc "--bogus at $np ranks"
n=$(count "unknown option '--bogus'" "$out")
u=$(count "usage: mpiexec" "$out")
[ "$n" -eq 1 ] && [ "$u" -eq 1 ] || check_fail "--bogus at $np ranks: $n messages, $u usages"
big=$((np + 1))
out=$("$MPIRUN" "$np" $info --shape "$big" 2>&1)
rc=$?
check_fails_in_bound $rc "--shape $big at $np ranks"
n=$(count "dmesh_init: mesh shape product $big exceeds communicator size $np" "$out")
[ "$n" -eq 1 ] || check_fail "--shape $big at $np ranks: $n messages"
if printf '%s\n' "$out" | grep -qi "mpi_abort"; then
    check_fail "--shape $big: MPI_Abort"
    printf '%s\n' "$out"
fi

# DMESH_DEBUG: the ranks outside a mesh of one rank. The shared
# communicators of a derived mesh: b has dp's layout, a and tp tp's (size
# 1), tp is carried over (at 1 rank every dimension has size 1).
if [ "$np" -ge 2 ]; then
    check_expect 0 "a = mesh's tp, b = mesh's dp, tp = mesh's tp" "$MPIRUN" "$np" $info \
        --shape 0,1 --unflatten "0:1,$np:a,b"
    last=$((np - 1))
    [ "$np" -eq 2 ] && range=1 || range="1-$last"
    check_expect 0 "$last of the communicator's $np ranks are outside the mesh" \
        env DMESH_DEBUG=1 "$MPIRUN" "$np" $info --shape 1
    check_expect 0 "coordinates MPI_UNDEFINED): $range" \
        env DMESH_DEBUG=1 "$MPIRUN" "$np" $info --shape 1
fi
check_exit
