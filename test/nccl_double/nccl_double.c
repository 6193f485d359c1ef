/* SPDX-License-Identifier: BSD-3-Clause */
/* Test double of the NCCL calls dmesh makes, as strict as NCCL 2.28:
 *  - ncclCommInitRankConfig meets the other nranks members of its unique id
 *    (MPI point-to-point on MPI_COMM_WORLD to the rank that made the id),
 *    so a rank that never arrives leaves the others waiting, as NCCL does;
 *  - it refuses the config values NCCL's parseCommConfig refuses;
 *  - it records the calling thread's CUDA device (the CUDA double) and
 *    fails every member with "Duplicate GPU" when two share one bus id;
 *  - a failure after the arguments were accepted leaves a communicator in
 *    an error state that must be aborted; a non-blocking communicator
 *    answers ncclInProgress until ncclCommGetAsyncError has seen it done;
 *  - ncclAllReduce reduces host buffers through MPI over the members;
 *  - a member that died during the rendezvous fails the others' init
 *    (ncclRemoteError), as a closed bootstrap socket does NCCL's: the
 *    double's point-to-point returns errors while it runs.
 * An id carries the world rank and pid that made it and a serial number.
 * Calls on a communicator that was destroyed or aborted fail, as they would
 * corrupt memory with the real library. */
#include "config.h"

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cuda_runtime_api.h>
#include <mpi.h>
#if DMESH_HAVE_ULFM
#include <mpi-ext.h>
#endif

#include "nccl_double.h"

#define ID_MAGIC "dmesh-nccl-double"
#define MAX_COMMS 1024
#define HOST_LEN 64

typedef struct {
    char magic[sizeof(ID_MAGIC)];
    int origin;
    long pid;
    unsigned long serial;
} double_id_t;

/* What a member tells the others at the rendezvous. */
typedef struct {
    int world, rank, nranks, device;
    unsigned long ids_hash; /* ncclCommInitRankScalable: the ids it was given */
    char busid[32];
    char host[HOST_LEN];
} member_t;

/* A pending allreduce of a non-blocking communicator. */
typedef struct {
    const void *send;
    void *recv;
    size_t count;
    MPI_Datatype type;
    MPI_Op op;
    int pending;
} op_t;

struct ncclComm {
    nccl_double_comm_info_t info;
    ncclResult_t state; /* ncclInProgress until ready, then success or the error */
    int polls;          /* ncclInProgress answers left once the work is done */
    double_id_t id;
    member_t me, *members;
    int arrived, tag;
    MPI_Request req[2];
    MPI_Comm mpi; /* the members, in NCCL rank order */
    op_t op;
    ncclResult_t injected; /* this rank's init fails so once everyone arrived */
    int in_group;          /* started inside a group, the rendezvous still to do */
    int splits;            /* ncclCommSplit calls on it, the same count on every member */
};

static struct ncclComm *comms[MAX_COMMS];
static int ncomms, group_depth, polls_setting;
static unsigned long ids_made;
static char fail_fn[64];
static ncclResult_t fail_result;
static char last_error[256];

/* The calls counted by nccl_double_calls. */
static const char *const counted[] = {
    "ncclGetUniqueId", "ncclCommInitRankConfig", "ncclCommInitRankScalable", "ncclCommSplit",
    "ncclCommShrink",  "ncclCommRevoke",         "ncclCommFinalize",         "ncclCommDestroy",
    "ncclCommAbort",   "ncclAllReduce",          "ncclGroupStart",           "ncclGroupEnd"};
static unsigned long calls[sizeof(counted) / sizeof(counted[0])];

static void count_call(const char *fn)
{
    for (size_t i = 0; i < sizeof(counted) / sizeof(counted[0]); i++)
        if (strcmp(counted[i], fn) == 0)
            calls[i]++;
}

unsigned long nccl_double_calls(const char *fn)
{
    for (size_t i = 0; i < sizeof(counted) / sizeof(counted[0]); i++)
        if (strcmp(counted[i], fn) == 0)
            return calls[i];
    return 0;
}

void nccl_double_fail_next(const char *fn, ncclResult_t r)
{
    snprintf(fail_fn, sizeof(fail_fn), "%s", fn ? fn : "");
    fail_result = r;
}

void nccl_double_set_polls(int polls)
{
    polls_setting = polls;
}

/* The injected failure of fn, consumed; ncclSuccess when none. */
static ncclResult_t injected(const char *fn)
{
    if (strcmp(fail_fn, fn) != 0)
        return ncclSuccess;
    fail_fn[0] = '\0';
    snprintf(last_error, sizeof(last_error), "injected failure of %s", fn);
    return fail_result;
}

static ncclResult_t refuse(ncclResult_t r, const char *what, int a, int b)
{
    snprintf(last_error, sizeof(last_error), what, a, b);
    return r;
}

static int world_rank(void)
{
    int rank = -1;

    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    return rank;
}

/* A communicator of the double that is still usable, or NULL. */
static struct ncclComm *live(ncclComm_t comm)
{
    for (int i = 0; i < ncomms; i++)
        if (comms[i] == comm)
            return comm->info.destroyed || comm->info.aborted ? NULL : comm;
    return NULL;
}

