#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# Creation cost of a mesh's communicators at scale, under SimGrid's SMPI:
# tools/bench-scale (five ways: dmesh_init, dmesh_init with
# dmesh_comm_create=split, MPI_Cart_create + MPI_Cart_sub, raw
# MPI_Comm_split, every rank MPI_Comm_create-ing every group) on 3-D and
# 4-D meshes, from 64 simulated ranks up, on clusters of 8-core hosts
# (test/smpi/platform.sh, block placement), in two modes:
#   comm     --cfg=smpi/simulate-computation:no: communication only, the
#            code between MPI calls costs no simulated time
#   compute  the CPU time of the code between MPI calls is measured on
#            this machine and injected (host speed = the model's 100 Gflop/s
#            per core: one measured second is one simulated second)
# Time inside the MPI library (SMPI's own group and communicator handling)
# is never charged in either mode. Collectives: logarithmic algorithms,
# as an MPI picks at scale (recursive doubling allreduce and allgather,
# binomial reduce, broadcast and gather, recursive doubling barrier).
# SMPI's defaults have the root of a reduction wait on one request per
# rank, MPI_Waitany over all of them each time: quadratic simulation work,
# minutes per allreduce at 16,384 ranks. SMPI's "ompi" and "mpich"
# selectors detect the hosts of every new communicator at its first
# collective, an allgather over it: over 10 minutes at 4,096 ranks.
# (MPI_Comm_split in SMPI still gathers at rank 0 and answers every rank
# from there: the split baselines cost the most simulation time.)
# Privatisation of each rank's globals: mmap (smpi/privatization:mmap).
# smpirun's default, dlopen, loads one copy of the program per rank, about
# 7 memory maps each: past about 9,000 ranks that exceeds Linux's
# vm.max_map_count (65,530), and dlopen fails. Simulated times are the
# same either way.
#
#   tools/bench-scale.sh [-b BUILD] [-o OUT] [-s SIZES] [-d DIMS] [-m MODES]
#                        [-t SECONDS] [-x MAX] [-p CSV]
# BUILD: a build configured with --with-smpi (default _build-smpi); OUT:
# output directory (default bench-scale); SIZES (default "64 256 1024 4096
# 16384 65536"), DIMS ("3 4"), MODES ("comm compute"); -t bounds each
# simulation (default 1800 s); -x: the largest size for create_all
# (default 4096, see tools/bench-scale.c). A series stops at the first size
# that fails, times out, or whose memory (the previous size's peak, scaled)
# would not fit in MemAvailable; OUT/stops.txt says where and why.
# Writes OUT/bench-scale.csv and OUT/bench-scale.svg (log-log, awk: no
# other dependency) and prints the CSV. Targets are printed, not asserted.
# Run it with nice on a shared machine: one simulation at a time.
# -p CSV: no simulation, only the targets and the SVG (in OUT) of a CSV
# (several runs' CSVs concatenated, one header line).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
build=_build-smpi out=bench-scale sizes="64 256 1024 4096 16384 65536" dims="3 4"
modes="comm compute" limit=1800 max_create_all=4096
algorithms="--cfg=smpi/allreduce:rdb --cfg=smpi/allgather:rdb --cfg=smpi/reduce:binomial
    --cfg=smpi/bcast:binomial_tree --cfg=smpi/gather:ompi_binomial --cfg=smpi/barrier:ompi_recursivedoubling"
plot=
while getopts b:o:s:d:m:t:x:p: opt; do
    case $opt in
    b) build=$OPTARG ;;
    o) out=$OPTARG ;;
    s) sizes=$OPTARG ;;
    d) dims=$OPTARG ;;
    m) modes=$OPTARG ;;
    t) limit=$OPTARG ;;
    x) max_create_all=$OPTARG ;;
    p) plot=$OPTARG ;;
    *) sed -n '2,30s/^# \{0,1\}//p' "$0" >&2; exit 2 ;;
    esac
done
mkdir -p "$out"
if [ -n "$plot" ]; then
    csv=$plot
