#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# bench-sweep.sh: run dmesh-bench's creation benchmark over several world
# sizes and write a CSV and an SVG plot of time against ranks for dmesh_init,
# baseline A (one MPI_Comm_split per dim) and baseline B (one MPI_Comm_create
# per group, a new_group loop).
#
#   tools/bench-sweep.sh [OUTDIR]        (from the build directory)
#
# Writes OUTDIR/bench-sweep.csv (one row per world size, the columns of
# `dmesh-bench --csv`) and OUTDIR/bench-sweep.svg. Environment:
#   DMESH_BENCH    the benchmark (default ./tools/dmesh-bench, else on PATH)
#   MPIEXEC        launcher (default mpiexec); MPIEXEC_FLAGS (default
#                  --oversubscribe, for Open MPI on a machine with few cores)
#   RANKS          world sizes (default "2 4 8 16 32")
#   REPS, WARMUP   repetitions per case (default 20, 3)
#   BENCH_ARGS     more dmesh-bench options (e.g. --shape is not useful here:
#                  each size uses its default shape, up to 3 balanced dims)
# gnuplot (Debian package gnuplot-nox) is installed with apt-get when missing.
set -eu

out=${1:-.}
bench=${DMESH_BENCH:-./tools/dmesh-bench}
[ -x "$bench" ] || bench=$(command -v dmesh-bench) || {
    echo "bench-sweep: dmesh-bench not found (set DMESH_BENCH)" >&2
    exit 1
}
mpiexec=${MPIEXEC:-mpiexec}
flags=${MPIEXEC_FLAGS---oversubscribe}
ranks=${RANKS:-2 4 8 16 32}
reps=${REPS:-20}
warmup=${WARMUP:-3}
csv=$out/bench-sweep.csv
svg=$out/bench-sweep.svg
# Open MPI refuses to run as root without these (containers, CI); its TCP
# transport over IPv6 only warns ("Unable to find reachable pairing").
OMPI_ALLOW_RUN_AS_ROOT=1
OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
OMPI_MCA_btl_tcp_disable_family=${OMPI_MCA_btl_tcp_disable_family:-6}
export OMPI_ALLOW_RUN_AS_ROOT OMPI_ALLOW_RUN_AS_ROOT_CONFIRM OMPI_MCA_btl_tcp_disable_family

mkdir -p "$out"
tmp=$(mktemp)
trap 'rm -f "$tmp" "$tmp.gp"' EXIT

first=1
for np in $ranks; do
    echo "bench-sweep: $np ranks" >&2
    # shellcheck disable=SC2086 # flags and BENCH_ARGS are word lists
    $mpiexec $flags -n "$np" "$bench" --create-only --csv --reps "$reps" --warmup "$warmup" \
        ${BENCH_ARGS:-} >"$tmp"
    if [ $first = 1 ]; then
        head -n 1 "$tmp" >"$csv"
        first=0
    fi
    tail -n 1 "$tmp" >>"$csv"
done
echo "bench-sweep: wrote $csv" >&2

if ! command -v gnuplot >/dev/null 2>&1; then
    echo "bench-sweep: installing gnuplot-nox" >&2
    sudo=
    [ "$(id -u)" = 0 ] || sudo=sudo
    $sudo apt-get update -qq && $sudo apt-get install -y -qq gnuplot-nox >/dev/null
fi

# Column numbers of the series, from the CSV header.
col() {
    head -n 1 "$csv" | tr ',' '\n' | grep -n -x "$1" | cut -d: -f1
}
a=$(col A_median_us)
b=$(col B_median_us)
init=$(col init_median_us)
check=$(col init_check_median_us)
first=$(col first_median_us)
cat >"$tmp.gp" <<EOF
set terminal svg size 820,520 dynamic font "sans,12" background "white"
set output "$svg"
set termoption noenhanced
set datafile separator ","
set title "Creating the communicators of a mesh (median of $reps reps, max over ranks)"
set xlabel "ranks (Open MPI, $(nproc 2>/dev/null || echo '?') cores, oversubscribed)"
set ylabel "time (us, log scale)"
set logscale x 2
set logscale y
set key top left
set grid
plot "$csv" every ::1 using 1:$b with linespoints lw 2 pt 7 lc rgb "#c0392b" title "baseline B: MPI_Comm_create per group", \\
     "$csv" every ::1 using 1:$check with linespoints lw 2 pt 5 lc rgb "#1f4e99" title "dmesh_init (checks on, repeated)", \\
     "$csv" every ::1 using 1:$init with linespoints lw 2 pt 4 lc rgb "#3a9ad9" title "dmesh_init (checks off, repeated)", \\
     "$csv" every ::1 using 1:$first with linespoints lw 1 pt 6 dt 2 lc rgb "#7f7f7f" title "dmesh_init, first mesh on a new comm", \\
     "$csv" every ::1 using 1:$a with linespoints lw 2 pt 9 lc rgb "#2e8b57" title "baseline A: MPI_Comm_split per dim"
EOF
gnuplot "$tmp.gp"
echo "bench-sweep: wrote $svg" >&2
