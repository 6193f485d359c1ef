#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# make check: the example expert_parallel on 8 ranks.
exec "$MPIRUN" 8 ./examples/expert_parallel
