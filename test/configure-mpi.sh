#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# configure's choice of MPI (autotools/dmesh_mpi.m4, dmesh_mpi_abi.m4):
#   1. MPICC naming a wrapper that compiles but cannot link an MPI program:
#      configure stops with an error naming it, and takes no other MPI's
#      flags from pkg-config instead (no silent switch of MPI);
#   2. --with-mpi-abi=DIR where DIR holds no standard ABI: an error naming DIR;
#   3. --with-mpi-abi with MPI_PC naming a module that is no standard ABI (the
#      native MPI's): an error naming it;
#   4. a plain CC with MPI_PC (pkg-config's flags): configure succeeds and
#      dmesh.pc's flags are that module's.
# Usage: configure-mpi.sh SRCDIR [WORKDIR]. Needs an MPI with a pkg-config
# module (ompi-c, mpich or mpi; exit 77 without). Several configure runs:
# run by .ci/run and `make check-configure`, not by make check.
set -u
src=$(cd "${1:?usage: configure-mpi.sh SRCDIR [WORKDIR]}" && pwd)
. "$src/test/check.sh"
work=${2:-${TMPDIR:-/tmp}/dmesh-configure-mpi.$$}
check_need pkg-config cc
module=
for m in ompi-c mpich mpi; do
    pkg-config --exists "$m" 2>/dev/null && { module=$m; break; }
done
[ -n "$module" ] || check_skip "configure-mpi: no MPI pkg-config module (ompi-c, mpich, mpi)"
rm -rf "$work"
mkdir -p "$work" || exit 1
# run NAME ARGS...: configure in $work/NAME, output in $work/NAME/out
run() {
    name=$1
    shift
    mkdir -p "$work/$name"
    (cd "$work/$name" && "$src/configure" --without-cuda --without-nccl --disable-fortran "$@" >out 2>&1)
}
value() { sed -n "s/^S\[\"$2\"\]=\"\(.*\)\"\$/\1/p" "$work/$1/config.status"; }
has() { grep -qF -- "$2" "$work/$1/out"; }

# 1. a wrapper that links nothing of MPI (mpi.h found, the library not)
cat >"$work/fake-mpicc" <<EOF
#!/bin/sh
exec cc $(pkg-config --cflags "$module") "\$@"
EOF
chmod +x "$work/fake-mpicc"
if run fake MPICC="$work/fake-mpicc"; then
    check_fail "MPICC=fake-mpicc (cannot link MPI): configure succeeded"
fi
has fake "MPICC=$work/fake-mpicc cannot compile and link" ||
    check_fail "MPICC=fake-mpicc: no error naming it: $(tail -n 2 "$work/fake/out")"
has fake "pkg-config's" && check_fail "MPICC=fake-mpicc: configure tried pkg-config's MPI instead"

# 2. --with-mpi-abi=DIR without an ABI in DIR
mkdir -p "$work/no-abi/include" "$work/no-abi/lib"
run abidir --with-mpi-abi="$work/no-abi" && check_fail "--with-mpi-abi=<empty DIR>: configure succeeded"
has abidir "--with-mpi-abi=$work/no-abi: no MPI-5 standard ABI there" ||
    check_fail "--with-mpi-abi=<empty DIR>: no error naming it: $(tail -n 2 "$work/abidir/out")"

# 3. --with-mpi-abi with the native MPI's module
run abipc --with-mpi-abi MPI_PC="$module" && check_fail "--with-mpi-abi MPI_PC=$module: configure succeeded"
has abipc "MPI_PC=$module gives no MPI-5 standard ABI" ||
    check_fail "--with-mpi-abi MPI_PC=$module: no error naming it: $(tail -n 2 "$work/abipc/out")"

# 4. a plain compiler with pkg-config's flags: dmesh.pc carries them
if run plain CC=cc MPI_PC="$module"; then
    want=$(echo $(pkg-config --cflags "$module"))
    got=$(echo $(value plain DMESH_PC_MPI_CFLAGS))
    [ "$got" = "$want" ] || check_fail "CC=cc MPI_PC=$module: dmesh.pc's MPI cflags '$got', want '$want'"
    want=$(echo $(pkg-config --libs "$module"))
    got=$(echo $(value plain DMESH_PC_MPI_LIBS))
    [ "$got" = "$want" ] || check_fail "CC=cc MPI_PC=$module: dmesh.pc's MPI libs '$got', want '$want'"
else
    check_fail "CC=cc MPI_PC=$module failed: $(tail -n 3 "$work/plain/out")"
fi
[ "$check_failed" -ne 0 ] || { echo "configure-mpi: 4 cases passed ($module)"; rm -rf "$work"; }
check_exit
