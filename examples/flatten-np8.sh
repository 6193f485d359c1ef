#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# make check: the example flatten on 8 ranks.
exec "$MPIRUN" 8 ./examples/flatten