else
    prog=$build/tools/bench-scale
    [ -x "$prog" ] || { echo "$0: no $prog: make -C $build tools/bench-scale (configured --with-smpi)" >&2; exit 2; }
    command -v smpirun >/dev/null 2>&1 || { echo "$0: smpirun not found (libsimgrid-dev)" >&2; exit 2; }
    csv=$out/bench-scale.csv
    echo "mode,ranks,ndims,method,time_s,heap_per_rank_B,comms_mpi,wall_s,peak_rss_kB" >"$csv"
    : >"$out/stops.txt"
    timer=
    [ -x /usr/bin/time ] && timer="/usr/bin/time -f %M -o $out/rss"
    for mode in $modes; do
        case $mode in
        comm) cfg="--cfg=smpi/simulate-computation:no" ;;
        compute) cfg="--cfg=smpi/simulate-computation:yes" ;;
        *) echo "$0: mode $mode: comm or compute" >&2; exit 2 ;;
        esac
        for nd in $dims; do
            prev_n=0 prev_rss=0
            for n in $sizes; do
                avail=$(awk '/^MemAvailable:/ {print $2}' /proc/meminfo)
                if [ "$prev_rss" -gt 0 ]; then
                    need=$((prev_rss / prev_n * n * 5 / 4))
                    if [ "$need" -gt "$avail" ]; then
                        echo "$mode ${nd}-D: stopped before $n ranks: about $((need / 1048576)) GiB needed" \
                            "($prev_n ranks took $((prev_rss / 1024)) MiB), $((avail / 1048576)) GiB available" |
                            tee -a "$out/stops.txt"
                        break
                    fi
                fi
                "$top/test/smpi/platform.sh" -p "$out/cluster-$n" "$n" || exit 1
                log=$out/run-$mode-$nd-$n.log
                start=$(date +%s)
                # shellcheck disable=SC2086
                $timer timeout -k 30 "$limit" smpirun -platform "$out/cluster-$n.xml" \
                    -hostfile "$out/cluster-$n.block" -np "$n" $cfg --cfg=smpi/privatization:mmap --cfg=smpi/host-speed:100Gf $algorithms \
                    --log=root.thres:error "$prog" -d "$nd" -x "$max_create_all" -l "$mode" >"$log" 2>&1
                rc=$?
                wall=$(($(date +%s) - start))
                rss=0
                [ -n "$timer" ] && rss=$(tail -n 1 "$out/rss" 2>/dev/null | tr -cd 0-9)
                rm -f "$out/cluster-$n.xml" "$out/cluster-$n.block" "$out/cluster-$n.cyclic"
                if [ $rc -ne 0 ] || ! grep -q "^$mode,$n," "$log"; then
                    why="exit $rc"
                    [ $rc -eq 124 ] && why="timed out after $limit s"
                    echo "$mode ${nd}-D: stopped at $n ranks: $why ($wall s; $log)" | tee -a "$out/stops.txt"
                    break
                fi
                grep "^$mode,$n," "$log" | sed "s/\$/,$wall,${rss:-0}/" >>"$csv"
                echo "$mode ${nd}-D $n ranks: $wall s, peak RSS $((${rss:-0} / 1024)) MiB" >&2
                prev_n=$n prev_rss=${rss:-0}
            done
        done
    done
fi
cat "$csv"

# Targets (reported, never asserted), at the largest size of each series
# (16,384 ranks when reached): dmesh_init (cold and warm) against cart_sub
# (target <= 1.0) and create_all (>= 50; only where create_all ran), its
# growth from 1,024 ranks (<= 2 at 16,384), its heap per rank at 1,024
# and at the largest size.
awk -F, 'NR > 1 { k = $1 "," $3; t[k "," $4 "," $2] = $5; h[k "," $4 "," $2] = $6
                  if ($4 == "dmesh_init_warm" && $2 > big[k]) big[k] = $2
                  if ($4 == "create_all" && $2 > cbig[k]) cbig[k] = $2 }
    END {
        for (m in big) {
            split(m, p, ","); n = big[m]; c = cbig[m]
            printf "targets %s %s-D at %d ranks:", p[1], p[2], n
            if (t[m ",cart_sub," n] > 0)
                printf " dmesh_init/cart_sub %.2f cold, %.2f warm (target <= 1.0);",
                    t[m ",dmesh_init," n] / t[m ",cart_sub," n], t[m ",dmesh_init_warm," n] / t[m ",cart_sub," n]
            if (c != "" && t[m ",dmesh_init_warm," c] > 0)
                printf " create_all/dmesh_init_warm %.2f at %d (target >= 50);", t[m ",create_all," c] / t[m ",dmesh_init_warm," c], c
            if (n > 1024 && t[m ",dmesh_init,1024"] > 0)
                printf " dmesh_init %d/1024: %.2f (target <= 2);", n, t[m ",dmesh_init," n] / t[m ",dmesh_init,1024"]
            printf " heap per rank, dmesh_init_warm minus comm_split: %s B at 1024, %.0f B at %d;",
                h[m ",dmesh_init_warm,1024"] - h[m ",comm_split,1024"], h[m ",dmesh_init_warm," n] - h[m ",comm_split," n], n
            printf " split path: %.0f B, %.0f B\n", h[m ",dmesh_init_split,1024"] - h[m ",comm_split,1024"],
                h[m ",dmesh_init_split," n] - h[m ",comm_split," n]
        }
    }' "$csv" | sort | tee "$out/targets.txt"