ncclResult_t ncclGetUniqueId(ncclUniqueId *uniqueId)
{
    double_id_t id;
    ncclResult_t r = (count_call("ncclGetUniqueId"), injected("ncclGetUniqueId"));

    if (r != ncclSuccess)
        return r;
    memset(uniqueId, 0, sizeof(*uniqueId));
    memset(&id, 0, sizeof(id));
    memcpy(id.magic, ID_MAGIC, sizeof(ID_MAGIC));
    id.origin = world_rank();
    id.pid = (long)getpid();
    id.serial = ++ids_made;
    memcpy(uniqueId->internal, &id, sizeof(id));
    return ncclSuccess;
}

/* NCCL's parseCommConfig: the checks it makes before defaults are applied
 * (so minCTAs without maxCTAs compares with NCCL_CONFIG_UNDEF_INT). */
static ncclResult_t config_check(const ncclConfig_t *c)
{
    ncclConfig_t defaults = NCCL_CONFIG_INITIALIZER;
    const int undef = NCCL_CONFIG_UNDEF_INT;

    if (c->size != defaults.size || c->magic != defaults.magic || c->version != defaults.version)
        return refuse(ncclInvalidArgument, "config not from NCCL_CONFIG_INITIALIZER%.0d%.0d", 0, 0);
    if (c->blocking != undef && c->blocking != 0 && c->blocking != 1)
        return refuse(ncclInvalidArgument, "Invalid config blocking attribute value %d%.0d",
                      c->blocking, 0);
    if (c->cgaClusterSize != undef && c->cgaClusterSize < 0)
        return refuse(ncclInvalidArgument, "Invalid config cgaClusterSize attribute value %d%.0d",
                      c->cgaClusterSize, 0);
    if ((c->minCTAs != undef && c->minCTAs <= 0) || (c->maxCTAs != undef && c->maxCTAs <= 0) ||
        c->minCTAs > c->maxCTAs)
        return refuse(ncclInvalidArgument, "Invalid config min/max channels attribute value %d/%d",
                      c->minCTAs, c->maxCTAs);
    if (c->splitShare != undef && c->splitShare != 0 && c->splitShare != 1)
        return refuse(ncclInvalidArgument, "Invalid config splitShare attribute value %d%.0d",
                      c->splitShare, 0);
    return ncclSuccess;
}

/* This member's facts: the calling thread's device, as NCCL reads it. */
static ncclResult_t member_self(member_t *m, int rank, int nranks)
{
    memset(m, 0, sizeof(*m));
    m->world = world_rank();
    m->rank = rank;
    m->nranks = nranks;
    if (cudaGetDevice(&m->device) != cudaSuccess ||
        cudaDeviceGetPCIBusId(m->busid, (int)sizeof(m->busid), m->device) != cudaSuccess)
        return refuse(ncclUnhandledCudaError, "Cuda failure: no device %d%.0d", m->device, 0);
    gethostname(m->host, sizeof(m->host) - 1);
    return ncclSuccess;
}

static struct ncclComm *comm_new(int nranks, const double_id_t *id, int rank,
                                 const ncclConfig_t *config)
{
    struct ncclComm *c = calloc(1, sizeof(*c));

    if (c != NULL)
        c->members = calloc((size_t)nranks, sizeof(*c->members));
    if (c == NULL || c->members == NULL || ncomms == MAX_COMMS) {
        free(c ? c->members : NULL);
        free(c);
        return NULL;
    }
    c->info.nranks = nranks;
    c->info.rank = rank;
    c->info.id_origin = id->origin;
    c->info.id_serial = id->serial;
    c->info.config = *config;
    if (config->netName != NULL) {
        snprintf(c->info.net_name, sizeof(c->info.net_name), "%s", config->netName);
        c->info.config.netName = c->info.net_name;
    }
    if (config->commName != NULL) {
        snprintf(c->info.comm_name, sizeof(c->info.comm_name), "%s", config->commName);
        c->info.config.commName = c->info.comm_name;
    }
    c->id = *id;
    c->tag = 100 + 2 * (int)(id->serial % 16000);
    c->state = ncclInProgress;
    c->mpi = MPI_COMM_NULL;
    c->req[0] = c->req[1] = MPI_REQUEST_NULL;
    comms[ncomms++] = c;
    return c;
}

/* NCCL's bootstrap meets a dead peer as a failed socket: the init fails
 * and the process goes on. The rendezvous's point-to-point on
 * MPI_COMM_WORLD returns errors likewise, whatever handler the program set
 * there (restored after; nested and threads counted). */
static pthread_mutex_t quiet_lock = PTHREAD_MUTEX_INITIALIZER;
static int quiet_depth;
static MPI_Errhandler quiet_saved;

static void quiet_begin(void)
{
    pthread_mutex_lock(&quiet_lock);
    if (quiet_depth++ == 0) {
        MPI_Comm_get_errhandler(MPI_COMM_WORLD, &quiet_saved);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    }
    pthread_mutex_unlock(&quiet_lock);
}

static void quiet_end(void)
{
    pthread_mutex_lock(&quiet_lock);
    if (--quiet_depth == 0) {
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, quiet_saved);
        MPI_Errhandler_free(&quiet_saved);
    }
    pthread_mutex_unlock(&quiet_lock);
}

/* Start the rendezvous: a member sends its facts to the id's maker and
 * waits for everyone's; the maker collects (rendezvous_progress). */
