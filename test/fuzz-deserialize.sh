#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Fuzz the parser of saved meshes under AddressSanitizer and
# UndefinedBehaviorSanitizer (make fuzz-check; the fuzz stage of .ci/run).
#   test/fuzz-deserialize.sh [ITERATIONS [SEED]]
# Environment: top_srcdir, top_builddir (for config.h), MPICC (its include
# and link flags), FUZZ_CC (default clang).
set -eu
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
top_builddir=${top_builddir:-.}
cc=${FUZZ_CC:-clang}
mpicc=${MPICC:-mpicc}
if ! command -v "$cc" >/dev/null 2>&1; then
    echo "fuzz-deserialize: $cc not found" >&2
    exit 1
fi
# MPI's flags: Open MPI's wrapper says them with -showme, MPICH's with -compile_info.
if mpi_c=$("$mpicc" -showme:compile 2>/dev/null) && mpi_l=$("$mpicc" -showme:link 2>/dev/null); then
    :
else
    mpi_c=$("$mpicc" -compile_info | tr ' ' '\n' | grep '^-I' | tr '\n' ' ')
    mpi_l=$("$mpicc" -link_info | tr ' ' '\n' | grep -E '^-(L|l|Wl)' | tr '\n' ' ')
fi
exe=$top_builddir/test/fuzz_deserialize
mkdir -p "$top_builddir/test"
# shellcheck disable=SC2086
"$cc" -g -O1 -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer \
    -DDMESH_API_DIRECT -I"$top_builddir" -I"$top_srcdir/include" -I"$top_builddir/include" \
    -I"$top_srcdir/lib" $mpi_c \
    -o "$exe" "$top_srcdir/test/fuzz_deserialize.c" "$top_srcdir/lib/serialize_text.c" \
    "$top_srcdir/lib/text.c" "$top_srcdir/lib/layout.c" "$top_srcdir/lib/layout_text.c" "$top_srcdir/lib/error.c" \
    "$top_srcdir/lib/scan.c" "$top_srcdir/lib/backend.c" "$top_srcdir/lib/backend_nccl.c" \
    "$top_srcdir/lib/option_value.c" "$top_srcdir/lib/cache.c" "$top_srcdir/lib/comm_nccl_none.c" \
    "$top_srcdir/lib/ulfm.c" $mpi_l
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    "$exe" "${1:-1000000}" "${2:-1}"
