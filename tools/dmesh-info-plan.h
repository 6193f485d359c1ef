/* SPDX-License-Identifier: BSD-3-Clause */
/* dmesh-info --plan: the GPU binding plan of an hwloc XML topology. */
#ifndef DMESH_INFO_PLAN_H
#define DMESH_INFO_PLAN_H

/* Parse "--plan --topology FILE.xml --ranks-per-node N [--bind core|socket|
 * numa|none]" (argv[0] is the program; --plan may appear anywhere) and print,
 * for each local rank, the GPU that dmesh would bind and why. Needs no MPI
 * and no GPU. Returns 0, 1 on failure (or when dmesh was built without
 * hwloc), 2 on a usage error. */
int dmesh_info_plan(int argc, char **argv);

#endif /* DMESH_INFO_PLAN_H */