# The SVG: one log-log panel of time against ranks per (mode, dims).
awk -F, -v W=480 -v H=340 '
    function lx(v) { return 60 + (log(v) - log(xmin)) / (log(xmax) - log(xmin)) * (W - 80) }
    function ly(v) { return H - 40 - (log(v) - log(ymin)) / (log(ymax) - log(ymin)) * (H - 70) }
    NR > 1 && $5 > 0 {
        key = $1 " " $3 "-D"; panels[key] = 1; methods[$4] = 1
        pts[key, $4] = pts[key, $4] " " $2 ":" $5
        if (xmin == "" || $2 < xmin) xmin = $2; if ($2 > xmax) xmax = $2
        if (ymin == "" || $5 < ymin) ymin = $5; if ($5 > ymax) ymax = $5
    }
    END {
        if (xmin == "") exit
        if (xmax == xmin) xmax = xmin * 2
        ymin = exp(log(ymin) - 0.2); ymax = exp(log(ymax) + 0.2)
        n = 0; for (k in panels) order[n++] = k
        for (i = 0; i < n; i++) for (j = i + 1; j < n; j++) if (order[j] < order[i]) { s = order[i]; order[i] = order[j]; order[j] = s }
        split("#1f77b4 #ff7f0e #2ca02c #d62728 #9467bd #8c564b", colour, " ")
        m = 0; for (k in methods) mlist[m++] = k
        for (i = 0; i < m; i++) for (j = i + 1; j < m; j++) if (mlist[j] < mlist[i]) { s = mlist[i]; mlist[i] = mlist[j]; mlist[j] = s }
        cols = 2; rows = int((n + 1) / 2)
        printf "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" height=\"%d\" font-family=\"sans-serif\" font-size=\"11\">\n", cols * W, rows * H + 30
        printf "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n"
        for (p = 0; p < n; p++) {
            ox = (p % cols) * W; oy = int(p / cols) * H
            printf "<g transform=\"translate(%d,%d)\">\n", ox, oy
            printf "<text x=\"%d\" y=\"16\" font-size=\"13\">%s: creation time (simulated s) vs ranks</text>\n", 60, order[p]
            printf "<rect x=\"60\" y=\"30\" width=\"%d\" height=\"%d\" fill=\"none\" stroke=\"black\"/>\n", W - 80, H - 70
            for (x = 1; x <= xmax * 1.01; x *= 4) if (x >= xmin * 0.99)
                printf "<line x1=\"%.1f\" y1=\"30\" x2=\"%.1f\" y2=\"%d\" stroke=\"#ddd\"/><text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">%d</text>\n", lx(x), lx(x), H - 40, lx(x), H - 26, x
            for (e = int(log(ymin) / log(10)) - 1; e <= int(log(ymax) / log(10)) + 1; e++) {
                y = exp(e * log(10)); if (y < ymin || y > ymax) continue
                printf "<line x1=\"60\" y1=\"%.1f\" x2=\"%d\" y2=\"%.1f\" stroke=\"#ddd\"/><text x=\"56\" y=\"%.1f\" text-anchor=\"end\">1e%d</text>\n", ly(y), W - 20, ly(y), ly(y) + 4, e
            }
            for (i = 0; i < m; i++) {
                if (pts[order[p], mlist[i]] == "") continue
                c = split(pts[order[p], mlist[i]], q, " "); line = ""
                for (j = 1; j <= c; j++) { split(q[j], xy, ":"); line = line sprintf("%.1f,%.1f ", lx(xy[1]), ly(xy[2]))
                    printf "<circle cx=\"%.1f\" cy=\"%.1f\" r=\"2.5\" fill=\"%s\"/>\n", lx(xy[1]), ly(xy[2]), colour[i + 1] }
                printf "<polyline points=\"%s\" fill=\"none\" stroke=\"%s\" stroke-width=\"1.5\"/>\n", line, colour[i + 1]
            }
            printf "</g>\n"
        }
        for (i = 0; i < m; i++)
            printf "<rect x=\"%d\" y=\"%d\" width=\"10\" height=\"10\" fill=\"%s\"/><text x=\"%d\" y=\"%d\">%s</text>\n", 60 + i * 150, rows * H + 8, colour[i + 1], 74 + i * 150, rows * H + 17, mlist[i]
        printf "</svg>\n"
    }' "$csv" >"$out/bench-scale.svg"
echo "wrote $csv, $out/bench-scale.svg, $out/targets.txt, $out/stops.txt" >&2
