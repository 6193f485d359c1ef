/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The MPI boundary of the Fortran modules dmesh and dmesh_f08.
 *
 * Fortran MPI handles cross the language boundary as MPI_Fint values: the
 * INTEGER handles of `use mpi` and the MPI_VAL component of the `use mpi_f08`
 * types are the same value, so one set of shims serves both modules. Only the
 * calls that take or return an MPI handle go through here; the others are
 * bound directly to the C functions with BIND(C) interfaces.
 *
 * The shims also keep the detail message of failures that the Fortran layer
 * detects itself (an argument array of the wrong size), which the C library
 * never sees: dmesh_f_last_error() returns it while it is the most recent
 * failure on the thread.
 */
#include <stdio.h>
#include <stdlib.h>

#include "dmesh.h"

#define DMESH_F_DETAIL_LEN 256

/* Failures detected by the Fortran layer, per thread. When the library
 * itself fails afterwards, dmesh_f_library_failed() hands the detail back. */
static _Thread_local char fortran_detail[DMESH_F_DETAIL_LEN];
static _Thread_local int fortran_detail_is_latest;

/* Declared here (not in a header): the Fortran interfaces are their users. */
int dmesh_f_init(MPI_Fint comm, const char *device_type, int ndims, const int shape[],
                 const char *const *dim_names, int has_info, MPI_Fint info, dmesh_t *mesh);
int dmesh_f_init_hybrid(MPI_Fint comm, const char *device_type, int ndims, const int in_node[],
                        const int across[], const char *const *dim_names, int has_info,
                        MPI_Fint info, dmesh_t *mesh);
int dmesh_f_create(MPI_Fint comm, const char *device_type, int ndims, const int shape[],
                   const int ranks[], const char *const *dim_names, int has_info, MPI_Fint info,
                   dmesh_t *mesh);
int dmesh_f_from_comms(MPI_Fint comm, const char *device_type, int ndims,
                       const MPI_Fint dim_comms[], const int shape[], const int *ranks,
                       const char *const *dim_names, dmesh_t *mesh);
int dmesh_f_flatten(dmesh_t mesh, const char *name, int has_info, MPI_Fint info, dmesh_t *flat);
int dmesh_f_unflatten(dmesh_t mesh, int dim, int n, const int sizes[], const char *const *dim_names,
                      int has_info, MPI_Fint info, dmesh_t *out);
int dmesh_f_get_comm(dmesh_t mesh, int dim, MPI_Fint *comm);
int dmesh_f_get_comm_by_name(dmesh_t mesh, const char *dim_name, MPI_Fint *comm);
int dmesh_f_comm_size(MPI_Fint comm, int *size);
int dmesh_f_shrink(dmesh_t mesh, int dim, int has_info, MPI_Fint info, int want_survivors,
                   MPI_Fint *survivors, dmesh_t *newmesh);
int dmesh_f_respawn(dmesh_t mesh, const char *command, int has_info, MPI_Fint info,
                    MPI_Fint *newcomm, dmesh_t *newmesh);
int dmesh_f_grow(dmesh_t mesh, int dim, int n, const char *command, int has_info, MPI_Fint info,
                 MPI_Fint *newcomm, dmesh_t *newmesh);
int dmesh_f_join(int has_info, MPI_Fint info, int *reason, MPI_Fint *newcomm, dmesh_t *newmesh);
int dmesh_f_unflatten_by_name(dmesh_t mesh, const char *dim_name, int n, const int sizes[],
                              const char *const *dim_names, int has_info, MPI_Fint info,
                              dmesh_t *out);
int dmesh_f_shrink_by_name(dmesh_t mesh, const char *dim_name, int has_info, MPI_Fint info,
                           int want_survivors, MPI_Fint *survivors, dmesh_t *newmesh);
int dmesh_f_grow_by_name(dmesh_t mesh, const char *dim_name, int n, const char *command,
                         int has_info, MPI_Fint info, MPI_Fint *newcomm, dmesh_t *newmesh);
int dmesh_f_start(MPI_Fint comm, const char *device_type, int ndims, const int shape[],
                  const char *const *dim_names, int has_info, MPI_Fint info, MPI_Fint *newcomm,
                  dmesh_t *mesh);
int dmesh_f_repair(dmesh_t *mesh, MPI_Fint *comm, int has_info, MPI_Fint info, int *version);
void dmesh_f_set_error(const char *detail);
void dmesh_f_library_failed(void);
const char *dmesh_f_last_error(void);

static MPI_Info info_f2c(int has_info, MPI_Fint info)
{
    return has_info ? MPI_Info_f2c(info) : MPI_INFO_NULL;
}

