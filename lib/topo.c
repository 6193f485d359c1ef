/* SPDX-License-Identifier: BSD-3-Clause */
/* Device binding with the CUDA runtime (doc/gpu.md, section 2).
 *
 * Every rank goes through the same collective steps whatever its options or
 * errors (node split, one allgather on the node, one allreduce on the
 * universe's communicator), so that a rank with a forced device, or one
 * that failed, never leaves the others waiting. CUDA numbering is what
 * counts: CUDA_VISIBLE_DEVICES is honoured by the runtime itself. */
#include "config.h"

#include "api_impl.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "agree.h"
#include "error.h"
#include "fault.h"
#include "gpu_lib.h"
#include "hash.h"
#include "node_find.h"
#include "topo.h"
#include "topo_node.h"

#define REASON_LEN 320

/* One device per process (doc/gpu.md): the first "cuda" universe
 * in which the process is a member chooses it, every later one keeps it.
 * The node's topology is loaded once and kept for later plans. */
static pthread_mutex_t process_lock = PTHREAD_MUTEX_INITIALIZER;
static int process_device = -1;
/* Bindings in flight that claimed process_device before their agreement,
 * and whether one of them (or an earlier one) succeeded: a failed binding
 * gives the device back only when no other holds or kept it. */
static int process_claims;
static int process_confirmed;
static dmesh_topo_node_t *process_topo;
static unsigned long process_topo_devices; /* hash of the devices process_topo knows */

typedef struct {
    MPI_Comm node;
    int rank, node_rank, node_size;
    int ndev;
    char (*busid)[DMESH_TOPO_BUSID_LEN];
    dmesh_topo_record_t rec;  /* this rank's part of the exchange */
    dmesh_topo_record_t *all; /* every node rank's, in node rank order */
    dmesh_topo_node_t *topo;  /* process_topo, or NULL: local rank modulo */
    int bound;                /* process_device when this rank planned */
    char reason[REASON_LEN];
    dmesh_node_t found; /* the node (node_find.h): node is its communicator */
} bind_state_t;

void dmesh_topo_forget(void)
{
    pthread_mutex_lock(&process_lock);
    process_device = -1;
    process_claims = 0;
    process_confirmed = 0;
    dmesh_topo_node_close(process_topo);
    process_topo = NULL;
    pthread_mutex_unlock(&process_lock);
}

/* The node's topology, loaded at the first plan of the process (hwloc's
 * load costs far more than a plan). A topology that cannot be loaded is
 * not an error: the plan falls back to local rank modulo device count. */
static void topo_open(bind_state_t *s)
{
    if (process_topo == NULL || process_topo_devices != s->rec.devices) {
        dmesh_topo_node_close(process_topo);
        process_topo = NULL;
        if (dmesh_topo_node_open(s->ndev, (const char(*)[DMESH_TOPO_BUSID_LEN])s->busid,
                                 &process_topo) != DMESH_SUCCESS) {
            snprintf(s->reason, sizeof(s->reason), "(%s) ", dmesh_last_error_impl());
            process_topo = NULL;
        }
        process_topo_devices = s->rec.devices;
    }
    s->topo = process_topo;
}

static int cuda_count(int *ndev)
{
    cudaError_t c = cudaGetDeviceCount(ndev);
    const char *visible = getenv("CUDA_VISIBLE_DEVICES");

    if (c != cudaSuccess) {
        (void)cudaGetLastError(); /* leave no error behind for the application */
        *ndev = 0;
        return dmesh_error_set(DMESH_ERR_NO_DEVICE,
                               "device type \"cuda\": no usable CUDA device (CUDA says, "
                               "cudaGetDeviceCount: %s)",
                               cudaGetErrorString(c));
    }
    if (*ndev < 1)
        return dmesh_error_set(DMESH_ERR_NO_DEVICE,
                               "device type \"cuda\": no CUDA device is visible "
                               "(CUDA_VISIBLE_DEVICES=%s)",
                               visible ? visible : "(unset)");
    return DMESH_SUCCESS;
}

/* The hash (hash.h) of a string, continuing h. */
static uint64_t hash_string(uint64_t h, const char *str)
{
    return dmesh_hash(h, str, strlen(str) + 1); /* the NUL: "ab","c" differs from "a","bc" */
}

/* Bus ids of the visible devices, and their hash: ranks of a node that see
 * the same devices in the same order plan together. */
