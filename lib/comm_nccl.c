/* SPDX-License-Identifier: BSD-3-Clause */
/* NCCL communicators paired with MPI communicators (doc/architecture.md).
 *
 * The MPI communicator of an axis carries NCCL's unique id, so the pairing
 * needs no other bootstrap, and NCCL ranks are the MPI ranks. Creation ends
 * with the agreement (agree.h) so that every member returns the same answer. */
#include "config.h"

#include "api_impl.h"

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
#include "ulfm.h"
#include "gpu_lib.h"
#include "node_find.h"
#include "options.h"

/* What each member tells the others before NCCL: where its GPU is. */
typedef struct {
    int status;                   /* cudaError_t of cudaDeviceGetPCIBusId */
    char host[DMESH_HOST_ID_LEN]; /* the host identity of node_find.h, as nodes are found */
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

/* Under fault tolerance, whether a process of watch has failed, as far as
 * this process knows. The MPI learns of failures in its progress, which a
 * probe drives (it receives nothing); on MPI_COMM_SELF, which no failure
 * elsewhere touches: watch may be a communicator handed to the program,
 * whose error handler is the program's, and the probe must not call it. */
static int watched_failed(MPI_Comm watch)
{
    MPI_Group g = MPI_GROUP_NULL;
    int flag = 0, n = 0;

    (void)MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_SELF, &flag, MPI_STATUS_IGNORE);
    if (dmesh_ulfm_get_failed(watch, &g) != MPI_SUCCESS)
        return 0;
    MPI_Group_size(g, &n);
    MPI_Group_free(&g);
    return n > 0;
}

/* With timeout > 0 the polling stops after so many seconds: ncclInProgress
 * is then returned (the caller aborts the communicator). With watch (not
 * MPI_COMM_NULL) under fault tolerance it also stops, with *failed set,
 * once a process of watch has failed: NCCL's initialisation would wait
 * for a dead member forever, and the creation's outcome is then
 * DMESH_ERR_PROC_FAILED on every process anyway. */
static ncclResult_t nccl_wait(ncclComm_t comm, ncclResult_t r, double timeout, MPI_Comm watch,
                              int *failed)
{
    double end = timeout > 0 ? seconds_now() + timeout : 0;
    int never = r == ncclInProgress && dmesh_fault(DMESH_FAULT_NCCL_HANG);
    int ft = r == ncclInProgress && watch != MPI_COMM_NULL && dmesh_ulfm_enabled(watch);

    while (r == ncclInProgress && comm != NULL) {
        ncclResult_t state = ncclSuccess;
        r = ncclCommGetAsyncError(comm, &state);
        if (r == ncclSuccess)
            r = never ? ncclInProgress : state;
        if (r == ncclInProgress && end > 0 && seconds_now() > end)
            break;
        if (r == ncclInProgress && ft && watched_failed(watch)) {
            *failed = 1;
            break;
        }
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
                                       "host %.*s: NCCL needs one GPU per rank (set dmesh_device, "
                                       "CUDA_VISIBLE_DEVICES or fewer ranks per node, or use "
                                       "dmesh_backend=mpi)",
                                       j, i, all[i].busid, dmesh_host_name_len(all[i].host),
                                       all[i].host);
    }
    return DMESH_SUCCESS;
}

/* Collective over comm: every member's (host, PCI bus id of device), so
 * that two ranks on one GPU fail here, on every rank, instead of hanging or
 * failing on some ranks inside NCCL. err: this rank's failure so far. */
