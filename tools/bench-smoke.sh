#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# make check: dmesh-bench runs at small size and prints its table; no timing
# is asserted (exit status 0 unless a run fails or a check inside it does).
set -e
"$MPIRUN" 2 ./tools/dmesh-bench --reps 2 --warmup 1
./tools/dmesh-bench --layout-only --world 4096 --reps 1
# --nccl on the NCCL test double (built with NCCL only)
if [ -x ./tools/dmesh-bench-double ]; then
    "$MPIRUN" 2 ./tools/dmesh-bench-double --nccl --reps 2 --warmup 0
fi
