/* SPDX-License-Identifier: BSD-3-Clause */
/* NCCL communicators paired with MPI communicators (DESIGN.md section 1).
 *
 * The MPI communicator of an axis carries NCCL's unique id, so the pairing
 * needs no other bootstrap, and NCCL ranks are the MPI ranks. Creation ends
 * with the agreement (agree.h) so that every member returns the same answer. */
#include "config.h"

#include <sched.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cuda_runtime_api.h>
#include <nccl.h>

#include "agree.h"
#include "comm_nccl.h"
#include "dmesh_nccl.h"
#include "error.h"
#include "fault.h"
#include "mesh.h"

/* What each member tells the others before NCCL: where its GPU is. */
typedef struct {
    int status; /* cudaError_t of cudaDeviceGetPCIBusId */
    char host[64];
    char busid[32];
} nccl_gpu_msg_t;

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
    if (o->comm_name[0] != '\0')
        c->commName = o->comm_name;
    if (o->timeout > 0 && !(o->set_mask & DMESH_NCCL_OPT_BLOCKING))
        c->blocking = 0; /* a bounded wait needs the non-blocking init */
}

/* Make device current on the calling thread for one NCCL call, keeping the
 * caller's device in *saved (restored by device_leave): NCCL binds a
 * communicator to the device current when it is made, and a lazy creation
 * or a free may run on any thread. */
static int device_enter(int device, int *saved)
{
    cudaError_t c = cudaGetDevice(saved);

    if (c == cudaSuccess && *saved != device)
        c = cudaSetDevice(device);
    if (c != cudaSuccess) {
        (void)cudaGetLastError();
        return dmesh_error_set(DMESH_ERR_CUDA, "cudaSetDevice(%d) around an NCCL call: %s", device,
                               cudaGetErrorString(c));
    }
    return DMESH_SUCCESS;
}

static void device_leave(int device, int saved)
{
    if (saved != device && cudaSetDevice(saved) != cudaSuccess)
        (void)cudaGetLastError();
}

/* A non-blocking communicator (nccl_blocking=0) returns ncclInProgress;
 * dmesh hands out only communicators that are ready, so it waits here. */
