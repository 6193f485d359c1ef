/* SPDX-License-Identifier: BSD-3-Clause */
/* Fault tolerance (lib/ft/): the failed processes of a mesh (failed.c):
 * dmesh_revoke and dmesh_get_failed (their implementations are declared in
 * api_impl.h), and the answer of the calls of lib/ft/ that need fault
 * tolerance when the MPI has none. */
#ifndef DMESH_FT_FAILED_H
#define DMESH_FT_FAILED_H

/* DMESH_ERR_UNSUPPORTED for fn, saying how to get fault tolerance. */
int dmesh_failed_unsupported(const char *fn);

#endif /* DMESH_FT_FAILED_H */
