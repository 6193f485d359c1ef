#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# valgrind-leaks.sh PROGRAM [NP]: run an MPI test program at NP ranks (default
# 2) under valgrind through $MPIRUN (test/mpirun.sh honours
# DMESH_TEST_LAUNCHER), then fail when valgrind reports a "definitely lost"
# or "indirectly lost" block that dmesh allocated, or an invalid read, write
# or free in dmesh (its first frame is dmesh's, as below).
#
# A block is dmesh's when the first frame of its allocation stack below the
# allocator (valgrind's malloc replacements, libc helpers such as strdup or
# vasprintf) is a dmesh function, a source file of lib/, or libdmesh. Blocks
# that Open MPI (or PMIx, libevent, ...) allocated are its own noise, even
# when a dmesh call is further down the stack: Open MPI reports the keyval of
# MPI_Comm_create_keyval as definitely lost, for one. They are listed as notes
# and do not fail the check.
set -u
prog=${1:?usage: valgrind-leaks.sh PROGRAM [NP]}
np=${2:-2}
: "${MPIRUN:?MPIRUN must name test/mpirun.sh}"
srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}

if ! command -v valgrind >/dev/null 2>&1; then
    echo "valgrind-check: valgrind not found, nothing checked"
    exit 0
fi

logdir=$(mktemp -d "${TMPDIR:-/tmp}/dmesh-valgrind.XXXXXX") || exit 1
trap 'rm -rf "$logdir"' EXIT
DMESH_TEST_LAUNCHER="valgrind --leak-check=full --show-leak-kinds=definite,indirect --num-callers=40 --log-file=$logdir/vg.%p.log"
DMESH_TEST_TIMEOUT=${DMESH_TEST_TIMEOUT:-900}
export DMESH_TEST_LAUNCHER DMESH_TEST_TIMEOUT

"$MPIRUN" "$np" "$prog"
status=$?
if [ "$status" -eq 77 ]; then
    echo "valgrind-check: $np ranks not allowed here (DMESH_TEST_MAX_NP), nothing checked"
    exit 0
fi
if [ "$status" -ne 0 ]; then
    echo "valgrind-check: note: $prog exited with status $status under valgrind (not a leak)"
fi
set -- "$logdir"/vg.*.log
if [ ! -f "$1" ]; then
    echo "valgrind-check: FAILED: valgrind wrote no log (did the program start?)"
    exit 1
fi

# Source files of the library (lib/ and its fault-tolerance folder lib/ft/),
# as valgrind prints them: "(mesh.c:123)".
libfiles=$(cd "$srcdir/lib" 2>/dev/null && ls *.c ft/*.c 2>/dev/null | sed 's/\.c$//; s,^ft/,,' | tr '\n' '|' |
    sed 's/|$//')
[ -n "$libfiles" ] || libfiles=mesh

awk -v libfiles="$libfiles" '
function is_alloc(f) {
    return f ~ /vg_replace_malloc|vgpreload_memcheck|libc\.so|\((vasprintf|asprintf|vsnprintf|strdup|strndup|memstream|genops|iofopen|fopen|getdelim|setenv|tsearch)\.c:/
}
function is_dmesh(f) {
    return f ~ /[ :]dmesh_[A-Za-z0-9_]+ \(/ || f ~ /libdmesh/ || f ~ ("\\((" libfiles ")\\.c:[0-9]+\\)") || f ~ /\/lib\/(ft\/)?[A-Za-z0-9_]+\.c:/
}
function finish() {
    if (!inblock) return
    inblock = 0
    verdict = ""
    for (i = 1; i <= nframes; i++) {
        if (is_alloc(frames[i])) continue
        verdict = is_dmesh(frames[i]) ? "dmesh" : "other"
        break
    }
    if (verdict == "dmesh") {
        bad++
        print "valgrind-check: " kind " in dmesh (" FILENAME "):\n" block "\n"
    } else {
        for (i = 1; i <= nframes; i++)
            if (is_dmesh(frames[i])) { notes++; break }
    }
}
FNR == 1 { finish() }
/are (definitely|indirectly) lost in loss record/ {
    finish(); inblock = 1; kind = "LEAK"; block = $0; nframes = 0; next
}
/^==[0-9]+== Invalid (read|write|free)/ {
    finish(); inblock = 1; kind = "INVALID ACCESS"; block = $0; nframes = 0; next
}
inblock {
    if ($0 ~ /^==[0-9]+== *$/) { finish(); next }
    block = block "\n" $0
    if ($0 ~ /(at|by) 0x[0-9A-Fa-f]+:/) frames[++nframes] = $0
}
END {
    finish()
    if (notes > 0)
        print "valgrind-check: note: " notes " lost block(s) allocated inside MPI under dmesh calls (not counted)"
    if (bad > 0) { print "valgrind-check: FAILED: " bad " lost block(s) allocated by dmesh or invalid access(es) in it"; exit 1 }
    print "valgrind-check: no lost block allocated by dmesh, no invalid access in it"
}' "$@"
