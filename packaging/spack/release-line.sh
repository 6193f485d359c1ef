#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Print the Spack version line of a release tarball:
#   packaging/spack/release-line.sh dmesh-X.Y.Z.tar.gz
#   ->     version("X.Y.Z", sha256="...")
# Run it on the very tarball that is published (make dist / make distcheck
# at the release tag): a tarball made again later differs (file times), so
# its sha256 would not match. Paste the line into
# spack_repo/dmesh/packages/dmesh/package.py above the older releases, then
# check it with check-recipe.py --tarball dmesh-X.Y.Z.tar.gz.
set -eu
if [ $# -ne 1 ]; then
    echo "usage: $0 dmesh-X.Y.Z.tar.gz" >&2
    exit 2
fi
tarball=$1
base=$(basename "$tarball")
case $base in
dmesh-*.tar.gz) ;;
*)
    echo "$0: $base is not named dmesh-VERSION.tar.gz (the name make dist gives)" >&2
    exit 2
    ;;
esac
v=${base#dmesh-}
v=${v%.tar.gz}
# A make dist tarball has a configure script (no autotools needed to build).
if ! tar -tzf "$tarball" "dmesh-$v/configure" >/dev/null 2>&1; then
    echo "$0: $tarball has no dmesh-$v/configure: not a make dist tarball" >&2
    exit 1
fi
sum=$(sha256sum "$tarball" | cut -d' ' -f1)
printf '    version("%s", sha256="%s")\n' "$v" "$sum"
