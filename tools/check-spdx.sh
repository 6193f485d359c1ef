#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# check-spdx.sh [--fix] [FILE...]: every source file of dmesh carries the line
# "SPDX-License-Identifier: BSD-3-Clause" in its first 3 lines, as a comment
# of its language. Without FILEs, checks the files git tracks (run from a
# checkout; in a release tarball, without git, it skips with status 77).
# --fix adds the line where it is missing (after a #! line), for new files.
# Data (topologies, figures, tables), LICENSE and NEWS are not source files.
set -u
fix=0
[ "${1:-}" = --fix ] && { fix=1; shift; }
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top" || exit 1
tag="SPDX-License-Identifier: BSD-3-Clause"

if [ $# -eq 0 ]; then
    { command -v git >/dev/null 2>&1 && git rev-parse --is-inside-work-tree >/dev/null 2>&1; } ||
        { echo "check-spdx: not a git checkout: skipped"; exit 77; }
    set -- $(git ls-files)
fi

# The comment line for a file in $line, or nothing for files that are not
# source (no subshell: this runs once per tracked file).
comment() {
    case $1 in
    LICENSE | NEWS | *.xml | *.svg | *.csv | *.png) line= ;;
    *.c | *.h | *.cc | *.h.in) line="/* $tag */" ;;
    *.F90 | *.f90 | *.inc) line="! $tag" ;;
    *.md) line="<!-- $tag -->" ;;
    *.[1-9] | *.[1-9].in) line=".\\\" $tag" ;;
    *) line="# $tag" ;;
    esac
}

bad=0
for f in "$@"; do
    [ -f "$f" ] || continue
    comment "$f"
    [ -n "$line" ] || continue
    # the first 3 lines, read by the shell itself
    n=0 found=0
    while [ $n -lt 3 ] && IFS= read -r l; do
        case $l in *"$tag"*) found=1; break ;; esac
        n=$((n + 1))
    done <"$f"
    [ $found -eq 0 ] || continue
    if [ "$fix" -eq 1 ]; then
        tmp=$f.spdx.$$
        # After a #! line, and after a Markdown title (Doxygen takes the
        # first line of a page as its title).
        if head -n 1 "$f" | grep -q '^#!' || { case $f in *.md) head -n 1 "$f" | grep -q '^# ' ;; *) false ;; esac; }; then
            { head -n 1 "$f"; echo "$line"; tail -n +2 "$f"; } >"$tmp"
        else
            { echo "$line"; cat "$f"; } >"$tmp"
        fi
        cat "$tmp" >"$f" && rm -f "$tmp"
        echo "check-spdx: added to $f"
    else
        echo "check-spdx: no SPDX line in $f (expected: $line)"
        bad=1
    fi
done
exit $bad
