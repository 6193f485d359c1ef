#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# check-programs.sh SRCDIR TESTS...: run in a configured build directory,
# prints the check programs that a subset of the tests runs, for make's
# line: make check TESTS="..." check_PROGRAMS="$(check-programs.sh ...)"
# (make check builds every check program otherwise, whatever TESTS says).
# For each test DIR/NAME[-npN.mpi], the program DIR/NAME, and every check
# program whose name its script (SRCDIR/DIR/NAME.sh) has as a word. A
# program left out fails its test (not found), never passes it.
set -eu
srcdir=$1
shift
all=$(printf 'p:\n\t@echo $(check_PROGRAMS)\n' | make -s -f Makefile -f - p)
out=
for t in "$@"; do
    base=${t%.mpi}
    base=${base%-np[0-9]*}
    base=${base%.sh}
    for p in $all; do
        case " $out " in *" $p "*) continue ;; esac
        if [ "$p" = "$base" ] || { [ -f "$srcdir/$base.sh" ] &&
            grep -qE "(^|[^A-Za-z0-9_])${p##*/}([^A-Za-z0-9_]|\$)" "$srcdir/$base.sh"; }; then
            out="$out $p"
        fi
    done
done
echo $out