static void rendezvous_start(struct ncclComm *c)
{
    c->members[c->me.rank] = c->me;
    c->arrived = 1;
    if (c->me.world == c->id.origin)
        return;
    quiet_begin();
    MPI_Isend(&c->me, (int)sizeof(member_t), MPI_BYTE, c->id.origin, c->tag, MPI_COMM_WORLD,
              &c->req[0]);
    MPI_Irecv(c->members, c->info.nranks * (int)sizeof(member_t), MPI_BYTE, c->id.origin,
              c->tag + 1, MPI_COMM_WORLD, &c->req[1]);
    quiet_end();
}

/* One step of the rendezvous without blocking; 1 when everyone is known,
 * -1 when a message to or from a member failed. */
static int rendezvous_step(struct ncclComm *c)
{
    int flag = 0;

    if (c->me.world != c->id.origin) {
        MPI_Status done[2]; /* not MPI_STATUSES_IGNORE: gcc misreads MPICH's access attribute */

        if (MPI_Testall(2, c->req, &flag, done) != MPI_SUCCESS)
            return -1;
        return flag;
    }
    while (c->arrived < c->info.nranks) {
        member_t m;
        MPI_Status st;
        int rc = MPI_Iprobe(MPI_ANY_SOURCE, c->tag, MPI_COMM_WORLD, &flag, &st);
#if DMESH_HAVE_ULFM
        /* once a process of the world failed, receptions from any source
         * fail (MPIX_ERR_PROC_FAILED_PENDING) until the failure is
         * acknowledged; NCCL's own bootstrap among the survivors knows
         * nothing of the dead process */
        if (rc != MPI_SUCCESS) {
            int acked = 0, size = 0;
            MPI_Comm_size(MPI_COMM_WORLD, &size);
            MPIX_Comm_ack_failed(MPI_COMM_WORLD, size, &acked);
            rc = MPI_Iprobe(MPI_ANY_SOURCE, c->tag, MPI_COMM_WORLD, &flag, &st);
        }
#endif
        if (rc != MPI_SUCCESS || !flag)
            return 0;
        if (MPI_Recv(&m, (int)sizeof(m), MPI_BYTE, st.MPI_SOURCE, c->tag, MPI_COMM_WORLD,
                     MPI_STATUS_IGNORE) != MPI_SUCCESS)
            return -1;
        if (m.rank >= 0 && m.rank < c->info.nranks)
            c->members[m.rank] = m;
        c->arrived++;
    }
    for (int r = 0; r < c->info.nranks; r++)
        if (r != c->me.rank &&
            MPI_Send(c->members, c->info.nranks * (int)sizeof(member_t), MPI_BYTE,
                     c->members[r].world, c->tag + 1, MPI_COMM_WORLD) != MPI_SUCCESS)
            return -1;
    return 1;
}

static int rendezvous_progress(struct ncclComm *c)
{
    int r;

    quiet_begin();
    r = rendezvous_step(c);
    quiet_end();
    return r;
}

/* Everyone arrived: what NCCL's initTransportsRank would find wrong, the
 * same on every member since all see the same table. */
static ncclResult_t rendezvous_check(struct ncclComm *c)
{
    for (int i = 0; i < c->info.nranks; i++) {
        if (c->members[i].rank != i || c->members[i].nranks != c->info.nranks)
            return refuse(ncclInvalidUsage, "rank %d: inconsistent nranks or rank %d", i,
                          c->members[i].rank);
        if (c->members[i].ids_hash != c->members[0].ids_hash)
            return refuse(ncclInvalidUsage,
                          "ncclCommInitRankScalable: ranks %d and %d were given "
                          "different ids",
                          i, 0);
        for (int j = 0; j < i; j++)
            if (strcmp(c->members[i].host, c->members[j].host) == 0 &&
                strcmp(c->members[i].busid, c->members[j].busid) == 0) {
                snprintf(last_error, sizeof(last_error),
                         "Duplicate GPU detected : rank %d and rank %d both on CUDA device %s", i,
                         j, c->members[i].busid);
                return ncclInvalidUsage;
            }
    }
    return ncclSuccess;
}

/* The MPI communicator of the world ranks of kids[0..k), over them alone
 * (id: the communicator's, naming it). With ULFM (Open MPI 5),
 * MPI_Comm_create_group over MPI_COMM_WORLD fails once a process of the
 * world failed, even when the group holds none: there MPI-4's
 * MPI_Comm_create_from_group makes it (configure's sessions check: Open
 * MPI 5 says MPI_VERSION 3). */
static MPI_Comm kids_comm(const member_t *kids, int k, int tag, const double_id_t *id)
{
    MPI_Group world, group;
    MPI_Comm mpi = MPI_COMM_NULL;
    int *ranks = malloc((size_t)k * sizeof(int));

    for (int i = 0; i < k; i++)
        ranks[i] = kids[i].world;
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_incl(world, k, ranks, &group);
#if defined(DMESH_HAVE_MPI_SESSIONS) && defined(DMESH_HAVE_ULFM)
    char name[64];
    snprintf(name, sizeof(name), "nccl-double-%d-%lu-%d", id->origin, id->serial, tag);
    MPI_Comm_create_from_group(group, name, MPI_INFO_NULL, MPI_ERRORS_RETURN, &mpi);
#else
    (void)id;
    MPI_Comm_create_group(MPI_COMM_WORLD, group, tag, &mpi);
#endif
    MPI_Group_free(&group);
    MPI_Group_free(&world);
    free(ranks);
    return mpi;
}

