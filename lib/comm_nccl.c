/* NCCL communicators paired with MPI communicators (DESIGN.md section 1).
 *
 * The MPI communicator of an axis carries NCCL's unique id, so the pairing
 * needs no other bootstrap, and NCCL ranks are the MPI ranks. Creation ends
 * with one small allreduce so that every member returns the same answer. */
#include "config.h"

#include <sched.h>
#include <stdio.h>
#include <string.h>

#include <nccl.h>

#include "comm_nccl.h"
#include "dmesh_nccl.h"
#include "error.h"
#include "mesh.h"

/* What rank 0 broadcasts: the id, or why it has none. */
typedef struct {
    int status; /* ncclResult_t of ncclGetUniqueId */
    ncclUniqueId id;
} nccl_id_msg_t;

int dmesh_nccl_available(void)
{
    return 1;
}

/* The ncclConfig_t of an axis: NCCL's defaults, except the fields whose bit
 * is in set_mask. net_name is referenced, not copied. */
static void nccl_config(const dmesh_nccl_options_t *o, ncclConfig_t *c)
{
    ncclConfig_t defaults = NCCL_CONFIG_INITIALIZER;

    *c = defaults;
    if (o == NULL)
        return;
    if (o->set_mask & DMESH_NCCL_OPT_BLOCKING)
        c->blocking = o->blocking;
    if (o->set_mask & DMESH_NCCL_OPT_CGA_CLUSTER_SIZE)
        c->cgaClusterSize = o->cga_cluster_size;
    if (o->set_mask & DMESH_NCCL_OPT_MIN_CTAS)
        c->minCTAs = o->min_ctas;
    if (o->set_mask & DMESH_NCCL_OPT_MAX_CTAS)
        c->maxCTAs = o->max_ctas;
    if (o->set_mask & DMESH_NCCL_OPT_NET_NAME)
        c->netName = o->net_name;
    if (o->set_mask & DMESH_NCCL_OPT_SPLIT_SHARE)
        c->splitShare = o->split_share;
}

/* A non-blocking communicator (nccl_blocking=0) returns ncclInProgress;
 * dmesh hands out only communicators that are ready, so it waits here. */
static ncclResult_t nccl_wait(ncclComm_t comm, ncclResult_t r)
{
    while (r == ncclInProgress && comm != NULL) {
        ncclResult_t state = ncclSuccess;
        r = ncclCommGetAsyncError(comm, &state);
        if (r == ncclSuccess)
            r = state;
        if (r == ncclInProgress)
            sched_yield();
    }
    return r;
}

static int nccl_error(const char *what, ncclResult_t r, ncclComm_t comm)
{
    const char *last = ncclGetLastError(comm);

    if (last != NULL && last[0] != '\0')
        return dmesh_error_set(DMESH_ERR_NCCL, "%s: %s (%s)", what, ncclGetErrorString(r), last);
    return dmesh_error_set(DMESH_ERR_NCCL, "%s: %s", what, ncclGetErrorString(r));
}

/* Collective over comm: rank 0's unique id, on every member. */
static int nccl_share_id(MPI_Comm comm, int rank, ncclUniqueId *id)
{
    nccl_id_msg_t msg;
    int e;

    memset(&msg, 0, sizeof(msg));
    if (rank == 0)
        msg.status = ncclGetUniqueId(&msg.id);
    e = MPI_Bcast(&msg, (int)sizeof(msg), MPI_BYTE, 0, comm);
    if (e != MPI_SUCCESS)
        return dmesh_error_mpi(e, "MPI_Bcast of the NCCL unique id");
    if (msg.status != ncclSuccess)
        return dmesh_error_set(DMESH_ERR_NCCL,
                               "ncclGetUniqueId (on rank 0 of the axis communicator): %s",
                               ncclGetErrorString((ncclResult_t)msg.status));
    *id = msg.id;
    return DMESH_SUCCESS;
}

/* Collective over comm: DMESH_ERR_NCCL on every rank when any failed. */
static int nccl_agree(MPI_Comm comm, int rank, int err)
{
    struct {
        int failed, rank;
    } in = {err != DMESH_SUCCESS, rank}, out;
    int e = MPI_Allreduce(&in, &out, 1, MPI_2INT, MPI_MAXLOC, comm);

    if (e != MPI_SUCCESS)
        return dmesh_error_mpi(e, "MPI_Allreduce after ncclCommInitRankConfig");
    if (!out.failed || err != DMESH_SUCCESS)
        return err;
    return dmesh_error_set(DMESH_ERR_NCCL,
                           "ncclCommInitRankConfig failed on rank %d of the axis "
                           "communicator",
                           out.rank);
}

