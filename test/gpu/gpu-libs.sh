#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# make check (CUDA builds): libdmesh does not link the CUDA runtime or NCCL
# but loads them at run time (lib/gpu_lib.c, doc/gpu.md section 8). The shared library
# needs neither (no NEEDED entry), calls none of their functions directly
# (no undefined cuda* / nccl* symbol: each call goes through the table), and
# dmesh.pc asks no program to link them.
fail=0
so=lib/.libs/libdmesh.so
if [ ! -f "$so" ]; then
    echo "skipped: no shared libdmesh"
    exit 77
fi
for tool in readelf nm; do
    command -v $tool >/dev/null 2>&1 || { echo "skipped: no $tool"; exit 77; }
done
needed=$(readelf -d "$so" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p')
echo "NEEDED: $(echo $needed)"
if echo "$needed" | grep -E '^lib(cudart|nccl|cuda)\.so'; then
    echo "FAIL: $so needs the libraries above"
    fail=1
fi
direct=$(nm -D --undefined-only "$so" | awk '{print $NF}' | grep -E '^(cuda|nccl)[A-Z]')
if [ -n "$direct" ]; then
    echo "FAIL: $so calls these directly, not through lib/gpu_lib.c's table: $(echo $direct)"
    fail=1
fi
if grep -E '^Libs' dmesh.pc | grep -E -e '-l(:lib)?(cudart|nccl)'; then
    echo "FAIL: dmesh.pc links the libraries above"
    fail=1
fi
exit $fail
