#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# make check: dmesh.pc of the build tree. Its cflags are dmesh's include
# directory and the MPI's flags (no CUDA or NCCL path: those are
# dmesh-nccl.pc's). Every flag appears once in --cflags and in --static
# --libs. A program built by the plain C compiler (cc, not an MPI wrapper)
# with nothing but pkg-config's flags links against the shared libdmesh and
# runs; one links against the static libdmesh.a with the --static flags and
# runs (skipped without pkg-config; the static part without libdmesh.a).
. "$top_srcdir/test/check.sh"
check_need pkg-config
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
# dmesh's include directory first, then the MPI's flags; no CUDA or NCCL
# path for CPU-only programs: those are in dmesh-nccl.pc.
case "$cflags " in
"-I$top_srcdir/include "*) ;;
*) check_fail "cflags do not start with dmesh's include directory" ;;
esac
if [ -f dmesh-nccl.pc ]; then
    for w in $(sed -n 's/^Cflags: *//p' dmesh-nccl.pc); do
        case $w in
        -I\$\{includedir\}) ;;
        *) case " $cflags " in *" $w "*) check_fail "cflags carry $w (dmesh-nccl.pc's)" ;; esac ;;
        esac
    done
fi
once "--static --libs" "$libs"
# The plain compiler with pkg-config's flags alone: mpi.h and the MPI library
# come from dmesh.pc (whatever compiler built dmesh).
if command -v "${PLAIN_CC:-cc}" >/dev/null 2>&1; then
    prog=test/pkgconfig-plain
    shared=$($pc --libs dmesh) || exit 1
    if "${PLAIN_CC:-cc}" $cflags -I"$top_builddir/include" "$top_srcdir/examples/hello_mesh.c" -o "$prog" \
        $shared -Wl,-rpath,"$top_builddir/lib/.libs"; then
        "$MPIRUN" 2 "./$prog" || check_fail "$prog (${PLAIN_CC:-cc} with dmesh.pc's flags) at 2 ranks"
    else
        check_fail "${PLAIN_CC:-cc} \$(pkg-config --cflags --libs dmesh) cannot build hello_mesh.c"
    fi
    rm -f "$prog"
fi
[ -f lib/.libs/libdmesh.a ] || { rm -rf "$dir"; echo "skipped: the static link (no static libdmesh)"; check_exit; }
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