/* The members' MPI communicator, for the collectives. */
static void members_comm(struct ncclComm *c)
{
    c->mpi = kids_comm(c->members, c->info.nranks, c->tag, &c->id);
}

/* Drive a communicator's pending work one step; its state afterwards. */
static ncclResult_t progress(struct ncclComm *c)
{
    int done = c->state == ncclInProgress && c->arrived > 0 ? rendezvous_progress(c) : 0;

    if (done < 0)
        c->state = ncclRemoteError;
    if (done > 0) {
        c->arrived = c->info.nranks;
        c->state = rendezvous_check(c);
        if (c->state == ncclSuccess) /* on every member alike: it is collective */
            members_comm(c);
        if (c->state == ncclSuccess && c->injected != ncclSuccess)
            c->state = c->injected;
        c->polls = c->info.config.blocking == 0 ? polls_setting : 0;
    }
    if (c->state != ncclSuccess)
        return c->state;
    if (c->polls > 0) {
        c->polls--;
        return ncclInProgress;
    }
    if (c->op.pending) {
        MPI_Allreduce(c->op.send == c->op.recv ? MPI_IN_PLACE : c->op.send, c->op.recv,
                      (int)c->op.count, c->op.type, c->op.op, c->mpi);
        c->op.pending = 0;
    }
    return ncclSuccess;
}

static int valid_id(const double_id_t *id)
{
    return memcmp(id->magic, ID_MAGIC, sizeof(ID_MAGIC)) == 0;
}

/* Both initialisations: meet the members of id (at its maker); inside a
 * group only start, ncclGroupEnd meets. */
static ncclResult_t init_common(ncclComm_t *comm, int nranks, const double_id_t *id, int rank,
                                ncclConfig_t *config, ncclResult_t fail, int nids,
                                unsigned long ids_hash)
{
    member_t me;
    struct ncclComm *c;
    ncclResult_t r = ncclSuccess;

    if (comm == NULL || config == NULL || !valid_id(id) || nranks < 1 || rank < 0 || rank >= nranks)
        r = refuse(ncclInvalidArgument, "bad arguments to ncclCommInitRank%.0d%.0d", 0, 0);
    if (r == ncclSuccess)
        r = config_check(config);
    if (r == ncclSuccess)
        r = member_self(&me, rank, nranks);
    if (comm != NULL)
        *comm = NULL;
    if (r != ncclSuccess)
        return r; /* refused before a communicator exists: no *comm */
    c = comm_new(nranks, id, rank, config);
    if (c == NULL)
        return ncclSystemError;
    *comm = c;
    me.ids_hash = ids_hash;
    c->info.device = me.device;
    c->info.nids = nids;
    c->injected = fail; /* shows after the rendezvous, as a transport failure would */
    c->me = me;
    rendezvous_start(c);
    if (group_depth > 0) {
        c->in_group = c->info.grouped = 1;
        return ncclSuccess;
    }
    if (config->blocking == 0)
        return ncclInProgress;
    while (c->state == ncclInProgress)
        if ((r = progress(c)) == ncclInProgress)
            sched_yield();
    return c->state;
}

ncclResult_t ncclCommInitRankConfig(ncclComm_t *comm, int nranks, ncclUniqueId commId, int rank,
                                    ncclConfig_t *config)
{
    double_id_t id;
    ncclResult_t fail = (count_call("ncclCommInitRankConfig"), injected("ncclCommInitRankConfig"));

    memcpy(&id, commId.internal, sizeof(id));
    return init_common(comm, nranks, &id, rank, config, fail, 0, 0);
}

ncclResult_t ncclCommInitRankScalable(ncclComm_t *newcomm, int nranks, int myrank, int nId,
                                      ncclUniqueId *commIds, ncclConfig_t *config)
{
    double_id_t id, first;
    unsigned long h = 1469598103UL;
    ncclResult_t fail =
        (count_call("ncclCommInitRankScalable"), injected("ncclCommInitRankScalable"));

    if (nId < 1 || nId > nranks || commIds == NULL) {
        if (newcomm != NULL)
            *newcomm = NULL;
        return refuse(ncclInvalidArgument, "ncclCommInitRankScalable: nId %d for %d ranks", nId,
                      nranks);
    }
    for (int i = 0; i < nId; i++) {
        memcpy(&id, commIds[i].internal, sizeof(id));
        if (!valid_id(&id)) {
            *newcomm = NULL;
            return refuse(ncclInvalidArgument, "ncclCommInitRankScalable: id %d of %d invalid", i,
                          nId);
        }
        h = h * 1099511628211UL ^ ((unsigned long)id.origin << 32 ^ id.serial);
    }
    memcpy(&first, commIds[0].internal, sizeof(first));
    return init_common(newcomm, nranks, &first, myrank, config, fail, nId, h);
}

/* ---- ncclCommSplit ------------------------------------------------------ */

static ncclResult_t ready(struct ncclComm *c);

typedef struct {
    int color, key, prank;
    member_t me;
} split_msg_t;

static int split_order(const void *a, const void *b)
{
    const split_msg_t *x = a, *y = b;

    if (x->key != y->key)
        return x->key < y->key ? -1 : 1;
    return x->prank < y->prank ? -1 : x->prank > y->prank;
}

