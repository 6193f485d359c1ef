#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# heat2d on 4 ranks: dmesh and MPI_Cart solvers agree bit for bit.
. "$top_srcdir/test/heat2d-compare.sh" 4
