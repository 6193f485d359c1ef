#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# make check: every function exported by a public header has a man3 page
# with a one-line description, and dmesh(7) lists it (doc/man, made by
# doc/mkman.sh). The names come from the headers here, independently.
fail=0
names=$(sed -n 's/^DMESH_EXPORT[^(]*[ *]\([a-z_0-9]*\)(.*/\1/p' \
    "$top_srcdir/include/dmesh.h" "$top_srcdir/include/dmesh_layout.h" \
    "$top_srcdir/include/dmesh_nccl.h" | sort -u)
count=0
for n in $names; do
    count=$((count + 1))
    page=doc/man/man3/$n.3
    if [ ! -f "$page" ]; then
        echo "FAIL: no man page for $n"
        fail=1
    elif ! grep -q "^$n \\\\- [A-Za-z]" "$page" || ! grep -q '^\.SH SYNOPSIS' "$page"; then
        echo "FAIL: $page has no NAME line or SYNOPSIS"
        fail=1
    fi
    grep -q "^\.BR $n (3)" doc/man/man7/dmesh.7 || { echo "FAIL: dmesh.7 does not list $n"; fail=1; }
done
[ "$count" -gt 40 ] || { echo "FAIL: only $count exported functions found"; fail=1; }
echo "$count functions, each with a man page"
exit $fail
