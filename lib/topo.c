/* Device binding with the CUDA runtime (DESIGN.md section 6).
 *
 * Every rank goes through the same collective steps whatever its options or
 * errors (node split, one allgather on the node, one allreduce on the
 * universe's communicator), so that a rank with a forced device, or one
 * that failed, never leaves the others waiting. CUDA numbering is what
 * counts: CUDA_VISIBLE_DEVICES is honoured by the runtime itself. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "agree.h"
#include "error.h"
#include "topo.h"
#include "topo_node.h"

#define REASON_LEN 320

typedef struct {
    MPI_Comm node;
    int rank, node_rank, node_size;
    int ndev;
    char (*busid)[DMESH_TOPO_BUSID_LEN];
    dmesh_topo_record_t rec;  /* this rank's part of the exchange */
    dmesh_topo_record_t *all; /* every node rank's, in node rank order */
    dmesh_topo_node_t *topo;
    char reason[REASON_LEN];
} bind_state_t;

static int cuda_count(int *ndev)
{
    cudaError_t c = cudaGetDeviceCount(ndev);
    const char *visible = getenv("CUDA_VISIBLE_DEVICES");

    if (c != cudaSuccess) {
        (void)cudaGetLastError(); /* leave no error behind for the application */
        *ndev = 0;
        return dmesh_error_set(DMESH_ERR_NO_DEVICE, "device type \"cuda\": cudaGetDeviceCount: %s",
                               cudaGetErrorString(c));
    }
    if (*ndev < 1)
        return dmesh_error_set(DMESH_ERR_NO_DEVICE,
                               "device type \"cuda\": no CUDA device is visible "
                               "(CUDA_VISIBLE_DEVICES=%s)",
                               visible ? visible : "(unset)");
    return DMESH_SUCCESS;
}

/* 64-bit FNV-1a of a string, continuing h. */
static unsigned long long hash_string(unsigned long long h, const char *str)
{
    for (; *str; str++)
        h = (h ^ (unsigned char)*str) * 1099511628211ULL;
    return (h ^ 0xff) * 1099511628211ULL; /* ends a string: "ab","c" differs from "a","bc" */
}

/* Bus ids of the visible devices, and their hash: ranks of a node that see
 * the same devices in the same order plan together. */
static int cuda_busids(bind_state_t *s)
{
    unsigned long long h = 14695981039346656037ULL;

    s->busid = calloc(s->ndev, sizeof(*s->busid));
    if (s->busid == NULL)
        return dmesh_error_set(DMESH_ERR_NOMEM, "device binding: out of memory");
    for (int d = 0; d < s->ndev; d++) {
        cudaError_t c = cudaDeviceGetPCIBusId(s->busid[d], DMESH_TOPO_BUSID_LEN, d);
        if (c != cudaSuccess)
            return dmesh_error_set(DMESH_ERR_CUDA, "cudaDeviceGetPCIBusId(%d): %s", d,
                                   cudaGetErrorString(c));
        h = hash_string(h, s->busid[d]);
    }
    s->rec.devices = (unsigned long)h;
    return DMESH_SUCCESS;
}

/* Local facts: devices, and for a rank that plans, localities and binding. */
static int bind_probe(bind_state_t *s, const dmesh_options_t *opts)
{
    DMESH_TRY(cuda_count(&s->ndev));
    if (opts->device >= 0 || opts->bind == DMESH_BIND_NONE || s->ndev == 1)
        return DMESH_SUCCESS;
    DMESH_TRY(cuda_busids(s));
    DMESH_TRY(
        dmesh_topo_node_open(s->ndev, (const char(*)[DMESH_TOPO_BUSID_LEN])s->busid, &s->topo));
    dmesh_topo_node_binding(s->topo, &s->rec);
    s->rec.flags |= DMESH_TOPO_REC_PLANNING;
    return DMESH_SUCCESS;
}

/* Collective over comm: the node communicator and one allgather on it. */
static int bind_exchange(MPI_Comm comm, bind_state_t *s)
{
    int e = MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &s->node);

    if (e != MPI_SUCCESS)
        return dmesh_error_mpi(e, "device binding: MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)");
    MPI_Comm_rank(s->node, &s->node_rank);
    MPI_Comm_size(s->node, &s->node_size);
    s->all = calloc(s->node_size, sizeof(*s->all));
    if (s->all == NULL)
        return dmesh_error_set(DMESH_ERR_NOMEM, "device binding: out of memory");
    e = MPI_Allgather(&s->rec, DMESH_TOPO_RECORD_WORDS, MPI_UNSIGNED_LONG, s->all,
                      DMESH_TOPO_RECORD_WORDS, MPI_UNSIGNED_LONG, s->node);
    if (e != MPI_SUCCESS)
        return dmesh_error_mpi(e, "device binding: MPI_Allgather on the node");
    return DMESH_SUCCESS;
}

