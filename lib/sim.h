/* SPDX-License-Identifier: BSD-3-Clause */
/* Internals shared by the simulation-code calls (mesh_sim.c, mesh_cart.c,
 * serialize.c, serialize_text.c). */
#ifndef DMESH_SIM_H
#define DMESH_SIM_H

#include <stdint.h>

#include "universe.h"

/* The one agreement step of the simulation-code collectives, over the
 * universe's communicator: every rank passes the hash of what all must share
 * and its local error class, and all return the same class. Every
 * collective path of mesh_cart.c and serialize.c goes through here, so that
 * a change of the agreement primitive is made in one place. */
int dmesh_sim_agree(dmesh_universe_t *u, uint64_t hash, int local_err, const char *what);

#endif /* DMESH_SIM_H */