static int nccl_init(MPI_Comm comm, int rank, int size, const dmesh_nccl_options_t *opts,
                     ncclComm_t *out)
{
    ncclUniqueId id;
    ncclConfig_t config;
    ncclComm_t c = NULL;
    ncclResult_t r;
    int err;

    DMESH_TRY(nccl_share_id(comm, rank, &id));
    nccl_config(opts, &config);
    /* Two statements: nccl_wait must see c after the call has written it. */
    r = ncclCommInitRankConfig(&c, size, id, rank, &config);
    r = nccl_wait(c, r);
    err = r == ncclSuccess ? DMESH_SUCCESS : nccl_error("ncclCommInitRankConfig", r, c);
    err = nccl_agree(comm, rank, err);
    if (err != DMESH_SUCCESS) {
        if (c != NULL)
            (void)ncclCommAbort(c);
        return err;
    }
    *out = c;
    return DMESH_SUCCESS;
}

int dmesh_nccl_comm_create(MPI_Comm comm, const dmesh_nccl_options_t *opts, void **nccl_comm)
{
    ncclComm_t c;
    int rank, size, e;

    if (comm == MPI_COMM_NULL || nccl_comm == NULL)
        return dmesh_error_set(DMESH_ERR_INTERNAL, "dmesh_nccl_comm_create: no communicator");
    e = MPI_Comm_rank(comm, &rank);
    if (e == MPI_SUCCESS)
        e = MPI_Comm_size(comm, &size);
    if (e != MPI_SUCCESS)
        return dmesh_error_mpi(e, "MPI_Comm_rank/size of an axis communicator");
    DMESH_TRY(nccl_init(comm, rank, size, opts, &c));
    *nccl_comm = c;
    return DMESH_SUCCESS;
}

/* Finalize (waiting for pending work, also on a non-blocking communicator),
 * then destroy; on a failed finalize, abort to free the resources anyway. */
int dmesh_nccl_comm_destroy(void *nccl_comm)
{
    ncclComm_t c = nccl_comm;
    ncclResult_t r;

    if (c == NULL)
        return DMESH_SUCCESS;
    r = ncclCommFinalize(c);
    r = nccl_wait(c, r);
    if (r != ncclSuccess) {
        int err = nccl_error("ncclCommFinalize", r, c);
        (void)ncclCommAbort(c);
        return err;
    }
    r = ncclCommDestroy(c);
    if (r != ncclSuccess)
        return nccl_error("ncclCommDestroy", r, NULL);
    return DMESH_SUCCESS;
}

/* One group, so that NCCL can tear the communicators down together instead
 * of one abort waiting on a peer stuck in another. */
int dmesh_nccl_comm_abort_all(int n, void *const nccl_comms[])
{
    ncclResult_t r, first = ncclSuccess;
    const char *what = NULL;
    int grouped = ncclGroupStart() == ncclSuccess;

    for (int i = 0; i < n; i++) {
        if (nccl_comms[i] == NULL)
            continue;
        r = ncclCommAbort((ncclComm_t)nccl_comms[i]);
        if (r != ncclSuccess && first == ncclSuccess) {
            first = r;
            what = "ncclCommAbort";
        }
    }
    if (grouped && (r = ncclGroupEnd()) != ncclSuccess && first == ncclSuccess) {
        first = r;
        what = "ncclGroupEnd after ncclCommAbort";
    }
    if (first != ncclSuccess)
        return nccl_error(what, first, NULL);
    return grouped ? DMESH_SUCCESS : dmesh_error_set(DMESH_ERR_NCCL, "ncclGroupStart failed");
}

int dmesh_get_nccl_comm(dmesh_t mesh, int dim, ncclComm_t *comm)
{
    void *nccl = NULL;

    DMESH_CHECK_PTR(comm);
    DMESH_TRY(dmesh_mesh_check(mesh, dim, __func__));
    DMESH_TRY(dmesh_mesh_get_nccl(mesh, dim, &nccl));
    *comm = (ncclComm_t)nccl;
    return DMESH_SUCCESS;
}