/* The plan among the node's ranks that plan over the same devices. */
static int bind_plan(bind_state_t *s, int *device)
{
    dmesh_topo_record_t *peers = malloc(s->node_size * sizeof(*peers));
    int n = 0, me = 0, err;

    if (peers == NULL)
        return dmesh_error_set(DMESH_ERR_NOMEM, "device binding: out of memory");
    for (int i = 0; i < s->node_size; i++) {
        if (!(s->all[i].flags & DMESH_TOPO_REC_PLANNING) || s->all[i].devices != s->rec.devices)
            continue;
        if (i == s->node_rank)
            me = n;
        peers[n++] = s->all[i];
    }
    err = dmesh_topo_node_choose(s->topo, s->ndev, n, peers, me, device, s->reason,
                                 sizeof(s->reason));
    free(peers);
    return err;
}

static int bind_decide(bind_state_t *s, const dmesh_options_t *opts, int *device)
{
    cudaError_t c;

    if (opts->device >= s->ndev)
        return dmesh_error_set(DMESH_ERR_NO_DEVICE,
                               "dmesh_device=%d, but only %d CUDA devices are visible",
                               opts->device, s->ndev);
    if (opts->device >= 0) {
        *device = opts->device;
        snprintf(s->reason, sizeof(s->reason), "forced by dmesh_device / DMESH_DEVICE");
    } else if (opts->bind == DMESH_BIND_NONE) {
        if ((c = cudaGetDevice(device)) != cudaSuccess)
            return dmesh_error_set(DMESH_ERR_CUDA, "cudaGetDevice: %s", cudaGetErrorString(c));
        snprintf(s->reason, sizeof(s->reason), "dmesh_bind=none: the current device");
    } else if (s->ndev == 1) {
        *device = 0;
        snprintf(s->reason, sizeof(s->reason), "the only visible device");
    } else {
        return bind_plan(s, device);
    }
    return DMESH_SUCCESS;
}

static int bind_set(const dmesh_options_t *opts, int device)
{
    cudaError_t c;

    if (opts->bind == DMESH_BIND_NONE && opts->device < 0)
        return DMESH_SUCCESS;
    c = cudaSetDevice(device);
    if (c != cudaSuccess)
        return dmesh_error_set(DMESH_ERR_CUDA, "cudaSetDevice(%d): %s", device,
                               cudaGetErrorString(c));
    return DMESH_SUCCESS;
}

static void bind_debug(const bind_state_t *s, int device)
{
    fprintf(stderr, "dmesh: rank %d (node rank %d of %d): CUDA device %d%s%s: %s\n", s->rank,
            s->node_rank, s->node_size, device, s->busid ? " at " : "",
            s->busid ? s->busid[device] : "", s->reason);
}

static void bind_free(bind_state_t *s)
{
    dmesh_topo_node_close(s->topo);
    free(s->all);
    free(s->busid);
    if (s->node != MPI_COMM_NULL)
        MPI_Comm_free(&s->node);
}

int dmesh_topo_bind(MPI_Comm comm, const dmesh_options_t *opts, int *device)
{
    bind_state_t s;
    int dev = -1, err, xerr;

    memset(&s, 0, sizeof(s));
    s.node = MPI_COMM_NULL;
    MPI_Comm_rank(comm, &s.rank);
    err = bind_probe(&s, opts);
    xerr = bind_exchange(comm, &s);
    if (err == DMESH_SUCCESS)
        err = xerr;
    if (err == DMESH_SUCCESS)
        err = bind_decide(&s, opts, &dev);
    if (err == DMESH_SUCCESS)
        err = bind_set(opts, dev);
    err = dmesh_agree(comm, 0, err, "device binding");
    if (err == DMESH_SUCCESS && opts->debug)
        bind_debug(&s, dev);
    bind_free(&s);
    if (err == DMESH_SUCCESS)
        *device = dev;
    return err;
}
