/* SPDX-License-Identifier: BSD-3-Clause */
/* A bound on MPI_Finalize after a repair (finalize_bound.c). */
#ifndef DMESH_FINALIZE_BOUND_H
#define DMESH_FINALIZE_BOUND_H

/* Called where a process gets a repaired mesh: from then on its
 * MPI_Finalize ends the process after DMESH_FINALIZE_BOUND seconds
 * (default 60; 0 or off: never) if it has not returned. Once per process. */
void dmesh_finalize_bound_arm(void);

#endif /* DMESH_FINALIZE_BOUND_H */