static int nccl_check_gpus(MPI_Comm comm, int size, int device, int err)
{
    nccl_gpu_msg_t me, *all = DMESH_FAULT_MALLOC((size_t)size * sizeof(*all));
    dmesh_host_t host;
    int e;

    if (all == NULL && err == DMESH_SUCCESS)
        err = dmesh_error_set(DMESH_ERR_NOMEM, "NCCL dimension: out of memory");
    err = dmesh_agree_outcome(comm, err, "setting the device or allocating");
    if (err != DMESH_SUCCESS) {
        free(all);
        return err;
    }
    memset(&me, 0, sizeof(me));
    (void)dmesh_host_mine(&host); /* a processor name that fails is empty on every rank */
    memcpy(me.host, host.id, sizeof(me.host));
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

/* One request's state while dmesh_nccl_comms_create runs. */
typedef struct {
    int rank, size, err;
    int nids;          /* ids for init / scalable */
    ncclUniqueId *ids; /* ids[nids] */
    ncclComm_t c;
} nccl_work_t;

/* Ranks of a group of size that make a scalable id: root i is i*size/roots. */
static int scalable_roots(int roots, int size)
{
    if (roots <= 0)
        roots = (size + 127) / 128;
    return roots < 1 ? 1 : roots > size ? size : roots;
}

/* Collective over comm: the ids of the roots (one MPI_Allgatherv of what the
 * roots made) into w->ids. */
static int nccl_gather_ids(MPI_Comm comm, nccl_work_t *w, dmesh_nccl_stats_t *st)
{
    int *counts = DMESH_FAULT_CALLOC((size_t)w->size, 2 * sizeof(int)), *displs, mine = 0, e, err;
    nccl_id_msg_t me, *all = DMESH_FAULT_CALLOC((size_t)w->nids, sizeof(*all));

    if (counts == NULL || all == NULL) {
        free(counts);
        free(all);
        return dmesh_error_set(DMESH_ERR_NOMEM, "scalable NCCL ids: out of memory");
    }
    displs = counts + w->size;
    memset(&me, 0, sizeof(me));
    for (int i = 0; i < w->nids; i++) {
        int r = (int)((long long)i * w->size / w->nids);
        counts[r] = (int)sizeof(me);
        displs[r] = i * (int)sizeof(me);
        mine += r == w->rank;
    }
    if (mine)
        me.status = ncclGetUniqueId(&me.id);
    e = MPI_Allgatherv(&me, mine ? (int)sizeof(me) : 0, MPI_BYTE, all, counts, displs, MPI_BYTE,
                       comm);
    err = e == MPI_SUCCESS ? DMESH_SUCCESS : dmesh_error_mpi(e, "MPI_Allgatherv of NCCL ids");
    for (int i = 0; err == DMESH_SUCCESS && i < w->nids; i++) {
        if (all[i].status != ncclSuccess)
            err = dmesh_error_set(DMESH_ERR_NCCL, "ncclGetUniqueId on root %d of %d: %s", i,
                                  w->nids, ncclGetErrorString((ncclResult_t)all[i].status));
        w->ids[i] = all[i].id;
    }
    st->id_calls++;
    st->id_bytes += (long)w->nids * (long)sizeof(me);
    free(counts);
    free(all);
    return err;
}

/* Collective over comm, before any NCCL call: the GPU check, then the ids
 * (init: rank 0's, broadcast; scalable: the roots', gathered). A failure
 * is known to every member of comm, which then all skip NCCL. */
static int nccl_prepare(MPI_Comm comm, int how, int roots, int device, int err, nccl_work_t *w,
                        dmesh_nccl_stats_t *st)
{
    int e = MPI_Comm_rank(comm, &w->rank);

    if (e == MPI_SUCCESS)
        e = MPI_Comm_size(comm, &w->size);
    if (e != MPI_SUCCESS)
        return dmesh_error_mpi(e, "MPI_Comm_rank/size of an axis communicator");
    if (how == DMESH_NCCL_CREATE_SPLIT)
        return err; /* the parent checked the GPUs of the whole mesh */
    DMESH_TRY(nccl_check_gpus(comm, w->size, device, err));
    w->nids = how == DMESH_NCCL_CREATE_SCALABLE ? scalable_roots(roots, w->size) : 1;
    if ((w->ids = DMESH_FAULT_CALLOC((size_t)w->nids, sizeof(*w->ids))) == NULL)
        err = dmesh_error_set(DMESH_ERR_NOMEM, "NCCL ids: out of memory");
    DMESH_TRY(dmesh_agree_outcome(comm, err, "allocating NCCL ids"));
    if (how == DMESH_NCCL_CREATE_SCALABLE)
        return nccl_gather_ids(comm, w, st);
    st->id_calls++;
    st->id_bytes += (long)sizeof(nccl_id_msg_t);
    return nccl_share_id(comm, w->rank, w->ids);
}

/* Start one request's communicator (inside the group). */
static ncclResult_t nccl_start(int how, ncclComm_t parent, const dmesh_nccl_request_t *q,
                               nccl_work_t *w, dmesh_nccl_stats_t *st)
{
    ncclConfig_t config;

    nccl_config(q->opts, &config);
    if (how == DMESH_NCCL_CREATE_SPLIT) {
        int color = q->comm == MPI_COMM_NULL ? NCCL_SPLIT_NOCOLOR : q->color;
        st->splits += q->comm != MPI_COMM_NULL;
        return ncclCommSplit(parent, color, q->key, &w->c, &config);
    }
    if (how == DMESH_NCCL_CREATE_SCALABLE) {
#ifdef DMESH_HAVE_NCCL_SCALABLE
        st->scalable++;
        return ncclCommInitRankScalable(&w->c, w->size, w->rank, w->nids, w->ids, &config);
#else
        return ncclInvalidUsage; /* refused before: dmesh_nccl_comms_create */
#endif
    }
    st->bootstraps++;
    return ncclCommInitRankConfig(&w->c, w->size, w->ids[0], w->rank, &config);
}

/* Whether this rank calls NCCL for request q (split: every parent member). */
static int nccl_takes_part(int how, ncclComm_t parent, const dmesh_nccl_request_t *q)
{
    return how == DMESH_NCCL_CREATE_SPLIT ? parent != NULL : q->comm != MPI_COMM_NULL;
}

/* The NCCL call of each strategy (enum dmesh_nccl_create), for messages. */
static const char *const create_fn[] = {"ncclCommInitRankConfig", "ncclCommSplit",
                                        "ncclCommInitRankScalable"};

/* Wait (up to dmesh_timeout) until c, made by strategy how, is ready; a
 * non-blocking one also until a process of all fails. */
static int nccl_ready(ncclComm_t c, int how, const dmesh_nccl_options_t *opts, MPI_Comm all)
{
    double timeout = opts != NULL ? opts->timeout : 0;
    int nonblocking = timeout > 0 || (opts != NULL && (opts->set_mask & DMESH_NCCL_OPT_BLOCKING) &&
                                      opts->blocking == 0);
    int failed = 0;
    ncclResult_t state = ncclInProgress, r = ncclInProgress;

    /* a blocking communicator is complete after ncclGroupEnd: read its state */
    if (!nonblocking && (r = ncclCommGetAsyncError(c, &state)) == ncclSuccess)
        r = state;
    r = nccl_wait(c, r, timeout, all, &failed);

    if (r == ncclSuccess && dmesh_fault(DMESH_FAULT_NCCL_INIT))
        r = ncclSystemError;
    if (failed)
        return dmesh_error_set(DMESH_ERR_PROC_FAILED,
                               "%s: a process failed while it was in progress: aborted",
                               create_fn[how]);
    if (r == ncclInProgress)
        return dmesh_error_set(DMESH_ERR_TIMEOUT,
                               "%s: not complete after %g s (dmesh_timeout): "
                               "aborted",
                               create_fn[how], timeout);
    return r == ncclSuccess ? DMESH_SUCCESS : nccl_error(create_fn[how], r, c);
}

/* One group of every request's creation, then each waited for and checked;
 * a failed one is aborted here (its error in w->err). */
static void nccl_launch(MPI_Comm all, int how, ncclComm_t parent, int device, int n,
                        const dmesh_nccl_request_t req[], nccl_work_t w[], dmesh_nccl_stats_t *st)
{
    ncclResult_t r, g;
    int grouped = ncclGroupStart() == ncclSuccess;

    for (int i = 0; i < n; i++) {
        if (!nccl_takes_part(how, parent, &req[i]) || w[i].err != DMESH_SUCCESS)
            continue;
        /* nccl_start writes w[i].c; it is read only after the group */
        r = nccl_start(how, parent, &req[i], &w[i], st);
        if (r != ncclSuccess && r != ncclInProgress)
            w[i].err = nccl_error("creating an NCCL communicator", r, w[i].c);
    }
    g = grouped ? ncclGroupEnd() : ncclSuccess;
    for (int i = 0; i < n; i++) {
        if (w[i].c != NULL && w[i].err == DMESH_SUCCESS)
            w[i].err = nccl_ready(w[i].c, how, req[i].opts, all);
        /* a failed group end fails what it launched, even if each looks fine */
        if (g != ncclSuccess && g != ncclInProgress && w[i].err == DMESH_SUCCESS &&
            nccl_takes_part(how, parent, &req[i]))
            w[i].err = nccl_error("ncclGroupEnd after creating NCCL communicators", g, NULL);
        if (w[i].c != NULL && w[i].err == DMESH_SUCCESS)
            w[i].err = nccl_check_device(w[i].c, device);
        if (w[i].c != NULL && w[i].err != DMESH_SUCCESS) {
            (void)ncclCommAbort(w[i].c);
            w[i].c = NULL;
        }
    }
}

/* The first failure of the requests, else err. */
static int nccl_first_error(int n, const nccl_work_t w[], int err)
{
    for (int i = 0; i < n && err == DMESH_SUCCESS; i++)
        err = w[i].err;
    return err;
}

int dmesh_nccl_comms_create(MPI_Comm all, int how, void *parent, int roots, int device, int n,
                            dmesh_nccl_request_t req[], dmesh_nccl_stats_t *stats)
{
    dmesh_nccl_stats_t ignored;
    nccl_work_t *w = DMESH_FAULT_CALLOC((size_t)(n > 0 ? n : 1), sizeof(*w));
    int saved = device, active = how == DMESH_NCCL_CREATE_SPLIT && parent != NULL, err;

    if (stats == NULL)
        stats = memset(&ignored, 0, sizeof(ignored));
    for (int i = 0; i < n; i++)
        active |= req[i].comm != MPI_COMM_NULL;
    err = w == NULL ? dmesh_error_set(DMESH_ERR_NOMEM, "NCCL creation: out of memory")
                    : DMESH_SUCCESS;
    /* NCCL is loaded by the first NCCL creation, on every rank of all: a
     * "cuda" mesh whose dims all use MPI runs without it */
    if (err == DMESH_SUCCESS)
        err = dmesh_gpu_lib_load(DMESH_GPU_CUDART | DMESH_GPU_NCCL);
#ifndef DMESH_HAVE_NCCL_SCALABLE
    if (how == DMESH_NCCL_CREATE_SCALABLE)
        err = dmesh_error_set(DMESH_ERR_BACKEND,
                              "dmesh_nccl_create=scalable needs NCCL 2.23 "
                              "(ncclCommInitRankScalable); dmesh was built with an older NCCL");
#endif
    /* no CUDA call on a rank with nothing to make: it would make a CUDA context there */
    if (active && err == DMESH_SUCCESS)
        err = device_enter(device, &saved);
    err = dmesh_agree_outcome(all, err, "preparing NCCL creation");
    for (int i = 0; err == DMESH_SUCCESS && i < n; i++)
        if (req[i].comm != MPI_COMM_NULL)
            w[i].err = nccl_prepare(req[i].comm, how, roots, device, DMESH_SUCCESS, &w[i], stats);
    if (err == DMESH_SUCCESS) {
        /* test builds: a process may die here (fault.h), between the
         * bootstrap and NCCL's creation, which then waits for it: a
         * non-blocking one until the MPI knows of the failure (nccl_wait) */
        dmesh_fault_step();
        nccl_launch(all, how, (ncclComm_t)parent, device, n, req, w, stats);
    }
    err = dmesh_agree_outcome(all, nccl_first_error(n, w, err), "NCCL communicator creation");
    for (int i = 0; w != NULL && i < n; i++) {
        if (err != DMESH_SUCCESS && w[i].c != NULL)
            (void)ncclCommAbort(w[i].c);
        else
            req[i].nccl = w[i].c;
        free(w[i].ids);
    }
    if (active)
        device_leave(device, saved);
    free(w);
    return err;
}

int dmesh_nccl_comm_create(MPI_Comm comm, const dmesh_nccl_options_t *opts, int device,
                           void **nccl_comm)
{
    dmesh_nccl_request_t q;

    if (comm == MPI_COMM_NULL || nccl_comm == NULL)
        return dmesh_error_set(DMESH_ERR_INTERNAL, "dmesh_nccl_comm_create: no communicator");
    memset(&q, 0, sizeof(q));
    q.comm = comm;
    q.opts = opts;
    DMESH_TRY(dmesh_nccl_comms_create(comm, DMESH_NCCL_CREATE_INIT, NULL, 0, device, 1, &q, NULL));
    *nccl_comm = q.nccl;
    return DMESH_SUCCESS;
}

/* Finalize (waiting for pending work, also on a non-blocking communicator),
 * then destroy; on a failed finalize, abort to free the resources anyway. */
static int nccl_destroy(ncclComm_t c)
{
    ncclResult_t r = ncclCommFinalize(c);

    r = nccl_wait(c, r, 0, MPI_COMM_NULL, NULL);
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
    int saved = device, grouped, live = 0;

    for (int i = 0; i < n; i++)
        live += nccl_comms[i] != NULL;
    if (live == 0) /* no NCCL call: NCCL may never have been loaded */
        return DMESH_SUCCESS;
    if (device_enter(device, &saved) != DMESH_SUCCESS)
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

int dmesh_nccl_comm_revoke_all(int n, void *const nccl_comms[], int device, int *kept)
{
#ifdef DMESH_HAVE_NCCL_REVOKE
    ncclResult_t r, first = ncclSuccess;
    int saved = device, live = 0;

    for (int i = 0; i < n; i++)
        live += nccl_comms[i] != NULL;
    *kept = 1;
    if (live == 0)
        return DMESH_SUCCESS;
    if (dmesh_gpu_lib_has("ncclCommRevoke")) {
        if (device_enter(device, &saved) != DMESH_SUCCESS)
            saved = device; /* revoke on whatever device is current: releasing matters more */
        for (int i = 0; i < n; i++)
            if (nccl_comms[i] != NULL &&
                (r = ncclCommRevoke((ncclComm_t)nccl_comms[i], NCCL_REVOKE_DEFAULT)) !=
                    ncclSuccess &&
                r != ncclInProgress && first == ncclSuccess)
                first = r;
        device_leave(device, saved);
        return first == ncclSuccess ? DMESH_SUCCESS : nccl_error("ncclCommRevoke", first, NULL);
    }
#endif
    *kept = 0; /* an NCCL without ncclCommRevoke: aborting is how to release them */
    return dmesh_nccl_comm_abort_all(n, nccl_comms, device);
}

int dmesh_nccl_can_shrink(void)
{
    return dmesh_gpu_lib_has("ncclCommShrink") && dmesh_gpu_lib_has("ncclCommRevoke");
}

int dmesh_nccl_comm_shrink(void *parent, int nexclude, const int exclude[], int failed,
                           const dmesh_nccl_options_t *opts, int device, void **nccl_comm,
                           dmesh_nccl_stats_t *stats)
{
#ifdef DMESH_HAVE_NCCL_SHRINK
    ncclComm_t p = (ncclComm_t)parent, c = NULL;
    ncclConfig_t config;
    ncclResult_t r;
    int saved = device, err;

    if (p == NULL || !dmesh_nccl_can_shrink())
        return dmesh_error_set(DMESH_ERR_BACKEND, "NCCL without ncclCommShrink/ncclCommRevoke");
    DMESH_TRY(device_enter(device, &saved));
    /* a revoked communicator is in progress until quiescent: only then may
     * it be shrunk */
    r = nccl_wait(p, ncclInProgress, opts != NULL ? opts->timeout : 0, MPI_COMM_NULL, NULL);
    if (r == ncclInProgress)
        err = dmesh_error_set(DMESH_ERR_TIMEOUT,
                              "revoked NCCL communicator not quiescent after %g s (dmesh_timeout)",
                              opts->timeout);
    else {
        nccl_config(opts, &config);
        /* NCCL takes the list as int *: a copy, so that the caller's stays const */
        int *list = DMESH_FAULT_CALLOC((size_t)(nexclude > 0 ? nexclude : 1), sizeof(int));
        if (list == NULL)
            err = dmesh_error_set(DMESH_ERR_NOMEM, "ncclCommShrink: out of memory");
        else {
            memcpy(list, exclude, (size_t)nexclude * sizeof(int));
            r = ncclCommShrink(p, list, nexclude, &c, &config,
                               failed ? NCCL_SHRINK_ABORT : NCCL_SHRINK_DEFAULT);
            free(list);
            err = r == ncclSuccess || r == ncclInProgress ? DMESH_SUCCESS
                                                          : nccl_error("ncclCommShrink", r, c);
            if (err == DMESH_SUCCESS && c != NULL) {
                /* a blocking one is complete: read its state; else wait */
                ncclResult_t state = r;
                if (r == ncclSuccess && ncclCommGetAsyncError(c, &state) != ncclSuccess)
                    state = ncclInternalError;
                state = nccl_wait(c, state, opts != NULL ? opts->timeout : 0, MPI_COMM_NULL, NULL);
                err = state == ncclSuccess      ? nccl_check_device(c, device)
                      : state == ncclInProgress ? dmesh_error_set(DMESH_ERR_TIMEOUT,
                                                                  "ncclCommShrink: not complete "
                                                                  "after %g s (dmesh_timeout)",
                                                                  opts->timeout)
                                                : nccl_error("ncclCommShrink", state, c);
            }
        }
    }
    if (err != DMESH_SUCCESS && c != NULL)
        (void)ncclCommAbort(c);
    device_leave(device, saved);
    if (err != DMESH_SUCCESS)
        return err;
    if (stats != NULL)
        stats->shrinks++;
    *nccl_comm = c;
    return DMESH_SUCCESS;
#else
    (void)parent;
    (void)nexclude;
    (void)exclude;
    (void)failed;
    (void)opts;
    (void)device;
    (void)nccl_comm;
    (void)stats;
    return dmesh_error_set(DMESH_ERR_BACKEND,
                           "dmesh was built with an NCCL older than 2.27 (no ncclCommShrink)");
#endif
}
