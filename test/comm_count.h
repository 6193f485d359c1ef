/* SPDX-License-Identifier: BSD-3-Clause */
/* Communicators alive in this process, counted by PMPI wrappers of the MPI
 * calls that make and free them (test/comm_count.c), so that a test can
 * check that nothing dmesh made was left behind. The program is linked with
 * -export-dynamic: libdmesh's own MPI calls then go through the wrappers. */
#ifndef DMESH_TEST_COMM_COUNT_H
#define DMESH_TEST_COMM_COUNT_H

/* Communicators made minus communicators freed, since the process began. */
long comm_count_live(void);

#endif /* DMESH_TEST_COMM_COUNT_H */