/* The members of colour among all (the parent's), in (key, parent rank)
 * order, into c's table; this rank's position in it. */
static int split_members(const split_msg_t *all, int n, int color, int prank, split_msg_t *mine,
                         int *count)
{
    int k = 0, rank = -1;

    for (int i = 0; i < n; i++)
        if (all[i].color == color)
            mine[k++] = all[i];
    qsort(mine, (size_t)k, sizeof(*mine), split_order);
    for (int i = 0; i < k; i++) {
        if (mine[i].prank == prank)
            rank = i;
        mine[i].me.rank = i;
        mine[i].me.nranks = k;
    }
    *count = k;
    return rank;
}

/* The child of colour, once the parent's members are known. */
static ncclResult_t split_child(struct ncclComm *p, const split_msg_t *all, int n, int color,
                                ncclConfig_t *config, MPI_Comm mpi, ncclComm_t *newcomm)
{
    split_msg_t *mine = malloc((size_t)n * sizeof(*mine));
    struct ncclComm *c;
    double_id_t id = p->id;
    int k = 0, rank;

    if (mine == NULL)
        return ncclSystemError;
    rank = split_members(all, n, color, p->info.rank, mine, &k);
    id.origin = mine[0].me.world; /* the child's rank 0 stands for its maker */
    id.serial = p->info.id_serial * 4096 + (unsigned long)p->splits;
    c = comm_new(k, &id, rank, config);
    if (c == NULL) {
        free(mine);
        return ncclSystemError;
    }
    for (int i = 0; i < k; i++)
        c->members[i] = mine[i].me;
    free(mine);
    c->me = c->members[rank];
    c->arrived = k;
    c->mpi = mpi;
    c->info.device = p->info.device;
    c->info.split = 1;
    c->info.split_color = color;
    c->info.grouped = group_depth > 0;
    c->state = rendezvous_check(c);
    if (c->state == ncclSuccess)
        c->state = injected("ncclCommSplit");
    c->polls = c->info.config.blocking == 0 ? polls_setting : 0;
    *newcomm = c;
    return c->state != ncclSuccess ? c->state : c->polls > 0 ? ncclInProgress : ncclSuccess;
}

ncclResult_t ncclCommSplit(ncclComm_t comm, int color, int key, ncclComm_t *newcomm,
                           ncclConfig_t *config)
{
    struct ncclComm *p = live(comm);
    split_msg_t me, *all;
    MPI_Comm mpi = MPI_COMM_NULL;
    ncclResult_t r = (count_call("ncclCommSplit"), ready(p));

    if (newcomm != NULL)
        *newcomm = NULL;
    if (r != ncclSuccess || newcomm == NULL || (color < 0 && color != NCCL_SPLIT_NOCOLOR))
        return r != ncclSuccess
                   ? r
                   : refuse(ncclInvalidArgument, "ncclCommSplit: colour %d%.0d", color, 0);
    if (config == NULL)
        config = &p->info.config; /* NCCL: the parent's */
    if ((r = config_check(config)) != ncclSuccess)
        return r;
    memset(&me, 0, sizeof(me));
    me.color = color;
    me.key = key;
    me.prank = p->info.rank;
    me.me = p->me;
    all = malloc((size_t)p->info.nranks * sizeof(*all));
    if (all == NULL)
        return ncclSystemError;
    /* collective over the parent, as NCCL's split is */
    MPI_Allgather(&me, (int)sizeof(me), MPI_BYTE, all, (int)sizeof(me), MPI_BYTE, p->mpi);
    MPI_Comm_split(p->mpi, color == NCCL_SPLIT_NOCOLOR ? MPI_UNDEFINED : color, key, &mpi);
    p->splits++;
    r = color == NCCL_SPLIT_NOCOLOR
            ? ncclSuccess
            : split_child(p, all, p->info.nranks, color, config, mpi, newcomm);
    free(all);
    return r;
}

/* ---- ncclCommRevoke, ncclCommShrink ------------------------------------- */

#ifndef NCCL_REVOKE_DEFAULT
/* headers older than ncclCommRevoke (NCCL 2.28.3): the double still has it
 * (libdmesh built against them does not call it) */
#define NCCL_REVOKE_DEFAULT 0x00
ncclResult_t ncclCommRevoke(ncclComm_t comm, int revokeFlags);
#endif

ncclResult_t ncclCommRevoke(ncclComm_t comm, int revokeFlags)
{
    struct ncclComm *c = live(comm);
    ncclResult_t r = (count_call("ncclCommRevoke"), injected("ncclCommRevoke"));

    if (c == NULL || revokeFlags != NCCL_REVOKE_DEFAULT)
        return refuse(ncclInvalidArgument, "ncclCommRevoke: flags %d%.0d", revokeFlags, 0);
    if (r != ncclSuccess)
        return r;
    c->info.revoked = 1;
    c->op.pending = 0; /* what was in flight stops */
    if (c->state == ncclSuccess)
        c->polls = polls_setting; /* in progress until quiescent */
    return ncclSuccess;
}

/* The parent's members left after excluding list[0..n), in order, into
 * kids (renumbered); this rank's place among them (-1: excluded); -2 when
 * the list holds a rank out of range or twice. */
