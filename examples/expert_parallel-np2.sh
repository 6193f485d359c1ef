#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# make check: the example expert_parallel on 2 ranks.
exec "$MPIRUN" 2 ./examples/expert_parallel
