#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# hide-gpu-libs.sh [-L DIR]... COMMAND [ARG]...: run COMMAND on this machine
# as on a node without the CUDA runtime and NCCL (.ci/run's hidden-gpu-libs
# stage). In a private mount namespace (unshare -m: root, or
# a user namespace), /dev/null is bind-mounted over every libcudart.so* and
# libnccl.so* the loader could find: in the directories of ld.so.cache
# (ldconfig -p), of LD_LIBRARY_PATH, of /usr/local/cuda*, and each -L DIR
# (the build's CUDA_LDFLAGS / NCCL_LDFLAGS, which may be run paths). The
# files stay where they are, so the loader finds them and fails to map them
# ("file too short"), exactly as it fails on a node where they are missing;
# nothing outside the namespace sees a change.
#
# Before COMMAND it checks the hiding with a control: CONTROL (a program
# linked with libnccl and libcudart, from the environment) must fail to
# start with "error while loading shared libraries".
# Exit status: COMMAND's; 77 when no mount namespace can be made.
set -u
if [ "${DMESH_TEST_HIDE_GPU_LIBS_INSIDE:-}" != 1 ]; then
    DMESH_TEST_HIDE_GPU_LIBS_INSIDE=1
    export DMESH_TEST_HIDE_GPU_LIBS_INSIDE
    for how in "-m" "-r -m"; do
        # shellcheck disable=SC2086
        if unshare $how true 2>/dev/null; then
            exec unshare $how --propagation private sh "$0" "$@"
        fi
    done
    echo "hide-gpu-libs: cannot make a mount namespace (unshare -m: needs root or user namespaces)"
    exit 77
fi

dirs=
while [ $# -gt 1 ] && [ "$1" = -L ]; do
    dirs="$dirs $2"
    shift 2
done
dirs="$dirs $(ldconfig -p 2>/dev/null | sed -n 's/.*lib\(cudart\|nccl\)\.so.* => \(.*\)\/[^/]*$/\2/p')"
dirs="$dirs $(echo "${LD_LIBRARY_PATH:-}" | tr ':' ' ')"
dirs="$dirs $(ls -d /usr/local/cuda*/lib* /usr/local/cuda*/targets/*/lib 2>/dev/null)"
files=$(for d in $dirs; do
    for f in "$d"/libcudart.so* "$d"/libnccl.so*; do
        [ -f "$f" ] && readlink -f "$f"
    done
done | sort -u)
for f in $files; do
    mount --bind /dev/null "$f" || { echo "hide-gpu-libs: cannot hide $f"; exit 1; }
    echo "hide-gpu-libs: hidden $f"
done
[ -n "$files" ] || echo "hide-gpu-libs: no libcudart or libnccl found to hide"

if [ -n "${CONTROL:-}" ]; then
    out=$("$CONTROL" 2>&1)
    case $out in
    *"error while loading shared libraries"*)
        echo "hide-gpu-libs: control $CONTROL does not start: $(echo "$out" | head -n 1)" ;;
    *)
        echo "hide-gpu-libs: FAIL: control $CONTROL started with the libraries hidden: $out"
        exit 1 ;;
    esac
fi
exec "$@"
