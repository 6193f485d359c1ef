#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# readme-lines.sh PREFIX [MPIEXEC [FLAG...]]: the compile lines that
# README.md, the user guide and dmesh(7) print (lines that start with
# "mpicc prog.c" or "mpifort" in a code block, or "cc prog.c" (the plain
# compiler with dmesh.pc's flags, which carry the MPI's), the first such command in
# backquotes on a line, the man page's .B lines; not those for dmesh-nccl,
# which need a GPU), run as printed against the dmesh installed in PREFIX, a
# prefix outside the default library path. Each line runs in a scratch
# directory whose prog.c is examples/hello_mesh.c (prog.f90: hello_mesh.f90,
# then hello_mesh_f08.f90), with PREFIX/lib/pkgconfig on PKG_CONFIG_PATH and
# without LD_LIBRARY_PATH; the program must start and pass at 2 ranks. A
# line missing from a document, or one that fails, fails the test.
# .ci/run runs it on its installation (the cmake-consumer stage); by hand:
#   test/readme-lines.sh /opt/dmesh mpiexec --oversubscribe
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/test/check.sh"
[ $# -ge 1 ] || { echo "usage: $0 PREFIX [MPIEXEC [FLAG...]]" >&2; exit 2; }
prefix=$(cd "$1" && pwd) || exit 1
shift
[ $# -gt 0 ] || set -- mpiexec
check_need pkg-config "$1"
man7=$prefix/share/man/man7/dmesh.7
[ -f "$man7" ] || check_fail "no $man7"
work=$(mktemp -d) || exit 1
trap 'rm -rf "$work"' EXIT
PKG_CONFIG_PATH=$prefix/lib/pkgconfig
export PKG_CONFIG_PATH
unset LD_LIBRARY_PATH

# lines FILE KIND: the compile lines of FILE (markdown, or man for dmesh(7)).
lines() {
    if [ "$2" = man ]; then
        sed -n 's/^\.B \(mpi[a-z]* prog\.[a-z0-9]* .*\)$/\1/p' "$1" | sed 's/\\-/-/g'
    else
        sed -n -e 's/^[^`]*`\(mpicc prog\.c [^`]*\)`.*$/\1/p' -e 's/^\(mpicc prog\.c .*\)$/\1/p' \
            -e 's/^\(cc prog\.c .*\)$/\1/p' \
            -e 's/^[^`]*`\(mpifort [^`]*\)`.*$/\1/p' -e 's/^\(mpifort .*\)$/\1/p' "$1" |
            grep -v -- '-nccl' # NCCL programs: dmesh_nccl.h and a GPU
    fi
}

# try LINE SOURCE LAUNCHER...: LINE run in a fresh directory on SOURCE,
# then the program it built, at 2 ranks.
try() {
    line=$1 src=$2
    shift 2
    rm -rf "$work/run" && mkdir "$work/run" || return 1
    case $line in
    mpicc* | cc*) cp "$src" "$work/run/prog.c" ;;
    *) cp "$src" "$work/run/prog.f90" ;;
    esac
    echo "$line   [prog: ${src##*/}]"
    if ! (cd "$work/run" && sh -c "$line"); then
        check_fail "does not compile: $line"
        return
    fi
    (cd "$work/run" && "$@" -n 2 ./a.out </dev/null) >"$work/out" 2>&1 || {
        check_fail "${src##*/} built by '$line' does not run at 2 ranks:"
        cat "$work/out"
    }
}

for doc in "$top/README.md:md" "$top/doc/user-guide.md:md" "$man7:man"; do
    file=${doc%:*} kind=${doc##*:}
    [ -f "$file" ] || continue
    found=$(lines "$file" "$kind")
    printf '%s\n' "$found" | grep -q '^mpicc' || check_fail "no C compile line in $file"
    printf '%s\n' "$found" | grep -q '^mpifort' || check_fail "no Fortran compile line in $file"
    printf '%s\n' "$found" | {
        while IFS= read -r line; do
            case $line in
            '') ;;
            mpicc* | cc*) try "$line" "$top/examples/hello_mesh.c" "$@" ;;
            *)
                try "$line" "$top/examples/hello_mesh.f90" "$@"
                try "$line" "$top/examples/hello_mesh_f08.f90" "$@"
                ;;
            esac
        done
        exit "$check_failed"
    } || check_failed=1
done
check_exit
