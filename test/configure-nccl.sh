#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# NCCL detection of configure (autotools/dmesh_nccl.m4), on copies of the
# NCCL found in CUDA_DIR (default /usr/local/cuda):
#   1. a pip wheel's layout (include/nccl.h, lib/libnccl.so.2 only, an empty
#      lib64) given as --with-nccl=DIR: found there, linked with
#      -l:libnccl.so.2 from DIR/lib, NCCL's -I before CUDA's; libdmesh links;
#      dmesh.pc does not carry them (libdmesh loads them at run time), nor
#      their include paths, which dmesh-nccl.pc has; the run-time load looks
#      in the wheel's lib last;
#   2. --with-nccl=/nonexistent: configure fails (CUDA's copy must not count);
#   3. the same layout as NCCL_HOME, without --with-nccl: found there.
# Usage: configure-nccl.sh SRCDIR [WORKDIR]. Exit 77 when there is no NCCL
# to copy. Slow (three configure runs, one library build): run by .ci/run
# and `make check-configure`, not by make check.
set -u
src=$(cd "${1:?usage: configure-nccl.sh SRCDIR [WORKDIR]}" && pwd)
. "$src/test/check.sh"
work=${2:-${TMPDIR:-/tmp}/dmesh-configure-nccl.$$}
cuda=${CUDA_DIR:-/usr/local/cuda}
so=$(ls "$cuda"/lib/libnccl.so.2 "$cuda"/lib64/libnccl.so.2 2>/dev/null | head -n 1)
[ -f "$cuda/include/nccl.h" ] && [ -n "$so" ] || check_skip "configure-nccl: no NCCL in $cuda to copy"
rm -rf "$work"
mkdir -p "$work/wheel/include" "$work/wheel/lib" "$work/wheel/lib64"
ln -s "$cuda/include/nccl.h" "$work/wheel/include/nccl.h"
ln -s "$so" "$work/wheel/lib/libnccl.so.2"
# run NAME ARGS...: configure in $work/NAME, output in $work/NAME/out
run() {
    name=$1
    shift
    mkdir -p "$work/$name"
    (cd "$work/$name" && "$@" >out 2>&1)
}
value() { sed -n "s/^S\[\"$2\"\]=\"\(.*\)\"\$/\1/p" "$work/$1/config.status"; }

run wheel "$src/configure" --with-cuda="$cuda" --with-nccl="$work/wheel" --disable-fortran ||
    check_fail "--with-nccl=<wheel layout> failed: $(tail -n 3 "$work/wheel/out")"
if [ -f "$work/wheel/config.status" ]; then
    [ "$(value wheel NCCL_LIBS)" = "-l:libnccl.so.2" ] || check_fail "NCCL_LIBS is '$(value wheel NCCL_LIBS)'"
    case $(value wheel NCCL_LDFLAGS) in
    "-L$work/wheel/lib "*) ;;
    *) check_fail "NCCL_LDFLAGS is '$(value wheel NCCL_LDFLAGS)', not the wheel's lib (empty lib64 picked?)" ;;
    esac
    [ "$(value wheel NCCL_CPPFLAGS)" = "-I$work/wheel/include" ] ||
        check_fail "NCCL_CPPFLAGS is '$(value wheel NCCL_CPPFLAGS)'"
    grep -q "split: yes" "$work/wheel/out" || check_fail "the summary does not report ncclCommSplit"
    # dmesh.pc: libdmesh loads NCCL and CUDA at run time, nothing links them
    ! grep "^Libs" "$work/wheel/dmesh.pc" | grep -q -e "nccl" -e "cudart" ||
        check_fail "dmesh.pc links NCCL or CUDA: $(grep '^Libs' "$work/wheel/dmesh.pc")"
    # nor gives CUDA or NCCL include paths: those are dmesh-nccl.pc's, for dmesh_nccl.h
    ! grep "^Cflags" "$work/wheel/dmesh.pc" | grep -q -e "$work/wheel" -e "$cuda" ||
        check_fail "dmesh.pc has CUDA or NCCL paths: $(grep '^Cflags' "$work/wheel/dmesh.pc")"
    grep "^Cflags" "$work/wheel/dmesh-nccl.pc" | grep -q -- "-I$work/wheel/include" &&
        grep "^Libs" "$work/wheel/dmesh-nccl.pc" | grep -q -- "-l:libnccl.so.2" ||
        check_fail "dmesh-nccl.pc lacks the wheel's NCCL: $(grep -e '^Cflags' -e '^Libs' "$work/wheel/dmesh-nccl.pc")"
    grep -q "^#define DMESH_NCCL_FOUND_LIBDIR \"$work/wheel/lib\"" "$work/wheel/config.h" ||
        check_fail "the run-time load does not look in the wheel's lib: $(grep FOUND_LIBDIR "$work/wheel/config.h")"
    (cd "$work/wheel" && make V=1 lib/libdmesh.la >make.out 2>&1) ||
        check_fail "libdmesh does not link against the wheel layout: $(tail -n 5 "$work/wheel/make.out")"
    # NCCL's include directory comes before CUDA's where comm_nccl.c compiles
    grep "comm_nccl" "$work/wheel/make.out" | grep -q -- "-I$work/wheel/include.*-I$cuda/include" ||
        check_fail "NCCL's -I is not before CUDA's"
fi

if run missing "$src/configure" --with-cuda="$cuda" --with-nccl=/nonexistent --disable-fortran; then
    check_fail "--with-nccl=/nonexistent succeeded: $(grep 'NCCL  ' "$work/missing/out")"
fi
grep -q "was not found there" "$work/missing/out" || check_fail "--with-nccl=/nonexistent: no clear message"

run home env NCCL_HOME="$work/wheel" "$src/configure" --with-cuda="$cuda" --disable-fortran ||
    check_fail "NCCL_HOME=<wheel layout> failed"
[ "$(value home NCCL_CPPFLAGS)" = "-I$work/wheel/include" ] ||
    check_fail "NCCL_HOME not read: NCCL_CPPFLAGS is '$(value home NCCL_CPPFLAGS)'"

[ "$check_failed" -eq 0 ] && echo "configure-nccl: ok" && rm -rf "$work"
check_exit
