#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Validate dmesh's GPU path on a real GPU node in one command (also
# `make check-gpu`):
#   test/gpu/run-device.sh [BUILD_DIR]      (default: ./_build, or "." in a build tree)
# Builds if needed, prints nvidia-smi, the node's topology and dmesh's plan
# for it, then runs the GPU test (test/gpu/test_gpu_mesh: blocking,
# non-blocking and lazy NCCL communicators) at 1 rank, at 2 ranks on one
# GPU (every rank must fail cleanly with "share GPU", not hang) and at one
# rank per GPU, with NCCL_DEBUG=INFO captured to a log; then copies of
# device memory ordered with a kernel on a non-blocking stream
# (test/gpu/copies_stream.cu, built with nvcc) at 1 and 2 ranks. Exit status: 0 all passed, 77 no GPU (cudaErrorNoDevice), 1 else.
# Output and logs go to $DMESH_GPU_LOG_DIR (default BUILD_DIR/gpu-validation).
set -u

top=$(cd "$(dirname "$0")/../.." && pwd)
if [ $# -ge 1 ]; then
    build=$1
elif [ -f ./test/mpirun.sh ]; then
    build=.
else
    build=$top/_build
fi
[ -f "$build/Makefile" ] || { mkdir -p "$build" && (cd "$build" && "$top/configure" >/dev/null) ||
    { echo "run-device: configure failed" >&2; exit 1; }; }
build=$(cd "$build" && pwd)
make -C "$build" -j"$(nproc 2>/dev/null || echo 2)" >/dev/null &&
    make -C "$build" test/gpu/test_gpu_mesh tools/dmesh-info >/dev/null ||
    { echo "run-device: build failed (configure --with-cuda --with-nccl?)" >&2; exit 1; }
test=$build/test/gpu/test_gpu_mesh
mpirun=$build/test/mpirun.sh
logs=${DMESH_GPU_LOG_DIR:-$build/gpu-validation}
# the script's own variable: dmesh warns of DMESH_* names it does not know
unset DMESH_GPU_LOG_DIR
mkdir -p "$logs"
failed=0

section() { printf '\n=== %s\n' "$*"; }

section "node: $(hostname) $(date -u +%Y-%m-%dT%H:%MZ)"
command -v nvidia-smi >/dev/null && nvidia-smi || echo "nvidia-smi not found"
ngpu=$("$test" --count)
rc=$?
if [ "$rc" -eq 77 ]; then
    echo "run-device: no GPU (cudaErrorNoDevice): skipped"
    exit 77
fi
[ "$rc" -eq 0 ] || { echo "run-device: CUDA fails on this node (not a missing GPU)"; exit 1; }
echo "visible GPUs: $ngpu"

section "topology (lstopo-no-graphics --of xml) and dmesh's plan"
if command -v lstopo-no-graphics >/dev/null; then
    lstopo-no-graphics --of xml >"$logs/topology.xml" 2>/dev/null && echo "saved $logs/topology.xml"
    lstopo-no-graphics --no-caches 2>/dev/null | head -n 40
    for bind in none core socket; do
        "$build/tools/dmesh-info" --plan --topology "$logs/topology.xml" \
            --ranks-per-node "$ngpu" --bind "$bind"
    done
else
    echo "lstopo-no-graphics not found (Debian: hwloc)"
fi

# run NAME NP [VAR=VALUE...]: the GPU test at NP ranks, NCCL_DEBUG=INFO to a log.
run() {
    name=$1
    np=$2
    shift 2
    section "$name: $np rank(s) $*"
    env NCCL_DEBUG=INFO NCCL_DEBUG_FILE="$logs/nccl-$name.%h.%p.log" DMESH_DEBUG=1 \
        DMESH_TEST_MAX_NP=64 DMESH_TEST_TIMEOUT=300 "$@" \
        "$mpirun" "$np" "$test" >"$logs/$name.log" 2>&1
    status=$?
    tail -n 25 "$logs/$name.log"
    if [ "$status" -eq 0 ]; then
        echo "--- $name: PASS"
    else
        echo "--- $name: FAIL (status $status; $logs/$name.log)"
        failed=1
    fi
}

# The GPU test has blocking, non-blocking (nccl_blocking=0) and lazy
# (dmesh_nccl_init=lazy) cases of its own.
run one-rank 1
# Two ranks on one GPU: the clean "share GPU" error on every rank; a hang
# ends in the timeout and fails.
run shared-gpu 2 CUDA_VISIBLE_DEVICES="${CUDA_VISIBLE_DEVICES:-0}"
if [ "$ngpu" -ge 2 ]; then
    np=$ngpu
    [ "$np" -gt 8 ] && np=8
    run "one-per-gpu-$np" "$np"
fi
# Copies of device memory ordered with the program's work
# (test/gpu/copies_stream.cu, built here with nvcc against the build's
# libdmesh): a kernel on a non-blocking stream writes the buffer just
# before the store, and a kernel reads it right after the restore.
section "copies ordered with a non-blocking stream"
nvcc=$(command -v nvcc || echo "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc")
mpicc=${MPICC:-mpicc}
mpi_cflags=$("$mpicc" --showme:compile 2>/dev/null || "$mpicc" -compile_info | cut -d' ' -f2-)
mpi_libs=$("$mpicc" --showme:link 2>/dev/null || "$mpicc" -link_info | cut -d' ' -f2-)
mpi_libs=$(echo "$mpi_libs" | sed 's/-Wl,/-Xlinker /g; s/-pthread//g')
# shellcheck disable=SC2086 # the flags are words
if "$nvcc" -o "$build/test/gpu/copies_stream" "$top/test/gpu/copies_stream.cu" \
    -I"$top/include" -I"$build/include" $mpi_cflags -L"$build/lib/.libs" -ldmesh \
    -Xlinker -rpath -Xlinker "$build/lib/.libs" $mpi_libs >"$logs/copies_stream-build.log" 2>&1; then
    for np in 1 2; do
        [ "$np" -le "$ngpu" ] || continue
        DMESH_TEST_MAX_NP=64 "$mpirun" "$np" "$build/test/gpu/copies_stream" \
            >"$logs/copies_stream-$np.log" 2>&1
        status=$?
        tail -n 5 "$logs/copies_stream-$np.log"
        if [ "$status" -eq 0 ]; then
            echo "--- copies_stream $np: PASS"
        else
            echo "--- copies_stream $np: FAIL (status $status; $logs/copies_stream-$np.log)"
            failed=1
        fi
    done
else
    echo "--- copies_stream: build FAIL ($logs/copies_stream-build.log)"
    failed=1
fi
# The NCCL creation strategies side by side on the real NCCL (figures only).
section "dmesh-bench --nccl (1 rank)"
"$mpirun" 1 "$build/tools/dmesh-bench" --nccl --reps 5 >"$logs/bench-nccl.log" 2>&1 || failed=1
cat "$logs/bench-nccl.log"
section "summary: $([ $failed -eq 0 ] && echo PASS || echo FAIL); logs in $logs"
exit $failed
