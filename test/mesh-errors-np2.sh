#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# test_mesh_errors at 2 rank(s) (run by make check from the build directory).
exec "$MPIRUN" 2 ./test/test_mesh_errors