static double seconds_now(void)
{
    struct timespec t;

    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* With timeout > 0 the polling stops after so many seconds: ncclInProgress
 * is then returned (the caller aborts the communicator). */
static ncclResult_t nccl_wait(ncclComm_t comm, ncclResult_t r, double timeout)
{
    double end = timeout > 0 ? seconds_now() + timeout : 0;
    int never = r == ncclInProgress && dmesh_fault(DMESH_FAULT_NCCL_HANG);

    while (r == ncclInProgress && comm != NULL) {
        ncclResult_t state = ncclSuccess;
        r = ncclCommGetAsyncError(comm, &state);
        if (r == ncclSuccess)
            r = never ? ncclInProgress : state;
        if (r == ncclInProgress && end > 0 && seconds_now() > end)
            break;
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

/* Two members on one GPU of one host, by the table every member has: the
 * same answer on every rank. */
static int nccl_gpu_clash(const nccl_gpu_msg_t *all, int size, int device)
{
    for (int i = 0; i < size; i++) {
        if (all[i].status != cudaSuccess)
            return dmesh_error_set(DMESH_ERR_CUDA,
                                   "cudaDeviceGetPCIBusId(%d) on rank %d of the axis "
                                   "communicator: %s",
                                   device, i, cudaGetErrorString((cudaError_t)all[i].status));
        for (int j = 0; j < i; j++)
            if (strcmp(all[i].host, all[j].host) == 0 && strcmp(all[i].busid, all[j].busid) == 0)
                return dmesh_error_set(DMESH_ERR_NO_DEVICE,
                                       "ranks %d and %d of an NCCL dimension share GPU %s on "
                                       "host %s: NCCL needs one GPU per rank (set dmesh_device, "
                                       "CUDA_VISIBLE_DEVICES or fewer ranks per node, or use "
                                       "dmesh_backend=mpi)",
                                       j, i, all[i].busid, all[i].host);
    }
    return DMESH_SUCCESS;
}

/* Collective over comm: every member's (host, PCI bus id of device), so
 * that two ranks on one GPU fail here, on every rank, instead of hanging or
 * failing on some ranks inside NCCL. err: this rank's failure so far. */
static int nccl_check_gpus(MPI_Comm comm, int size, int device, int err)
{
    nccl_gpu_msg_t me, *all = malloc((size_t)size * sizeof(*all));
    int e;

    if (all == NULL && err == DMESH_SUCCESS)
        err = dmesh_error_set(DMESH_ERR_NOMEM, "NCCL dimension: out of memory");
    err = dmesh_agree(comm, 0, err, "setting the device or allocating");
    if (err != DMESH_SUCCESS) {
        free(all);
        return err;
    }
    memset(&me, 0, sizeof(me));
    gethostname(me.host, sizeof(me.host) - 1);
    me.status = cudaDeviceGetPCIBusId(me.busid, (int)sizeof(me.busid), device);
    if (me.status != cudaSuccess)
        (void)cudaGetLastError();
    e = MPI_Allgather(&me, (int)sizeof(me), MPI_BYTE, all, (int)sizeof(me), MPI_BYTE, comm);
    err = e == MPI_SUCCESS ? nccl_gpu_clash(all, size, device)
                           : dmesh_error_mpi(e, "MPI_Allgather of the members' GPUs");
    free(all);
    return err;
}

/* ncclCommCuDevice must be the universe's device. */
static int nccl_check_device(ncclComm_t c, int device)
{
    int cudev = -1;
    ncclResult_t r = ncclCommCuDevice(c, &cudev);

    if (r != ncclSuccess)
        return nccl_error("ncclCommCuDevice", r, c);
    if (cudev != device)
        return dmesh_error_set(DMESH_ERR_INTERNAL,
                               "NCCL communicator on CUDA device %d, the mesh's is %d", cudev,
                               device);
    return DMESH_SUCCESS;
}

/* Collective over comm, with the universe's device current. */
static int nccl_init(MPI_Comm comm, int rank, int size, const dmesh_nccl_options_t *opts,
                     int device, int err_in, ncclComm_t *out)
{
    ncclUniqueId id;
    ncclConfig_t config;
    ncclComm_t c = NULL;
    ncclResult_t r;
    int err;

    DMESH_TRY(nccl_check_gpus(comm, size, device, err_in));
    DMESH_TRY(nccl_share_id(comm, rank, &id));
    nccl_config(opts, &config);
    /* Two statements: nccl_wait must see c after the call has written it. */
    r = ncclCommInitRankConfig(&c, size, id, rank, &config);
    r = nccl_wait(c, r, opts != NULL ? opts->timeout : 0);
    if (r == ncclSuccess && dmesh_fault(DMESH_FAULT_NCCL_INIT))
        r = ncclSystemError;
    if (r == ncclInProgress)
        err = dmesh_error_set(DMESH_ERR_TIMEOUT, "ncclCommInitRankConfig: not complete after %g s "
                              "(dmesh_timeout): aborted", opts->timeout);
    else
        err = r == ncclSuccess ? DMESH_SUCCESS : nccl_error("ncclCommInitRankConfig", r, c);
    if (err == DMESH_SUCCESS)
        err = nccl_check_device(c, device);
    if (err != DMESH_SUCCESS && c != NULL) {
        (void)ncclCommAbort(c);
        c = NULL;
    }
    err = dmesh_agree(comm, 0, err, "ncclCommInitRankConfig");
    if (err != DMESH_SUCCESS) {
        if (c != NULL)
            (void)ncclCommAbort(c);
        return err;
    }
    *out = c;
    return DMESH_SUCCESS;
}

int dmesh_nccl_comm_create(MPI_Comm comm, const dmesh_nccl_options_t *opts, int device,
                           void **nccl_comm)
{
    ncclComm_t c = NULL;
    int rank, size, e, saved, err;

    if (comm == MPI_COMM_NULL || nccl_comm == NULL)
        return dmesh_error_set(DMESH_ERR_INTERNAL, "dmesh_nccl_comm_create: no communicator");
    e = MPI_Comm_rank(comm, &rank);
    if (e == MPI_SUCCESS)
        e = MPI_Comm_size(comm, &size);
    if (e != MPI_SUCCESS)
        return dmesh_error_mpi(e, "MPI_Comm_rank/size of an axis communicator");
    saved = device;
    err = device_enter(device, &saved);
    err = nccl_init(comm, rank, size, opts, device, err, &c);
    device_leave(device, saved);
    if (err == DMESH_SUCCESS)
        *nccl_comm = c;
    return err;
}

/* Finalize (waiting for pending work, also on a non-blocking communicator),
 * then destroy; on a failed finalize, abort to free the resources anyway. */
static int nccl_destroy(ncclComm_t c)
{
    ncclResult_t r = ncclCommFinalize(c);

    r = nccl_wait(c, r, 0);
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

int dmesh_nccl_comm_destroy(void *nccl_comm, int device)
{
    int saved = device, err;

    if (nccl_comm == NULL)
        return DMESH_SUCCESS;
    err = device_enter(device, &saved);
    if (err == DMESH_SUCCESS)
        err = nccl_destroy((ncclComm_t)nccl_comm);
    else
        (void)ncclCommAbort((ncclComm_t)nccl_comm); /* free it anyway */
    device_leave(device, saved);
    return err;
}

/* One group, so that NCCL can tear the communicators down together instead
 * of one abort waiting on a peer stuck in another. */
int dmesh_nccl_comm_abort_all(int n, void *const nccl_comms[], int device)
{
    ncclResult_t r, first = ncclSuccess;
    const char *what = NULL;
    int saved = device, grouped;

    if (n > 0 && device_enter(device, &saved) != DMESH_SUCCESS)
        saved = device; /* abort on whatever device is current: freeing matters more */
    grouped = ncclGroupStart() == ncclSuccess;

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
    device_leave(device, saved);
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
