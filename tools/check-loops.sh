#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# check-loops.sh [BUILD_DIR]: calls between the objects of lib/ go down only
# (doc/architecture.md, "Direction of calls"): the symbol references between
# the objects of libdmesh_core, as nm reads them, form no loop. Prints each
# loop (a strongly connected component of more than one object) with the
# references inside it, and fails (status 1) when there is one.
# BUILD_DIR: a configured build directory, brought up to date with
# `make lib/libdmesh_core.la`; without it _build when configured there,
# else _build-loops (configured with the defaults, made once and kept).
# $NM names the program (default nm). Then runs tools/check-rooms.sh on the
# same build: the objects are the rows doc/architecture.md draws, every
# reference goes down them. Run by .ci/run (stage object-loops) and make
# check-loops.
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
nm=${NM:-nm}
build=${1:-}
[ -n "$build" ] || [ ! -f "$top/_build/Makefile" ] || build=$top/_build
if [ -z "$build" ]; then
    build=$top/_build-loops
    if [ ! -f "$build/Makefile" ]; then
        (cd "$top" && { [ -x configure ] || autoreconf -fi >/dev/null 2>&1; }) &&
            mkdir -p "$build" && (cd "$build" && "$top/configure" >configure.out 2>&1) ||
            { echo "check-loops: configure failed (see $build/configure.out)" >&2; exit 2; }
    fi
fi
[ -f "$build/Makefile" ] || { echo "check-loops: $build is not a configured build directory" >&2; exit 2; }
make -s -C "$build" -j"$(nproc 2>/dev/null || echo 2)" lib/libdmesh_core.la >"$build/check-loops.out" 2>&1 ||
    { cat "$build/check-loops.out" >&2; echo "check-loops: building lib/libdmesh_core.la failed" >&2; exit 2; }
archive=$build/lib/.libs/libdmesh_core.a
[ -f "$archive" ] || { echo "check-loops: $archive not found" >&2; exit 2; }

# nm -P -A: "ARCHIVE[MEMBER]: NAME TYPE [VALUE SIZE]"; an object is named by
# its source file without its folder (lib_libdmesh_core_la-mesh.o: mesh; the
# archive holds those of lib/ft/ too). Globally defined symbols (upper-case
# types but U) are an object's; its U ones reference the object that
# defines them (symbols of other libraries define none).
status=0
LC_ALL=C "$nm" -P -A "$archive" | LC_ALL=C awk '
function object(s) {
    sub(/^.*\[/, "", s)
    sub(/\]:$/, "", s)
    sub(/^.*_la-/, "", s)
    sub(/\.o$/, "", s)
    return s
}
function strong(v,   k, w, n, members) {
    idx[v] = low[v] = ++counter
    stack[++sp] = v
    on[v] = 1
    for (k = 1; k <= deg[v]; k++) {
        w = to[v, k]
        if (!(w in idx)) {
            strong(w)
            if (low[w] < low[v])
                low[v] = low[w]
        } else if (on[w] && idx[w] < low[v])
            low[v] = idx[w]
    }
    if (low[v] != idx[v])
        return
    n = 0
    members = ""
    do {
        w = stack[sp--]
        on[w] = 0
        scc[w] = v
        members = n ? w " " members : w
        n++
    } while (w != v)
    if (n < 2)
        return
    loops++
    printf "check-loops: a loop of %d objects: %s\n", n, members
    for (k = 1; k <= nobj; k++)
        if (scc[obj[k]] == v)
            show(obj[k], v)
}
function show(a, v,   k, b) {
    for (k = 1; k <= deg[a]; k++) {
        b = to[a, k]
        if (scc[b] == v)
            printf "    %s -> %s (%s)\n", a, b, why[a, b]
    }
}
$1 ~ /\]:$/ {
    o = object($1)
    if (!(o in seen)) {
        seen[o] = 1
        obj[++nobj] = o
    }
    if ($3 == "U")
        ref[++nref] = o " " $2
    else if ($3 ~ /^[A-TV-Z]$/)
        def[$2] = o
}
END {
    for (i = 1; i <= nref; i++) {
        split(ref[i], r, " ")
        if (!(r[2] in def) || def[r[2]] == r[1] || (r[1], def[r[2]]) in why)
            continue
        why[r[1], def[r[2]]] = r[2]
        to[r[1], ++deg[r[1]]] = def[r[2]]
        edges++
    }
    for (k = 1; k <= nobj; k++)
        if (!(obj[k] in idx))
            strong(obj[k])
    if (loops) {
        printf "check-loops: %d loop%s between the objects of lib/: calls go down only\n", loops, loops == 1 ? "" : "s"
        exit 1
    }
    printf "check-loops: %d objects, %d references between them, no loop\n", nobj, edges
}' || status=1
NM=$nm sh "$top/tools/check-rooms.sh" "$build" || status=1
exit $status
