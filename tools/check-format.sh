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
for f in "$@"; do
    [ -f "$f" ] || continue
    if [ "$fix" -eq 1 ]; then
        "$cf" --style=file -i "$f" || bad=1
    elif ! "$cf" --style=file "$f" | cmp -s - "$f"; then
        echo "$f"
        bad=1
    fi
done
if [ "$bad" -ne 0 ] && [ "$fix" -eq 0 ]; then
    echo "check-format: the files above differ from $cf's output (tools/check-format.sh --fix)" >&2
fi
exit "$bad"
