/* SPDX-License-Identifier: BSD-3-Clause */
// Every public header must compile as C++ and link against the C library.
#include "dmesh.h"
#include "dmesh_layout.h"
#ifdef DMESH_TEST_NCCL_HEADER
#include "dmesh_nccl.h"
#endif

#include <cstdio>
#include <cstring>

int main()
{
    dmesh_axis_t a;
    if (dmesh_axis_parse("(2,4):(4,1)", &a) != DMESH_SUCCESS || a.natoms != 2)
        return 1;
    if (std::strcmp(dmesh_error_string(DMESH_ERR_NAME), dmesh_error_string(DMESH_SUCCESS)) == 0)
        return 1;
    std::printf("C++ sees dmesh %s\n", DMESH_VERSION_STRING);
    return 0;
}
