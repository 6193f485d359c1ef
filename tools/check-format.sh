#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# check-format.sh [--fix] [FILE...]: the C and C++ sources and headers of
# dmesh are formatted as the checked-in .clang-format says. Without FILEs,
# checks the *.c, *.h and *.cc files git tracks (run from a checkout; in a
# release tarball, without git, it skips with status 77). Lists the files
# that clang-format would change and fails (status 1); --fix formats them in
# place. $CLANG_FORMAT names the program (default clang-format; CI uses
# Debian 12's, version 14: other versions may format a few lines otherwise).
# Also `make check-format` and `make format` (tools/local.mk).
set -u
fix=0
[ "${1:-}" = --fix ] && { fix=1; shift; }
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
cf=${CLANG_FORMAT:-clang-format}
command -v "$cf" >/dev/null 2>&1 || { echo "check-format: $cf not found (Debian: apt-get install clang-format)" >&2; exit 2; }

if [ $# -eq 0 ]; then
    { command -v git >/dev/null 2>&1 && git rev-parse --is-inside-work-tree >/dev/null 2>&1; } ||
        { echo "check-format: not a git checkout: skipped"; exit 77; }
    set -- $(git ls-files '*.c' '*.h' '*.cc')
fi

# An option this clang-format does not know fails every file: say so once.
"$cf" --style=file --dump-config "${1:-include/dmesh.h}" >/dev/null ||
    { echo "check-format: $cf rejects .clang-format" >&2; exit 2; }

bad=0
if [ "$fix" -eq 1 ]; then
    for f in "$@"; do
        [ -f "$f" ] || continue
        "$cf" --style=file -i "$f" || bad=1
    done
else
    # one clang-format for every file (a process per file took most of the
    # time): --dry-run names each file that differs, once per difference
    out=$(for f in "$@"; do [ -f "$f" ] && printf '%s\0' "$f"; done |
        xargs -0 -r "$cf" --style=file --dry-run 2>&1)
    rc=$?
    if [ $rc -ne 0 ]; then
        printf '%s\n' "$out" >&2
        bad=1
    fi
    bad_files=$(printf '%s\n' "$out" | sed -n 's/^\(.*\):[0-9]*:[0-9]*: \(warning\|error\): code should be clang-formatted.*/\1/p' |
        sort -u)
    if [ -n "$bad_files" ]; then
        printf '%s\n' "$bad_files"
        bad=1
    fi
fi
if [ "$bad" -ne 0 ] && [ "$fix" -eq 0 ]; then
    echo "check-format: the files above differ from $cf's output (tools/check-format.sh --fix)" >&2
fi
exit "$bad"