static int cuda_busids(bind_state_t *s)
{
    uint64_t h = DMESH_HASH_INIT;

    s->busid = DMESH_FAULT_CALLOC(s->ndev, sizeof(*s->busid));
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

/* Local facts: devices, and for a rank that plans, localities and binding.
 * A rank outside the mesh asks CUDA nothing (it makes no context); a rank
 * already bound plans anyway, so that the others plan as they would have. */
static int bind_probe(bind_state_t *s, const dmesh_options_t *opts, int member)
{
    if (!member)
        return DMESH_SUCCESS;
    DMESH_TRY(cuda_count(&s->ndev));
    if (s->bound < 0 && (opts->device >= 0 || opts->bind == DMESH_BIND_NONE || s->ndev == 1))
        return DMESH_SUCCESS;
    if (s->ndev == 1)
        return DMESH_SUCCESS;
    DMESH_TRY(cuda_busids(s));
    topo_open(s);
    if (s->topo != NULL)
        dmesh_topo_node_binding(s->topo, &s->rec);
    s->rec.flags |= DMESH_TOPO_REC_PLANNING;
    return DMESH_SUCCESS;
}

/* Collective over comm: the node (node_find.h: the group that plans its
 * devices together), an agreement on the allocation and one allgather on
 * it. */
static int bind_exchange(MPI_Comm comm, int rule, dmesh_node_cache_t *nodes, bind_state_t *s)
{
    int e = dmesh_node_find(comm, rule, DMESH_SUCCESS, nodes, &s->found);

    if (!s->found.agreed)
        return e; /* on every rank */
    s->node = s->found.comm;
    MPI_Comm_rank(s->node, &s->node_rank);
    MPI_Comm_size(s->node, &s->node_size);
    s->all = DMESH_FAULT_CALLOC(s->node_size, sizeof(*s->all));
    /* agreed on the node before its allgather: a rank without the memory
     * must not leave the others waiting in it */
    if (e == DMESH_SUCCESS && s->all == NULL)
        e = dmesh_error_set(DMESH_ERR_NOMEM, "device binding: out of memory");
    DMESH_TRY(dmesh_agree_outcome(s->node, e, "device binding (allocation)"));
    e = MPI_Allgather(&s->rec, DMESH_TOPO_RECORD_WORDS, MPI_UNSIGNED_LONG, s->all,
                      DMESH_TOPO_RECORD_WORDS, MPI_UNSIGNED_LONG, s->node);
    if (e == MPI_SUCCESS && dmesh_fault(DMESH_FAULT_ALLGATHER))
        e = MPI_ERR_INTERN;
    if (e != MPI_SUCCESS)
        return dmesh_error_mpi(e, "device binding: MPI_Allgather on the node");
    return DMESH_SUCCESS;
}

/* The plan among the node's ranks that plan over the same devices. */
static int bind_plan(bind_state_t *s, int *device)
{
    dmesh_topo_record_t *peers = DMESH_FAULT_MALLOC(s->node_size * sizeof(*peers));
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
    if (s->topo != NULL) {
        err = dmesh_topo_node_choose(s->topo, s->ndev, n, peers, me, device, s->reason,
                                     sizeof(s->reason));
    } else { /* no usable topology (hwloc missing or failing): the fallback */
        size_t at = strlen(s->reason);
        *device = me % s->ndev;
        snprintf(s->reason + at, sizeof(s->reason) - at, "local rank %d mod %d devices", me,
                 s->ndev);
        err = DMESH_SUCCESS;
    }
    free(peers);
    return err;
}

/* A rank bound by an earlier universe keeps its device; a plan that would
 * now give another is only reported (DMESH_DEBUG). */
static int bind_keep(bind_state_t *s, const dmesh_options_t *opts, int *device)
{
    int planned = -1;

    if (opts->device >= 0 && opts->device != s->bound)
        return dmesh_error_set(DMESH_ERR_NO_DEVICE,
                               "dmesh_device=%d, but this process was bound to CUDA device %d "
                               "by its first \"cuda\" mesh (one device per process)",
                               opts->device, s->bound);
    if ((s->rec.flags & DMESH_TOPO_REC_PLANNING) && bind_plan(s, &planned) == DMESH_SUCCESS &&
        planned != s->bound && opts->debug)
        fprintf(stderr,
                "dmesh: rank %d: this mesh's plan would choose CUDA device %d (%s); "
                "keeping device %d chosen by the first \"cuda\" mesh\n",
                s->rank, planned, s->reason, s->bound);
    *device = s->bound;
    snprintf(s->reason, sizeof(s->reason), "kept from the process's first \"cuda\" mesh");
    return DMESH_SUCCESS;
}

static int bind_decide(bind_state_t *s, const dmesh_options_t *opts, int *device)
{
    cudaError_t c;

    if (s->bound >= 0)
        return bind_keep(s, opts, device);
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
    c = dmesh_fault(DMESH_FAULT_SET_DEVICE) ? cudaErrorDevicesUnavailable : cudaSetDevice(device);
    if (c != cudaSuccess)
        return dmesh_error_set(DMESH_ERR_CUDA, "cudaSetDevice(%d): %s", device,
                               cudaGetErrorString(c));
    return DMESH_SUCCESS;
}

static void bind_debug(const bind_state_t *s, int device)
{
    fprintf(stderr, "dmesh: rank %d (node rank %d of %d; node: %s): CUDA device %d%s%s: %s\n",
            s->rank, s->node_rank, s->node_size, s->found.detail, device, s->busid ? " at " : "",
            s->busid ? s->busid[device] : "", s->reason);
}

static void bind_free(bind_state_t *s)
{
    free(s->all);
    free(s->busid);
    dmesh_node_free(&s->found);
}

/* Under process_lock, before the agreement: the first binding of the
 * process claims its device. Another thread's "cuda" universe may have
 * bound the process meanwhile (both planned while neither had published):
 * the same device is fine, another one breaks the one-device rule. */
static int bind_claim(bind_state_t *s, int dev, int *claimed)
{
    *claimed = 0;
    if (s->bound >= 0)
        return DMESH_SUCCESS;
    if (process_device >= 0 && process_device != dev)
        return dmesh_error_set(DMESH_ERR_NO_DEVICE,
                               "device binding: another thread bound this process to CUDA "
                               "device %d while this mesh chose %d (one device per process)",
                               process_device, dev);
    *claimed = 1;
    process_claims++;
    process_device = dev;
    return DMESH_SUCCESS;
}

/* process_lock guards the process's state (process_device, process_topo)
 * during the local steps only, never across a collective: two threads that
 * create "cuda" meshes on different communicators (MPI_THREAD_MULTIPLE) may
 * enter the exchanges in different orders on different ranks, and a lock
 * held across them would deadlock the ranks. */
int dmesh_topo_bind(MPI_Comm comm, const dmesh_options_t *opts, dmesh_node_cache_t *nodes,
                    int member, int *device)
{
    bind_state_t s;
    int dev = -1, err, xerr, claimed = 0;

    memset(&s, 0, sizeof(s));
    s.node = MPI_COMM_NULL;
    MPI_Comm_rank(comm, &s.rank);
    pthread_mutex_lock(&process_lock);
    s.bound = process_device;
    /* every rank of a "cuda" mesh loads the CUDA runtime; a rank without it
     * goes through the exchange and fails in the agreement */
    err = dmesh_gpu_lib_load(DMESH_GPU_CUDART);
    if (err == DMESH_SUCCESS)
        err = bind_probe(&s, opts, member);
    pthread_mutex_unlock(&process_lock);
    xerr = bind_exchange(comm, opts->node, nodes, &s);
    if (err == DMESH_SUCCESS)
        err = xerr;
    pthread_mutex_lock(&process_lock);
    if (s.topo != NULL && (process_topo_devices != s.rec.devices || s.topo != process_topo))
        s.topo = NULL; /* replaced by another thread meanwhile: plan without it */
    if (err == DMESH_SUCCESS && member)
        err = bind_decide(&s, opts, &dev);
    else if (err == DMESH_SUCCESS)
        dev = s.bound; /* outside the mesh: no device of its own here */
    if (err == DMESH_SUCCESS && member)
        err = bind_claim(&s, dev, &claimed);
    pthread_mutex_unlock(&process_lock);
    if (err == DMESH_SUCCESS && member)
        err = bind_set(opts, dev);
    err = dmesh_agree_outcome(comm, err, "device binding");
    if (err == DMESH_SUCCESS)
        dmesh_node_keep(nodes, opts->node, &s.found);
    if (claimed) {
        pthread_mutex_lock(&process_lock);
        process_claims--;
        process_confirmed |= err == DMESH_SUCCESS;
        if (!process_confirmed && process_claims == 0)
            process_device = -1; /* every claim failed somewhere: not this process's device */
        pthread_mutex_unlock(&process_lock);
    }
    if (err == DMESH_SUCCESS && opts->debug && member)
        bind_debug(&s, dev);
    bind_free(&s);
    if (err == DMESH_SUCCESS)
        *device = dev;
    return err;
}