static int shrink_members(const struct ncclComm *p, const int *list, int n, member_t *kids,
                          int *count)
{
    char *out = calloc((size_t)p->info.nranks, 1);
    int k = 0, rank = -1;

    if (out == NULL)
        return -2;
    for (int i = 0; i < n; i++) {
        if (list[i] < 0 || list[i] >= p->info.nranks || out[list[i]]) {
            free(out);
            return -2;
        }
        out[list[i]] = 1;
    }
    for (int i = 0; i < p->info.nranks; i++) {
        if (out[i])
            continue;
        if (i == p->info.rank)
            rank = k;
        kids[k] = p->members[i];
        kids[k].rank = k;
        kids[k].nranks = p->info.nranks - n;
        k++;
    }
    free(out);
    *count = k;
    return rank;
}

ncclResult_t ncclCommShrink(ncclComm_t comm, int *excludeRanksList, int excludeRanksCount,
                            ncclComm_t *newcomm, ncclConfig_t *config, int shrinkFlags)
{
    struct ncclComm *p = live(comm), *c;
    member_t *kids;
    double_id_t id;
    unsigned long h = 1469598103UL, h0 = 0;
    int k = 0, rank, worst;
    ncclResult_t r = (count_call("ncclCommShrink"), ncclSuccess);

    if (newcomm != NULL)
        *newcomm = NULL;
    if (p == NULL || newcomm == NULL || excludeRanksCount < 0 ||
        excludeRanksCount >= (p != NULL ? p->info.nranks : 1) ||
        (excludeRanksCount > 0 && excludeRanksList == NULL) ||
        (shrinkFlags != NCCL_SHRINK_DEFAULT && shrinkFlags != NCCL_SHRINK_ABORT))
        return refuse(ncclInvalidArgument, "ncclCommShrink: %d excluded, flags %d",
                      excludeRanksCount, shrinkFlags);
    if (shrinkFlags == NCCL_SHRINK_ABORT)
        p->op.pending = p->polls = 0; /* the parent's operations end first */
    else if ((r = ready(p)) != ncclSuccess)
        return r;
    if (config == NULL)
        config = &p->info.config; /* NCCL: the parent's */
    if ((r = config_check(config)) != ncclSuccess)
        return r;
    if ((kids = malloc((size_t)p->info.nranks * sizeof(*kids))) == NULL)
        return ncclSystemError;
    rank = shrink_members(p, excludeRanksList, excludeRanksCount, kids, &k);
    if (rank < 0) {
        free(kids);
        return refuse(ncclInvalidArgument,
                      "ncclCommShrink: rank %d of the parent is in the list, or the list is "
                      "bad (%d ranks)",
                      p->info.rank, excludeRanksCount);
    }
    id = p->id;
    id.origin = kids[0].world; /* the child's rank 0 stands for its maker */
    id.serial = p->info.id_serial * 4096 + (unsigned long)p->splits++;
    c = comm_new(k, &id, rank, config);
    if (c == NULL) {
        free(kids);
        return ncclSystemError;
    }
    memcpy(c->members, kids, (size_t)k * sizeof(*kids));
    free(kids);
    c->me = c->members[rank];
    c->arrived = k;
    /* collective over the members left (not the parent's: some may be dead) */
    c->mpi = kids_comm(c->members, k, p->tag + 1, &id);
    for (int i = 0; i < excludeRanksCount; i++)
        h = h * 1099511628211UL ^ (unsigned long)excludeRanksList[i];
    h0 = h;
    MPI_Bcast(&h0, 1, MPI_UNSIGNED_LONG, 0, c->mpi);
    c->info.device = p->info.device;
    c->info.shrunk = 1;
    c->info.shrink_flags = shrinkFlags;
    c->info.shrink_excluded = excludeRanksCount;
    c->info.grouped = group_depth > 0;
    c->state = rendezvous_check(c);
    if (c->state == ncclSuccess && h0 != h)
        c->state = refuse(ncclInvalidUsage, "ncclCommShrink: rank %d got another list than rank %d",
                          rank, 0);
    /* every member learns whether one was given another list */
    worst = (int)c->state;
    MPI_Allreduce(MPI_IN_PLACE, &worst, 1, MPI_INT, MPI_MAX, c->mpi);
    c->state = (ncclResult_t)worst;
    if (c->state == ncclSuccess)
        c->state = injected("ncclCommShrink");
    c->polls = c->info.config.blocking == 0 ? polls_setting : 0;
    *newcomm = c;
    return c->state != ncclSuccess ? c->state : c->polls > 0 ? ncclInProgress : ncclSuccess;
}

ncclResult_t ncclCommInitRank(ncclComm_t *comm, int nranks, ncclUniqueId commId, int rank)
{
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;

    return ncclCommInitRankConfig(comm, nranks, commId, rank, &config);
}

ncclResult_t ncclCommGetAsyncError(ncclComm_t comm, ncclResult_t *asyncError)
{
    struct ncclComm *c = live(comm);

    if (c == NULL || asyncError == NULL)
        return ncclInvalidArgument;
    *asyncError = progress(c);
    return ncclSuccess;
}

ncclResult_t ncclCommCuDevice(const ncclComm_t comm, int *device)
{
    struct ncclComm *c = live(comm);

    if (c == NULL || device == NULL)
        return ncclInvalidArgument;
    *device = c->info.device;
    return ncclSuccess;
}

