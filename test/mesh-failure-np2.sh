#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# test_mesh_failure at 2 ranks (run by make check from the build directory).
exec "$MPIRUN" 2 ./test/test_mesh_failure
