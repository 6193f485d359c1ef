#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# make check: dmesh-bench runs at small size and prints its table; no timing
# is asserted (exit status 0 unless a run fails or a check inside it does).
# Its --json output parses as JSON (python3's json.tool, where there is a
# python3), in MPI and layout-only mode: a value that could not be measured
# is null, never nan; the table never prints nan either.
set -e
out=$("$MPIRUN" 2 ./tools/dmesh-bench --reps 2 --warmup 1)
printf '%s\n' "$out"
nan='(^|[^A-Za-z])-?nan([^A-Za-z]|$)'
if printf '%s\n' "$out" | grep -qiE "$nan"; then
    echo "bench-smoke: the table prints nan"
    exit 1
fi
./tools/dmesh-bench --layout-only --world 4096 --reps 1
# json FILE: FILE parses as JSON and holds no nan.
json() {
    if grep -qiE "$nan" "$1"; then
        echo "bench-smoke: --json wrote nan:"
        cat "$1"
        exit 1
    fi
    if command -v python3 >/dev/null 2>&1; then
        python3 -m json.tool "$1" >/dev/null || { echo "bench-smoke: not JSON:"; cat "$1"; exit 1; }
        echo "bench-smoke: $2 --json parses as JSON"
    fi
}
"$MPIRUN" 2 ./tools/dmesh-bench --create-only --reps 2 --warmup 0 --json >bench-smoke.json
json bench-smoke.json "dmesh-bench --create-only"
./tools/dmesh-bench --layout-only --world 4096 --reps 1 --json >bench-smoke.json
json bench-smoke.json "dmesh-bench --layout-only"
rm -f bench-smoke.json
# --nccl on the NCCL test double (built with NCCL only)
if [ -x ./tools/dmesh-bench-double ]; then
    "$MPIRUN" 2 ./tools/dmesh-bench-double --nccl --reps 2 --warmup 0
    "$MPIRUN" 2 ./tools/dmesh-bench-double --create-only --reps 2 --warmup 0 --json >bench-smoke.json
    json bench-smoke.json "dmesh-bench-double --create-only"
    rm -f bench-smoke.json
fi
