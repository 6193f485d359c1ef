#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
# make check: every tracked source file has its SPDX line (tools/check-spdx.sh;
# skipped outside a git checkout, e.g. in make distcheck).
exec "$top_srcdir/tools/check-spdx.sh"
