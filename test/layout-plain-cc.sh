#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# make check: dmesh_layout.h compiles with a plain C compiler and no mpi.h
# (an mpi.h that stops the compiler comes first on the include path), and
# dmesh.h included after it still gives the whole API (with the real mpi.h).
# Skipped (77) without cc or gcc.
. "$top_srcdir/test/check.sh"
cc=
for c in cc gcc clang; do
    command -v "$c" >/dev/null 2>&1 && { cc=$c; break; }
done
[ -n "$cc" ] || check_skip "no plain C compiler"
dir=test/layout-plain-cc.d
rm -rf "$dir" && mkdir -p "$dir/fake" || exit 1
echo '#error "mpi.h included by dmesh_layout.h"' >"$dir/fake/mpi.h"
cat >"$dir/layout_only.c" <<'EOC'
#include <dmesh_layout.h>
int main(void)
{
    dmesh_axis_t a = {1, {{4, 1}}};
    int n = 0;
    return dmesh_axis_numel(&a, &n) == DMESH_SUCCESS && n == 4 && DMESH_MAX_DIMS == 16 &&
                   dmesh_error_string(DMESH_ERR_ARG) != 0 ? 0 : 1;
}
EOC
set -e
"$cc" -fsyntax-only -Wall -Werror -I"$dir/fake" -I"$top_srcdir/include" -I"$top_builddir/include" \
    "$dir/layout_only.c"
echo "$cc: dmesh_layout.h compiles without mpi.h"
# Layout header first, then the full API: dmesh_init must be declared.
printf '#include <dmesh_layout.h>\n#include <dmesh.h>\nint (*f)(MPI_Comm, const char *, int, const int *, const char *const *, MPI_Info, dmesh_t *) = dmesh_init;\n' \
    >"$dir/both.c"
# (no -Werror: clang warns that the wrapper's link flags go unused here)
$(check_pc mpicc) $(check_pc_mpi_cflags) -fsyntax-only -I"$top_srcdir/include" -I"$top_builddir/include" "$dir/both.c"
echo "dmesh_layout.h then dmesh.h: the whole API"
rm -rf "$dir"
