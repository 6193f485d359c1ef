#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# check-rooms.sh [BUILD_DIR]: the house of lib/ is the one doc/architecture.md
# draws. Fails (status 1), naming what is wrong, when
#   - an object of lib/ (a .c file of lib/ or lib/ft/) is not on the drawing
#     of "Direction of calls", or the drawing names a file that is not there;
#   - a symbol reference between two objects of libdmesh_core (nm) does not
#     go down the drawing's rows (one of its own row or above): it names
#     both objects, their rows and the symbol;
#   - a stage of .ci/run that the page names does not exist, or the stage
#     it says runs this check does not run it;
#   - the tools' internal headers are not the ones its table lists (each
#     tool and the headers of lib/ it includes);
#   - a file that every build compiles tests a configure result
#     (#if/#ifdef DMESH_HAVE_*: Coding rules, optional dependencies); the
#     files allowed to are listed below, each with its reason.
# BUILD_DIR: a built build directory (lib/libdmesh_core.la up to date);
# without it the checks that need no build run alone. $NM names the
# program (default nm). Run by tools/check-loops.sh, so by .ci/run's stage
# object-loops and make check-loops.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
nm=${NM:-nm}
build=${1:-}
doc=$top/doc/architecture.md
bad=0

# The files that may test DMESH_HAVE_*: compiled in some builds only, or
# the one place of an MPI's property.
allowed_have="lib/gpu_lib.c lib/gpu_lib.h lib/comm_nccl.c lib/ulfm.c lib/pcomm.c"
#   gpu_lib.c, gpu_lib.h, comm_nccl.c: compiled with CUDA or NCCL only
#     (lib/gpu.mk), they test the NCCL's version features;
#   ulfm.c: the one file that includes <mpi-ext.h> (the MPI's ULFM);
#   pcomm.c: whether the MPI's MPI_Comm_idup works.