int dmesh_f_init(MPI_Fint comm, const char *device_type, int ndims, const int shape[],
                 const char *const *dim_names, int has_info, MPI_Fint info, dmesh_t *mesh)
{
    return dmesh_init(MPI_Comm_f2c(comm), device_type, ndims, shape, dim_names,
                      info_f2c(has_info, info), mesh);
}

int dmesh_f_init_hybrid(MPI_Fint comm, const char *device_type, int ndims, const int in_node[],
                        const int across[], const char *const *dim_names, int has_info,
                        MPI_Fint info, dmesh_t *mesh)
{
    return dmesh_init_hybrid(MPI_Comm_f2c(comm), device_type, ndims, in_node, across, dim_names,
                             info_f2c(has_info, info), mesh);
}

int dmesh_f_create(MPI_Fint comm, const char *device_type, int ndims, const int shape[],
                   const int ranks[], const char *const *dim_names, int has_info, MPI_Fint info,
                   dmesh_t *mesh)
{
    return dmesh_create(MPI_Comm_f2c(comm), device_type, ndims, shape, ranks, dim_names,
                        info_f2c(has_info, info), mesh);
}

int dmesh_f_from_comms(MPI_Fint comm, const char *device_type, int ndims,
                       const MPI_Fint dim_comms[], const int shape[], const int *ranks,
                       const char *const *dim_names, dmesh_t *mesh)
{
    MPI_Comm comms[DMESH_MAX_DIMS];
    int d;

    /* Out-of-range ndims reaches the library, which reports it; the
     * communicators are then not read. */
    if (ndims < 1 || ndims > DMESH_MAX_DIMS)
        return dmesh_from_comms(MPI_Comm_f2c(comm), device_type, ndims, NULL, shape, ranks,
                                dim_names, mesh);
    for (d = 0; d < ndims; d++)
        comms[d] = MPI_Comm_f2c(dim_comms[d]);
    return dmesh_from_comms(MPI_Comm_f2c(comm), device_type, ndims, comms, shape, ranks, dim_names,
                            mesh);
}

int dmesh_f_flatten(dmesh_t mesh, const char *name, int has_info, MPI_Fint info, dmesh_t *flat)
{
    return dmesh_flatten(mesh, name, info_f2c(has_info, info), flat);
}

int dmesh_f_unflatten(dmesh_t mesh, int dim, int n, const int sizes[], const char *const *dim_names,
                      int has_info, MPI_Fint info, dmesh_t *out)
{
    return dmesh_unflatten(mesh, dim, n, sizes, dim_names, info_f2c(has_info, info), out);
}

int dmesh_f_get_comm(dmesh_t mesh, int dim, MPI_Fint *comm)
{
    MPI_Comm c = MPI_COMM_NULL;
    int err = dmesh_get_comm(mesh, dim, &c);

    *comm = MPI_Comm_c2f(c); /* MPI_COMM_NULL on failure */
    return err;
}

int dmesh_f_get_comm_by_name(dmesh_t mesh, const char *dim_name, MPI_Fint *comm)
{
    MPI_Comm c = MPI_COMM_NULL;
    int err = dmesh_get_comm_by_name(mesh, dim_name, &c);

    *comm = MPI_Comm_c2f(c); /* MPI_COMM_NULL on failure */
    return err;
}

/* The size of comm, for the check of dmesh_create's rank list when shape
 * has entries 0; an MPI error class when comm is not usable (the library
 * then reports the communicator). MPI_COMM_NULL is refused here, before
 * MPI would raise its error handler on it. */
int dmesh_f_comm_size(MPI_Fint comm, int *size)
{
    MPI_Comm c = MPI_Comm_f2c(comm);

    if (c == MPI_COMM_NULL)
        return MPI_ERR_COMM;
    return MPI_Comm_size(c, size);
}

void dmesh_f_set_error(const char *detail)
{
    snprintf(fortran_detail, sizeof(fortran_detail), "%s", detail);
    fortran_detail_is_latest = 1;
}

void dmesh_f_library_failed(void)
{
    fortran_detail_is_latest = 0;
}

const char *dmesh_f_last_error(void)
{
    return fortran_detail_is_latest ? fortran_detail : dmesh_last_error();
}

/* dmesh_shrink: the survivors' communicator only when the caller wants it
 * (else dmesh_shrink frees it). */
