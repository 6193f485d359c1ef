/* SPDX-License-Identifier: BSD-3-Clause */
/* Entry points of libdmesh for its language bindings (the Fortran modules),
 * exported but not declared in dmesh.h: no program calls them. */
#ifndef DMESH_BINDING_H
#define DMESH_BINDING_H

#include "dmesh.h"

/* A binding rejected the arguments of a collective call (array sizes that
 * do not match) with class err and detail: the collective call it makes
 * next, with arguments that are safe to read, fails at its agreement with
 * that class and detail on this rank, so that every rank of the call
 * returns the same class (and raises it once) instead of some ranks
 * waiting for the others. Returns err. */
DMESH_EXPORT int dmesh_x_binding_reject(int err, const char *detail);

/* A binding rejected the arguments of a local call on mesh (DMESH_NULL for
 * none): the detail ("<call>: ...") is recorded and err raised as the call
 * itself would raise it. Returns err. */
DMESH_EXPORT int dmesh_x_binding_raise(dmesh_t mesh, int err, const char *detail);

/* With quiet 1, this thread's calls raise nothing until quiet 0: checks a
 * binding makes for itself (the call that follows raises). */
DMESH_EXPORT void dmesh_x_binding_quiet(int quiet);

#endif /* DMESH_BINDING_H */
