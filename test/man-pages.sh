#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# make check: every function exported by a public header has a man3 page
# with a one-line description, and dmesh(7) lists it (doc/man, made by
# doc/mkman.sh). The names come from the headers here, independently.
. "$top_srcdir/test/check.sh"
names=$(sed -n 's/^DMESH_EXPORT[^(]*[ *]\([a-z_0-9]*\)(.*/\1/p' \
    "$top_srcdir/include/dmesh.h" "$top_srcdir/include/dmesh_layout.h" \
    "$top_srcdir/include/dmesh_nccl.h" | sort -u)
count=0
for n in $names; do
    count=$((count + 1))
    page=doc/man/man3/$n.3
    if [ ! -f "$page" ]; then
        check_fail "no man page for $n"
    elif ! grep -q "^$n \\\\- [A-Za-z]" "$page" || ! grep -q '^\.SH SYNOPSIS' "$page"; then
        check_fail "$page has no NAME line or SYNOPSIS"
    fi
    grep -q "^\.BR $n (3)" doc/man/man7/dmesh.7 || check_fail "dmesh.7 does not list $n"
done
[ "$count" -gt 40 ] || check_fail "only $count exported functions found"
echo "$count functions, each with a man page"
check_exit
