#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# load-scale.sh SECONDS: print SECONDS scaled by the machine's load, for
# the bounds of the test harnesses (test/mpirun.sh's DMESH_TEST_TIMEOUT, the
# hosts harness, test/repeat.sh): SECONDS x max(1, loadavg / cores), rounded
# up, from the 1-minute load average (/proc/loadavg) and the cores online
# (getconf). A bound is there to fail a hang, not a slow but correct run:
# on a machine with more runnable work than cores each run slows down by
# about that ratio. DMESH_TEST_LOAD_SCALE=no prints SECONDS as it is (as does
# a system without /proc/loadavg); DMESH_TEST_LOAD_SCALE_MAX (default 8)
# caps the factor, so that a runaway load cannot turn a hang into hours.
secs=${1:?usage: load-scale.sh SECONDS}
case $secs in
'' | *[!0-9]*)
    echo "load-scale.sh: $secs: not a number of seconds" >&2
    exit 1
    ;;
esac
if [ "${DMESH_TEST_LOAD_SCALE:-yes}" = no ] || [ ! -r /proc/loadavg ]; then
    echo "$secs"
    exit 0
fi
cores=$(getconf _NPROCESSORS_ONLN 2>/dev/null || echo 1)
read -r load _ </proc/loadavg
awk -v s="$secs" -v l="$load" -v c="${cores:-1}" -v m="${DMESH_TEST_LOAD_SCALE_MAX:-8}" 'BEGIN {
    f = (c > 0) ? l / c : 1
    if (f < 1) f = 1
    if (m >= 1 && f > m) f = m
    t = s * f
    if (t > int(t)) t = int(t) + 1
    printf "%d\n", t
}'