ncclResult_t ncclCommCount(const ncclComm_t comm, int *count)
{
    struct ncclComm *c = live(comm);

    if (c == NULL || count == NULL)
        return ncclInvalidArgument;
    *count = c->info.nranks;
    return ncclSuccess;
}

ncclResult_t ncclCommUserRank(const ncclComm_t comm, int *rank)
{
    struct ncclComm *c = live(comm);

    if (c == NULL || rank == NULL)
        return ncclInvalidArgument;
    *rank = c->info.rank;
    return ncclSuccess;
}

/* An operation may start only on a ready communicator with nothing pending. */
static ncclResult_t ready(struct ncclComm *c)
{
    if (c == NULL)
        return ncclInvalidArgument;
    if (c->state == ncclInProgress || c->polls > 0 || c->op.pending)
        return refuse(ncclInvalidUsage, "communicator %d/%d still in progress", c->info.rank,
                      c->info.nranks);
    return c->state;
}

static int mpi_type(ncclDataType_t t, MPI_Datatype *m)
{
    switch (t) {
    case ncclInt8:
        *m = MPI_SIGNED_CHAR;
        return 1;
    case ncclUint8:
        *m = MPI_UNSIGNED_CHAR;
        return 1;
    case ncclInt32:
        *m = MPI_INT;
        return 1;
    case ncclUint32:
        *m = MPI_UNSIGNED;
        return 1;
    case ncclInt64:
        *m = MPI_INT64_T;
        return 1;
    case ncclUint64:
        *m = MPI_UINT64_T;
        return 1;
    case ncclFloat32:
        *m = MPI_FLOAT;
        return 1;
    case ncclFloat64:
        *m = MPI_DOUBLE;
        return 1;
    default:
        return 0;
    }
}

static int mpi_op(ncclRedOp_t op, MPI_Op *m)
{
    switch (op) {
    case ncclSum:
        *m = MPI_SUM;
        return 1;
    case ncclProd:
        *m = MPI_PROD;
        return 1;
    case ncclMax:
        *m = MPI_MAX;
        return 1;
    case ncclMin:
        *m = MPI_MIN;
        return 1;
    default:
        return 0;
    }
}

/* Host buffers stand for device buffers; the stream is not used. */
ncclResult_t ncclAllReduce(const void *sendbuff, void *recvbuff, size_t count,
                           ncclDataType_t datatype, ncclRedOp_t op, ncclComm_t comm,
                           cudaStream_t stream)
{
    struct ncclComm *c = live(comm);
    ncclResult_t r = (count_call("ncclAllReduce"), ready(c));

    (void)stream;
    if (r == ncclSuccess && c->info.revoked)
        r = refuse(ncclInvalidUsage, "ncclAllReduce on a revoked communicator%.0d%.0d", 0, 0);
    if (r != ncclSuccess)
        return r;
    if (!mpi_type(datatype, &c->op.type) || !mpi_op(op, &c->op.op) || recvbuff == NULL)
        return refuse(ncclInvalidArgument, "ncclAllReduce: bad type %d or op %d", (int)datatype,
                      (int)op);
    c->op.send = sendbuff;
    c->op.recv = recvbuff;
    c->op.count = count;
    c->op.pending = 1;
    c->polls = c->info.config.blocking == 0 ? polls_setting : 0;
    c->info.allreduces++;
    return c->info.config.blocking == 0 && c->polls > 0 ? ncclInProgress : progress(c);
}

ncclResult_t ncclCommFinalize(ncclComm_t comm)
{
    struct ncclComm *c = live(comm);
    ncclResult_t r = (count_call("ncclCommFinalize"), ready(c));

    if (r == ncclSuccess && c->info.revoked)
        r = refuse(ncclInvalidUsage, "ncclCommFinalize after ncclCommRevoke%.0d%.0d", 0, 0);
    if (r != ncclSuccess)
        return r;
    if (c->info.finalized)
        return refuse(ncclInvalidUsage, "communicator finalized twice%.0d%.0d", 0, 0);
    if ((r = injected("ncclCommFinalize")) != ncclSuccess)
        return r;
    c->info.finalized = 1;
    c->polls = c->info.config.blocking == 0 ? polls_setting : 0;
    return c->polls > 0 ? ncclInProgress : ncclSuccess;
}

static void comm_release(struct ncclComm *c)
{
    for (int i = 0; i < 2; i++)
        if (c->req[i] != MPI_REQUEST_NULL)
            MPI_Request_free(&c->req[i]);
    if (c->mpi != MPI_COMM_NULL)
        MPI_Comm_free(&c->mpi);
}

ncclResult_t ncclCommDestroy(ncclComm_t comm)
{
    struct ncclComm *c = live(comm);
    ncclResult_t r = (count_call("ncclCommDestroy"), injected("ncclCommDestroy"));

    if (c == NULL || c->polls > 0 || c->state != ncclSuccess)
        return ncclInvalidArgument;
    if (r != ncclSuccess)
        return r;
    c->info.destroyed = 1;
    c->info.destroy_device = -1;
    (void)cudaGetDevice(&c->info.destroy_device);
    comm_release(c);
    return ncclSuccess;
}

