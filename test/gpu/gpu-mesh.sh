#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# make check: meshes on real GPUs with NCCL, one rank per visible GPU (at
# most 8). Skipped (exit 77) on a machine without a usable GPU.
n=$(./test/gpu/test_gpu_mesh --count) || exit $?
[ "$n" -gt 8 ] && n=8
exec "$MPIRUN" "$n" ./test/gpu/test_gpu_mesh
