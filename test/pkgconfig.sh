#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# make check: dmesh.pc of the build tree. Its cflags are dmesh's include
# directory alone (no CUDA or NCCL path). Every flag appears once in
# --cflags and in --static --libs, and a program links against the static
# libdmesh.a with the --static flags and runs (skipped without pkg-config
# or a static library).
. "$top_srcdir/test/check.sh"
check_need pkg-config
[ -f lib/.libs/libdmesh.a ] || check_skip "no static libdmesh"
# dmesh.pc with the build tree's directories.
dir=test/pkgconfig.d
rm -rf "$dir" && mkdir -p "$dir" || exit 1
sed -e "s|^libdir=.*|libdir=$top_builddir/lib/.libs|" -e "s|^includedir=.*|includedir=$top_srcdir/include|" \
    dmesh.pc >"$dir/dmesh.pc"
PKG_CONFIG_PATH=$dir${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
export PKG_CONFIG_PATH
pc=pkg-config
once() {
    dup=$(for w in $2; do echo "$w"; done | sort | uniq -d)
    [ -z "$dup" ] || check_fail "$1 repeats: $dup"
}
cflags=$($pc --cflags dmesh) || exit 1
cflags=$(echo $cflags)
libs=$($pc --static --libs dmesh) || exit 1
echo "cflags: $cflags"
echo "static libs: $libs"
once "--cflags" "$cflags"
# No CUDA or NCCL path for CPU-only programs: those are in dmesh-nccl.pc.
[ "$cflags" = "-I$top_srcdir/include" ] || { echo "FAIL: cflags are more than dmesh's include directory"; fail=1; }
once "--static --libs" "$libs"
mpicc=$(check_pc mpicc)
prog=test/pkgconfig-static
static=$(echo "$libs" | sed 's/-ldmesh\( \|$\)/-Wl,-Bstatic -ldmesh -Wl,-Bdynamic /')
$mpicc -I"$top_builddir/include" $cflags "$top_srcdir/examples/hello_mesh.c" -o "$prog" $static || exit 1
if command -v ldd >/dev/null 2>&1 && ldd "$prog" | grep -q libdmesh; then
    check_fail "$prog loads a shared libdmesh"
fi
"$MPIRUN" 2 "./$prog" || check_fail "$prog at 2 ranks"
rm -rf "$prog" "$dir"
check_exit
