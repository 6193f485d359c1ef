#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# make check: the example hello_mesh_f08 on 2 ranks.
exec "$MPIRUN" 2 ./examples/hello_mesh_f08