# The drawing: the code block after "## Direction of calls"; a row is the
# lines of object names between two lines that start with "|"; a line's
# objects are its leading words that end in .c.
rows=$(awk '
/^## Direction of calls/ { sect = 1; next }
sect && /^```/ { if (inside) exit; inside = 1; row = 1; n = 0; next }
!inside { next }
{
    line = $0
    sub(/^ +/, "", line)
    if (line ~ /^\|/) {
        if (n) row++
        n = 0
        next
    }
    k = split(line, w, / +/)
    for (i = 1; i <= k && w[i] ~ /^[a-z0-9_]+(\/[a-z0-9_]+)?\.c$/; i++) {
        print row, w[i]
        n++
    }
}' "$doc")
[ -n "$rows" ] || { echo "check-rooms: no drawing found in $doc (Direction of calls)" >&2; exit 2; }

# Every object of lib/ on the drawing, once, and nothing else.
files=$(cd "$top/lib" && ls *.c ft/*.c)
drawn=$(echo "$rows" | awk '{ print $2 }')
missing=$(printf '%s\n--\n%s\n' "$files" "$drawn" | awk '
    $0 == "--" { part = 2; next }
    part != 2 { file[$0] = 1; order[++n] = $0; next }
    { times[$0]++ }
    END {
        for (i = 1; i <= n; i++)
            if (times[order[i]] != 1)
                printf "check-rooms: lib/%s is on the drawing %d times (doc/architecture.md, Direction of calls): draw it once, in its row\n", order[i], times[order[i]]
        for (f in times)
            if (!(f in file))
                printf "check-rooms: the drawing names %s, which lib/ does not have\n", f
    }')
[ -z "$missing" ] || { echo "$missing"; bad=1; }

# The stages the page names exist; the one it says runs this check runs it.
# The page is read as one line, its spaces and line breaks one space each:
# a paragraph may break its line between "stage" and the name.
text=$(tr -s '[:space:]' ' ' <"$doc")
for s in $(printf '%s\n' "$text" | grep -o 'stage `[a-z0-9-]*`' | sed 's/.*`\(.*\)`/\1/' | sort -u); do
    grep -q "^stage $s " "$top/.ci/run" ||
        { echo "check-rooms: doc/architecture.md names stage $s, which .ci/run does not have"; bad=1; }
done
s=$(printf '%s\n' "$text" | grep -o '`\.ci/run` runs it in stage `[a-z0-9-]*`' | sed 's/.*`\(.*\)`$/\1/')
fn=$(awk -v s="$s" '$1 == "stage" && $2 == s { print $3 }' "$top/.ci/run")
if [ -z "$s" ] || [ -z "$fn" ] || ! grep -E "^$fn\(\)" "$top/.ci/run" | grep -q 'tools/check-loops\.sh'; then
    echo "check-rooms: doc/architecture.md says .ci/run runs the check in stage '$s', whose function ('$fn') does not run tools/check-loops.sh"
    bad=1
fi

# The tools' internal headers: the page's table (| `tools/X` | `H` ... |)
# against the includes of tools/ that name a header of lib/.
said=$(grep -E '^\| `tools/[^`]*` \|' "$doc" | awk -F'|' '{
    t = $2; gsub(/[ `]/, "", t)
    n = split($3, h, /,/)
    for (i = 1; i <= n; i++) { x = h[i]; gsub(/[ `]/, "", x); print t, x }
}' | sort)
have=$(cd "$top" && grep -H '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' tools/*.c tools/*.h |
    sed 's/^\([^:]*\):.*"\([^"]*\)".*/\1 \2/' | while read -r f h; do
        [ ! -f "lib/$h" ] || echo "$f $h"
    done | sort)
if [ "$said" != "$have" ]; then
    echo "check-rooms: the tools' internal headers are not the ones doc/architecture.md lists (< the page, > tools/):"
    diff -u0 /dev/fd/3 /dev/fd/4 3<<EOF 4<<EOF2 | grep '^[<>+-][^+-]' | sed 's/^-/  < /; s/^+/  > /'
$said
EOF
$have
EOF2
    bad=1
fi

# Coding rules, optional dependencies: no DMESH_HAVE_* test in a file that
# every build compiles.
for f in $(cd "$top" && grep -lE '^[[:space:]]*#[[:space:]]*(if|ifdef|ifndef|elif).*DMESH_HAVE_' lib/*.c lib/*.h lib/ft/*.c lib/ft/*.h); do
    case " $allowed_have " in
    *" $f "*) ;;
    *)
        grep -nE '^[[:space:]]*#[[:space:]]*(if|ifdef|ifndef|elif).*DMESH_HAVE_' "$top/$f" | sed "s|^|$f:|"
        echo "check-rooms: $f tests a configure result (DMESH_HAVE_*): the code for a dependency lives in a file of its own (doc/architecture.md, Coding rules: optional dependencies)"
        bad=1
        ;;
    esac
done

# Every reference between the built objects goes down the rows.
if [ -n "$build" ]; then
    archive=$build/lib/.libs/libdmesh_core.a
    [ -f "$archive" ] || { echo "check-rooms: $archive not found" >&2; exit 2; }
    echo "$rows" | sed 's|[^ ]*/||; s/\.c$//' >"$build/check-rooms.rows"
    LC_ALL=C "$nm" -P -A "$archive" | LC_ALL=C awk -v rows="$build/check-rooms.rows" '
    BEGIN { while ((getline l < rows) > 0) { split(l, w, " "); row[w[2]] = w[1] } }
    function object(s) {
        sub(/^.*\[/, "", s); sub(/\]:$/, "", s); sub(/^.*_la-/, "", s); sub(/\.o$/, "", s)
        return s
    }
    $1 ~ /\]:$/ {
        o = object($1)
        objs[o] = 1
        if ($3 == "U") ref[++nref] = o " " $2
        else if ($3 ~ /^[A-TV-Z]$/) def[$2] = o
    }
    END {
        for (o in objs)
            if (!(o in row)) {
                printf "check-rooms: object %s is not on the drawing (doc/architecture.md, Direction of calls)\n", o
                bad = 1
            }
        for (i = 1; i <= nref; i++) {
            split(ref[i], r, " ")
            a = r[1]; b = def[r[2]]
            if (b == "" || a == b || (a, b) in seen) continue
            seen[a, b] = 1
            edges++
            if ((a in row) && (b in row) && row[b] <= row[a]) {
                printf "check-rooms: %s (row %d) references %s (row %d%s) through %s: calls go down the drawing only\n", a, row[a], b, row[b], row[b] == row[a] ? ", its own" : ", above it", r[2]
                bad = 1
            }
        }
        if (bad) exit 1
        printf "check-rooms: %d objects in rows, %d references between them, all going down\n", length(objs), edges
    }' || bad=1
fi
[ $bad -eq 0 ] || { echo "check-rooms: the house of lib/ is not the one doc/architecture.md draws"; exit 1; }
echo "check-rooms: the drawing, the stages, the tools' headers and the optional dependencies' files agree with the tree"
