/* SPDX-License-Identifier: BSD-3-Clause */
/* dmesh-info --plan without hwloc: there is no topology to read. */
#include "config.h"

#include <stdio.h>

#include "dmesh-info-plan.h"

int dmesh_info_plan(int argc, char **argv)
{
    (void)argc;
    fprintf(stderr,
            "%s: --plan needs hwloc, and dmesh was built without it "
            "(configure --with-hwloc)\n",
            argv[0]);
    return 1;
}
