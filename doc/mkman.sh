#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# mkman.sh SRCDIR OUTDIR VERSION HEADER...: write OUTDIR/man3/NAME.3 for every
# function the headers export (doc/mkman.awk) and OUTDIR/man7/dmesh.7 from
# doc/dmesh.7.in, whose @FUNCTIONS@ line becomes the list of those pages.
set -e
srcdir=$1
out=$2
version=$3
shift 3
rm -rf "$out.tmp"
mkdir -p "$out.tmp/man3" "$out.tmp/man7"
awk -v outdir="$out.tmp/man3" -v version="$version" -f "$srcdir/doc/mkman.awk" "$@" >"$out.tmp/names"
[ -s "$out.tmp/names" ] || { echo "mkman.sh: no exported function found in $*" >&2; exit 1; }
awk -v names="$out.tmp/names" -v version="$version" '
    /^@FUNCTIONS@$/ {
        n = 0
        while ((getline name < names) > 0) list[++n] = name
        for (i = 1; i <= n; i++) printf ".BR %s (3)%s\n", list[i], i < n ? "," : ""
        next
    }
    { gsub(/@VERSION@/, version); print }' "$srcdir/doc/dmesh.7.in" >"$out.tmp/man7/dmesh.7"
rm -f "$out.tmp/names"
rm -rf "$out"
mv "$out.tmp" "$out"
