/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI_Finalize's work (finalize.c): an attribute on MPI_COMM_SELF, whose
 * deletion MPI_Finalize runs first, reports the meshes never freed
 * (DMESH_DEBUG) and releases the private duplicates still cached on user
 * communicators (pcomm.h). Above the meshes: installed by the calls that
 * make root meshes, called by nothing below them. */
#ifndef DMESH_FINALIZE_H
#define DMESH_FINALIZE_H

/* Local: sets the hook once, in the world model (after MPI_Init, before
 * MPI_Finalize); does nothing otherwise. DMESH_SUCCESS, or DMESH_ERR_MPI
 * when the MPI refused the attribute: a root creation call passes that on
 * to dmesh_private_comm_begin, so that its agreement reports it. */
int dmesh_finalize_hook(void);

#endif /* DMESH_FINALIZE_H */