ncclResult_t ncclCommAbort(ncclComm_t comm)
{
    struct ncclComm *c = live(comm);
    ncclResult_t r = (count_call("ncclCommAbort"), injected("ncclCommAbort"));

    if (c == NULL)
        return ncclInvalidArgument;
    /* Abort frees the communicator even when it reports an error. */
    c->info.aborted = 1;
    c->info.abort_group_depth = group_depth;
    c->info.destroy_device = -1;
    (void)cudaGetDevice(&c->info.destroy_device);
    comm_release(c);
    return r;
}

ncclResult_t ncclGroupStart(void)
{
    ncclResult_t r = (count_call("ncclGroupStart"), injected("ncclGroupStart"));

    if (r == ncclSuccess)
        group_depth++;
    return r;
}

/* The outermost ncclGroupEnd: the group's initialisations meet, all
 * together (each rendezvous advances without blocking the others). */
static ncclResult_t group_launch(void)
{
    ncclResult_t first = ncclSuccess;
    int waiting = 1, nonblocking = 0;

    while (waiting) {
        waiting = 0;
        for (int i = 0; i < ncomms; i++) {
            struct ncclComm *c = comms[i];
            if (!c->in_group || c->info.aborted || c->info.destroyed)
                continue;
            if (c->info.config.blocking == 0) {
                c->in_group = 0; /* goes on in ncclCommGetAsyncError */
                nonblocking = 1;
                continue;
            }
            if (c->state == ncclInProgress && progress(c) == ncclInProgress) {
                waiting = 1;
                continue;
            }
            c->in_group = 0;
            if (c->state != ncclSuccess && first == ncclSuccess)
                first = c->state;
        }
        if (waiting)
            sched_yield();
    }
    return first != ncclSuccess ? first : nonblocking ? ncclInProgress : ncclSuccess;
}

ncclResult_t ncclGroupEnd(void)
{
    ncclResult_t r = (count_call("ncclGroupEnd"), injected("ncclGroupEnd"));

    if (group_depth == 0)
        return ncclInvalidUsage;
    if (--group_depth == 0) {
        ncclResult_t g = group_launch();
        if (r == ncclSuccess)
            r = g;
    }
    return r;
}

const char *ncclGetErrorString(ncclResult_t result)
{
    static const char *const names[] = {"no error (double)",
                                        "unhandled cuda error (double)",
                                        "unhandled system error (double)",
                                        "internal error (double)",
                                        "invalid argument (double)",
                                        "invalid usage (double)",
                                        "remote process exited (double)",
                                        "operation in progress (double)"};

    if ((int)result < 0 || (int)result >= (int)(sizeof(names) / sizeof(names[0])))
        return "unknown result code (double)";
    return names[result];
}

const char *ncclGetLastError(ncclComm_t comm)
{
    (void)comm;
    return last_error;
}

int nccl_double_comm_info(ncclComm_t comm, nccl_double_comm_info_t *info)
{
    for (int i = 0; i < ncomms; i++)
        if (comms[i] == comm) {
            *info = comm->info;
            if (info->config.netName != NULL)
                info->config.netName = comm->info.net_name;
            if (info->config.commName != NULL)
                info->config.commName = comm->info.comm_name;
            return 0;
        }
    return -1;
}

int nccl_double_pending_polls(ncclComm_t comm)
{
    struct ncclComm *c = live(comm);

    return c ? c->polls + (c->state == ncclInProgress) + c->op.pending : -1;
}

/* Problems of this rank's side of the pairing, before comparing ids. */
static int local_problems(ncclComm_t comm, MPI_Comm mpi, double_id_t *id)
{
    nccl_double_comm_info_t info;
    MPI_Group group, world;
    int rank, size, zero = 0, origin = -1, bad = 0;

    MPI_Comm_rank(mpi, &rank);
    MPI_Comm_size(mpi, &size);
    if (live(comm) == NULL || nccl_double_comm_info(comm, &info) < 0)
        return 1;
    bad += info.nranks != size;
    bad += info.rank != rank;
    MPI_Comm_group(mpi, &group);
    MPI_Comm_group(MPI_COMM_WORLD, &world);
    MPI_Group_translate_ranks(group, 1, &zero, world, &origin);
    MPI_Group_free(&world);
    MPI_Group_free(&group);
    bad += info.id_origin != origin;
    id->origin = info.id_origin;
    id->serial = info.id_serial;
    return bad;
}

int nccl_double_check_pairing(ncclComm_t comm, MPI_Comm mpi)
{
    double_id_t id, *all;
    int size, bad, total = 0;

    memset(&id, 0, sizeof(id));
    bad = local_problems(comm, mpi, &id);
    MPI_Comm_size(mpi, &size);
    all = calloc(size, sizeof(*all));
    if (all == NULL)
        return 1;
    MPI_Allgather(&id, (int)sizeof(id), MPI_BYTE, all, (int)sizeof(id), MPI_BYTE, mpi);
    for (int i = 0; i < size; i++)
        bad += all[i].origin != all[0].origin || all[i].serial != all[0].serial;
    free(all);
    MPI_Allreduce(&bad, &total, 1, MPI_INT, MPI_SUM, mpi);
    return total;
}

unsigned long nccl_double_unique_ids(void)
{
    return ids_made;
}

int nccl_double_live_comms(void)
{
    int n = 0;

    for (int i = 0; i < ncomms; i++)
        n += !comms[i]->info.destroyed && !comms[i]->info.aborted;
    return n;
}

int nccl_double_group_depth(void)
{
    return group_depth;
}
