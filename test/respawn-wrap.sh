#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# A launch wrapper as sites write them (test/respawn.sh): sets a variable
# and execs the program with its arguments. test_respawn_args checks that a
# respawned process started through it too.
DMESH_TEST_WRAPPED=yes
export DMESH_TEST_WRAPPED
exec "$@"
