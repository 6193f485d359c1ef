/* SPDX-License-Identifier: BSD-3-Clause */
/* dmesh_get_nccl_comm (include/dmesh_nccl.h): the NCCL communicator of a
 * mesh dimension. Here, not in comm_nccl.c, so that the NCCL module knows
 * communicators and nothing of meshes. Built only --with-nccl. */
#include "config.h"

#define DMESH_API_NCCL 1
#include "api_impl.h"

#include "agree.h"
#include "backend.h"
#include "create.h"
#include "mesh_dim.h"
#include "error.h"
#include "mesh.h"
#include "universe_comms.h"

/* A lazy NCCL creation for the creation driver (create.h): collective
 * over the dim's group (its MPI communicator), not over the universe. */
typedef struct {
    dmesh_comm_entry_t *e;
} nccl_call_t;

static int nccl_agree(dmesh_creation_t *c, uint64_t hash, int err)
{
    nccl_call_t *x = c->call;

    c->over = x->e->comm;
    return dmesh_agree(x->e->comm, hash, err, "dmesh_get_nccl_comm (lazy creation)");
}

static int nccl_make(dmesh_creation_t *c)
{
    nccl_call_t *x = c->call;

    return dmesh_universe_pair_entry(c->u, x->e);
}

static const dmesh_creation_ops_t nccl_ops = {.agree = nccl_agree, .make = nccl_make};

/* The NCCL communicator of dim, created first when the universe defers
 * NCCL creation (collective over that dim's group then). err is this
 * rank's own error so far (a NULL output): on the lazy path it still takes
 * part, so that the agreement, not a missing rank, decides the outcome. */
static int mesh_get_nccl(struct dmesh_mesh *mesh, int dim, int err, void **nccl)
{
    nccl_call_t x = {dmesh_mesh_entry(mesh, dim)};
    dmesh_creation_t c;

    /* the backend and the membership are the same on every rank of the
     * group (agreed when the mesh was made): returning here strands none */
    if (dmesh_backends[x.e->backend] != &dmesh_backend_nccl)
        return dmesh_error_set(DMESH_ERR_BACKEND, "dim %d uses the MPI backend, not NCCL", dim);
    if (dmesh_universe_my_index(mesh->u) < 0)
        return dmesh_error_set(DMESH_ERR_NOT_MEMBER, "the calling rank is not in the mesh");
    /* local, as dmesh_abort is: its communicators are gone, nothing to join */
    if (dmesh_universe_aborted(mesh->u))
        return dmesh_error_set(DMESH_ERR_ARG, "universe aborted (dmesh_abort): no NCCL "
                                              "communicator");
    /* revoked here: a made communicator was aborted (local, as the query
     * is); a pending one is still agreed on by its group, and fails there */
    if (dmesh_universe_revoked(mesh->u) && !x.e->paired_pending)
        return dmesh_error_set(DMESH_ERR_PROC_FAILED, "universe revoked (dmesh_revoke): no NCCL "
                                                      "communicator");
    if (x.e->paired_pending && x.e->comm != MPI_COMM_NULL) {
        /* checked: a rank that failed still takes part; the request holds
         * nothing but the call, so only the outcome is compared */
        /* freed by the program: MPI_Comm_free was collective over the
         * group, so every member returns here, before using the handle */
        DMESH_TRY(dmesh_universe_entry_usable(x.e, "dmesh_get_nccl_comm"));
        dmesh_creation_begin(&c, &nccl_ops, "dmesh_get_nccl_comm", mesh->u, 1, &x);
        /* the group's communicator may be the program's already: dmesh's
         * own calls on it return their errors */
        if (err == DMESH_SUCCESS)
            err = dmesh_universe_own_begin(x.e);
        err = dmesh_creation_run(&c, err);
        /* after the agreement: a failure here only leaves MPI_ERRORS_RETURN */
        (void)dmesh_universe_own_end(mesh->u, x.e);
    }
    DMESH_TRY(err);
    *nccl = x.e->paired;
    return DMESH_SUCCESS;
}

int dmesh_get_nccl_comm_impl(dmesh_t handle, int dim, ncclComm_t *comm)
{
    struct dmesh_mesh *mesh;

    void *nccl = NULL;
    int err = DMESH_SUCCESS;

    /* a bad handle or dim names no group to take part in: local */
    DMESH_TRY(dmesh_mesh_get(handle, dim, "dmesh_get_nccl_comm", &mesh));
    if (comm == NULL)
        err = dmesh_error_set(DMESH_ERR_ARG, "%s: argument 'comm' is NULL", "dmesh_get_nccl_comm");
    DMESH_TRY(mesh_get_nccl(mesh, dim, err, &nccl));
    *comm = (ncclComm_t)nccl;
    return DMESH_SUCCESS;
}

int dmesh_get_nccl_comm_by_name_impl(dmesh_t handle, const char *dim_name, ncclComm_t *comm)
{
    struct dmesh_mesh *mesh;
    int dim;

    /* a name that fails names no group to take part in: local, as a bad dim */
    DMESH_TRY(dmesh_mesh_get(handle, DMESH_ANY_DIM, "dmesh_get_nccl_comm_by_name", &mesh));
    DMESH_TRY(dmesh_mesh_dim_by_name(mesh, dim_name, "dmesh_get_nccl_comm_by_name", &dim));
    return dmesh_get_nccl_comm_impl(handle, dim, comm);
}
