#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# test_mesh at 4 rank(s) (run by make check from the build directory).
exec "$MPIRUN" 4 ./test/test_mesh
