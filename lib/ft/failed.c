/* SPDX-License-Identifier: BSD-3-Clause */
/* Fault tolerance (lib/ft/): owns dmesh_revoke and dmesh_get_failed, the
 * mesh's view of the MPI's ULFM primitives (ulfm.c): the universe revoked,
 * the failed processes listed by their ranks (failed.h). Without the ULFM
 * extension both return DMESH_ERR_UNSUPPORTED, saying how to get it
 * (dmesh_failed_unsupported, which dmesh_shrink and dmesh_respawn answer
 * too). */
#include "config.h"

#include "api_impl.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "ft/failed.h"
#include "mesh.h"
#include "ulfm.h"
#include "universe_comms.h"

int dmesh_failed_unsupported(const char *fn)
{
    return dmesh_error_set(DMESH_ERR_UNSUPPORTED, "%s: the MPI offers no fault tolerance: %s", fn,
                           dmesh_ulfm_how());
}

int dmesh_revoke_impl(dmesh_t handle)
{
    struct dmesh_mesh *mesh;

    DMESH_TRY(dmesh_mesh_get(handle, DMESH_ANY_DIM, "dmesh_revoke", &mesh));
    if (!dmesh_ulfm_enabled(dmesh_universe_comm(mesh->u)))
        return dmesh_failed_unsupported("dmesh_revoke");
    return dmesh_universe_revoke(mesh->u);
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;

    return (x > y) - (x < y);
}

/* The ranks of comm that group holds, ascending; *n of them (out malloc'd). */
static int ranks_in_comm(MPI_Comm comm, MPI_Group group, int **out, int *n)
{
    MPI_Group all = MPI_GROUP_NULL;
    int *in = NULL, *at = NULL, rc = MPI_SUCCESS, count = 0, i;

    if ((rc = MPI_Group_size(group, &count)) != MPI_SUCCESS)
        return dmesh_error_mpi(rc, "MPI_Group_size of the failed processes");
    in = malloc((size_t)(count > 0 ? count : 1) * sizeof(int));
    at = malloc((size_t)(count > 0 ? count : 1) * sizeof(int));
    if (in == NULL || at == NULL) {
        free(in);
        free(at);
        return dmesh_error_set(DMESH_ERR_NOMEM, "failed processes: out of memory");
    }
    for (i = 0; i < count; i++)
        in[i] = i;
    if (count > 0 && (rc = MPI_Comm_group(comm, &all)) == MPI_SUCCESS)
        rc = MPI_Group_translate_ranks(group, count, in, all, at);
    if (all != MPI_GROUP_NULL)
        MPI_Group_free(&all);
    free(in);
    if (rc != MPI_SUCCESS) {
        free(at);
        return dmesh_error_mpi(rc, "MPI_Group_translate_ranks of the failed processes");
    }
    qsort(at, (size_t)count, sizeof(int), cmp_int);
    *out = at;
    *n = count;
    return DMESH_SUCCESS;
}

int dmesh_get_failed_impl(dmesh_t handle, int maxranks, int ranks[], int *nfailed)
{
    struct dmesh_mesh *mesh;
    MPI_Comm comm;
    MPI_Group failed = MPI_GROUP_NULL;
    int *found = NULL, n = 0, rc, err;

    DMESH_TRY(dmesh_mesh_get(handle, DMESH_ANY_DIM, "dmesh_get_failed", &mesh));
    DMESH_CHECK_PTR_OF("dmesh_get_failed", nfailed);
    if (maxranks < 0)
        return dmesh_error_set(DMESH_ERR_ARG, "%s: maxranks %d is negative", "dmesh_get_failed",
                               maxranks);
    if (maxranks > 0 && ranks == NULL)
        return dmesh_error_set(DMESH_ERR_ARG, "%s: ranks is NULL with maxranks %d",
                               "dmesh_get_failed", maxranks);
    comm = dmesh_universe_comm(mesh->u);
    if (!dmesh_ulfm_enabled(comm))
        return dmesh_failed_unsupported("dmesh_get_failed");
    if ((rc = dmesh_ulfm_get_failed(comm, &failed)) != MPI_SUCCESS)
        return dmesh_error_set(DMESH_ERR_MPI, "%s: MPIX_Comm_get_failed failed (MPI error %d)",
                               "dmesh_get_failed", rc);
    err = ranks_in_comm(comm, failed, &found, &n);
    MPI_Group_free(&failed);
    if (err != DMESH_SUCCESS)
        return err;
    if (n > 0 && maxranks > 0)
        memcpy(ranks, found, (size_t)(n < maxranks ? n : maxranks) * sizeof(int));
    free(found);
    *nfailed = n;
    return DMESH_SUCCESS;
}
