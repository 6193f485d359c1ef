#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# make check: the example flatten on 2 ranks.
exec "$MPIRUN" 2 ./examples/flatten