int dmesh_f_shrink(dmesh_t mesh, int dim, int has_info, MPI_Fint info, int want_survivors,
                   MPI_Fint *survivors, dmesh_t *newmesh)
{
    MPI_Comm c = MPI_COMM_NULL;
    int err =
        dmesh_shrink(mesh, dim, info_f2c(has_info, info), want_survivors ? &c : NULL, newmesh);

    if (want_survivors)
        *survivors = MPI_Comm_c2f(c); /* MPI_COMM_NULL on failure */
    return err;
}

/* dmesh_respawn, dmesh_grow, dmesh_join: command "" is the program itself
 * with its arguments; a named command gets none. */
int dmesh_f_respawn(dmesh_t mesh, const char *command, int has_info, MPI_Fint info,
                    MPI_Fint *newcomm, dmesh_t *newmesh)
{
    MPI_Comm c = MPI_COMM_NULL;
    int err = dmesh_respawn(mesh, command[0] != '\0' ? command : NULL, MPI_ARGV_NULL,
                            info_f2c(has_info, info), &c, newmesh);

    *newcomm = MPI_Comm_c2f(c);
    return err;
}

int dmesh_f_grow(dmesh_t mesh, int dim, int n, const char *command, int has_info, MPI_Fint info,
                 MPI_Fint *newcomm, dmesh_t *newmesh)
{
    MPI_Comm c = MPI_COMM_NULL;
    int err = dmesh_grow(mesh, dim, n, command[0] != '\0' ? command : NULL, MPI_ARGV_NULL,
                         info_f2c(has_info, info), &c, newmesh);

    *newcomm = MPI_Comm_c2f(c);
    return err;
}

int dmesh_f_join(int has_info, MPI_Fint info, int *reason, MPI_Fint *newcomm, dmesh_t *newmesh)
{
    MPI_Comm c = MPI_COMM_NULL;
    int err = dmesh_join(info_f2c(has_info, info), reason, &c, newmesh);

    *newcomm = MPI_Comm_c2f(c);
    return err;
}

/* The _by_name twins of dmesh_unflatten, dmesh_shrink and dmesh_grow, as
 * the index forms' shims above. */
int dmesh_f_unflatten_by_name(dmesh_t mesh, const char *dim_name, int n, const int sizes[],
                              const char *const *dim_names, int has_info, MPI_Fint info,
                              dmesh_t *out)
{
    return dmesh_unflatten_by_name(mesh, dim_name, n, sizes, dim_names, info_f2c(has_info, info),
                                   out);
}

int dmesh_f_shrink_by_name(dmesh_t mesh, const char *dim_name, int has_info, MPI_Fint info,
                           int want_survivors, MPI_Fint *survivors, dmesh_t *newmesh)
{
    MPI_Comm c = MPI_COMM_NULL;
    int err = dmesh_shrink_by_name(mesh, dim_name, info_f2c(has_info, info),
                                   want_survivors ? &c : NULL, newmesh);

    if (want_survivors)
        *survivors = MPI_Comm_c2f(c); /* MPI_COMM_NULL on failure */
    return err;
}

int dmesh_f_grow_by_name(dmesh_t mesh, const char *dim_name, int n, const char *command,
                         int has_info, MPI_Fint info, MPI_Fint *newcomm, dmesh_t *newmesh)
{
    MPI_Comm c = MPI_COMM_NULL;
    int err = dmesh_grow_by_name(mesh, dim_name, n, command[0] != '\0' ? command : NULL,
                                 MPI_ARGV_NULL, info_f2c(has_info, info), &c, newmesh);

    *newcomm = MPI_Comm_c2f(c);
    return err;
}

int dmesh_f_start(MPI_Fint comm, const char *device_type, int ndims, const int shape[],
                  const char *const *dim_names, int has_info, MPI_Fint info, MPI_Fint *newcomm,
                  dmesh_t *mesh)
{
    MPI_Comm c = MPI_COMM_NULL;
    int err = dmesh_start(MPI_Comm_f2c(comm), device_type, ndims, shape, dim_names,
                          info_f2c(has_info, info), &c, mesh);

    *newcomm = MPI_Comm_c2f(c); /* MPI_COMM_NULL on failure */
    return err;
}

/* dmesh_repair compares *comm with the communicator the mesh was made
 * from: the handle converted back from MPI_Fint is that one. The repaired
 * communicator goes back to the caller's variable, whatever the outcome
 * (dmesh_repair replaces it on DMESH_ERR_DATA_LOST too). */
int dmesh_f_repair(dmesh_t *mesh, MPI_Fint *comm, int has_info, MPI_Fint info, int *version)
{
    MPI_Comm c = MPI_Comm_f2c(*comm);
    int err = dmesh_repair(mesh, &c, info_f2c(has_info, info), version);

    *comm = MPI_Comm_c2f(c);
    return err;
}
