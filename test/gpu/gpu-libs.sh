#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# make check (CUDA builds): libdmesh does not link the CUDA runtime or NCCL
# but loads them at run time (lib/gpu_lib.c, doc/gpu.md section 8). The shared library
# needs neither (no NEEDED entry), calls none of their functions directly
# (no undefined cuda* / nccl* symbol: each call goes through the table), and
# dmesh.pc asks no program to link them.
. "$top_srcdir/test/check.sh"
so=lib/.libs/libdmesh.so
[ -f "$so" ] || check_skip "no shared libdmesh"
check_need readelf nm
needed=$(readelf -d "$so" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
echo "NEEDED: $(echo $needed)"
if echo "$needed" | grep -E '^lib(cudart|nccl|cuda)\.so'; then
    check_fail "$so needs the libraries above"
fi
direct=$(nm -D --undefined-only "$so" | awk '{print $NF}' | grep -E '^(cuda|nccl)[A-Z]')
if [ -n "$direct" ]; then
    check_fail "$so calls these directly, not through lib/gpu_lib.c's table: $(echo $direct)"
fi
if grep -E '^Libs' dmesh.pc | grep -E -e '-l(:lib)?(cudart|nccl)'; then
    check_fail "dmesh.pc links the libraries above"
fi
check_exit
