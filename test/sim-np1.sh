#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# test_mesh_sim at 1 rank(s) (run by make check from the build directory).
exec "$MPIRUN" 1 ./test/test_mesh_sim
