#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# make check: the example hello_mesh_fortran on 8 ranks.
exec "$MPIRUN" 8 ./examples/hello_mesh_fortran
