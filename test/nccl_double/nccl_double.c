/* Test double of the NCCL calls dmesh makes. An id carries the world rank
 * that made it and a serial number, so that the double can tell where every
 * member's id came from; each communicator records what it was created
 * with. Calls on a communicator that was destroyed or aborted fail, as they
 * would corrupt memory with the real library. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nccl_double.h"

#define ID_MAGIC "dmesh-nccl-double"
#define MAX_COMMS 1024

struct ncclComm {
    nccl_double_comm_info_t info;
    int polls; /* ncclInProgress answers left */
};

typedef struct {
    char magic[sizeof(ID_MAGIC)];
    int origin;
    unsigned long serial;
} double_id_t;

static struct ncclComm *comms[MAX_COMMS];
static int ncomms, group_depth, polls_setting;
static unsigned long ids_made;
static char fail_fn[64];
static ncclResult_t fail_result;
static char last_error[128];

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
    ncclResult_t r = injected("ncclGetUniqueId");

    if (r != ncclSuccess)
        return r;
    memset(uniqueId, 0, sizeof(*uniqueId));
    memset(&id, 0, sizeof(id));
    memcpy(id.magic, ID_MAGIC, sizeof(ID_MAGIC));
    id.origin = world_rank();
    id.serial = ++ids_made;
    memcpy(uniqueId->internal, &id, sizeof(id));
    return ncclSuccess;
}

/* The config must come from NCCL_CONFIG_INITIALIZER. */
static int config_valid(const ncclConfig_t *config)
{
    ncclConfig_t defaults = NCCL_CONFIG_INITIALIZER;

    return config->size == defaults.size && config->magic == defaults.magic &&
           config->version == defaults.version;
}

static struct ncclComm *comm_new(int nranks, const double_id_t *id, int rank,
                                 const ncclConfig_t *config)
{
    struct ncclComm *c = calloc(1, sizeof(*c));

    if (c == NULL || ncomms == MAX_COMMS) {
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
    c->polls = config->blocking == 0 ? polls_setting : 0;
    comms[ncomms++] = c;
    return c;
}

ncclResult_t ncclCommInitRankConfig(ncclComm_t *comm, int nranks, ncclUniqueId commId, int rank,
                                    ncclConfig_t *config)
{
    double_id_t id;
    ncclResult_t r = injected("ncclCommInitRankConfig");

    memcpy(&id, commId.internal, sizeof(id));
    if (r != ncclSuccess)
        return r;
    if (config == NULL || !config_valid(config) || memcmp(id.magic, ID_MAGIC, sizeof(ID_MAGIC)) ||
        nranks < 1 || rank < 0 || rank >= nranks) {
        snprintf(last_error, sizeof(last_error), "bad arguments to ncclCommInitRankConfig");
        return ncclInvalidArgument;
    }
    *comm = comm_new(nranks, &id, rank, config);
    if (*comm == NULL)
        return ncclSystemError;
    return (*comm)->polls > 0 ? ncclInProgress : ncclSuccess;
}

ncclResult_t ncclCommGetAsyncError(ncclComm_t comm, ncclResult_t *asyncError)
{
    struct ncclComm *c = live(comm);

    if (c == NULL)
        return ncclInvalidArgument;
    *asyncError = c->polls > 0 ? ncclInProgress : ncclSuccess;
    if (c->polls > 0)
        c->polls--;
    return ncclSuccess;
}

ncclResult_t ncclCommFinalize(ncclComm_t comm)
{
    struct ncclComm *c = live(comm);
    ncclResult_t r = injected("ncclCommFinalize");

    if (c == NULL || c->polls > 0 || c->info.finalized)
        return ncclInvalidArgument;
    if (r != ncclSuccess)
        return r;
    c->info.finalized = 1;
    c->polls = c->info.config.blocking == 0 ? polls_setting : 0;
    return c->polls > 0 ? ncclInProgress : ncclSuccess;
}

ncclResult_t ncclCommDestroy(ncclComm_t comm)
{
    struct ncclComm *c = live(comm);
    ncclResult_t r = injected("ncclCommDestroy");

    if (c == NULL || c->polls > 0)
        return ncclInvalidArgument;
    if (r != ncclSuccess)
        return r;
    c->info.destroyed = 1;
    return ncclSuccess;
}

ncclResult_t ncclCommAbort(ncclComm_t comm)
{
    struct ncclComm *c = live(comm);
    ncclResult_t r = injected("ncclCommAbort");

    if (c == NULL)
        return ncclInvalidArgument;
    /* Abort frees the communicator even when it reports an error. */
    c->info.aborted = 1;
    c->info.abort_group_depth = group_depth;
    return r;
}

ncclResult_t ncclGroupStart(void)
{
    ncclResult_t r = injected("ncclGroupStart");

    if (r == ncclSuccess)
        group_depth++;
    return r;
}

ncclResult_t ncclGroupEnd(void)
{
    ncclResult_t r = injected("ncclGroupEnd");

    if (group_depth == 0)
        return ncclInvalidUsage;
    group_depth--;
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
            return 0;
        }
    return -1;
}

int nccl_double_pending_polls(ncclComm_t comm)
{
    struct ncclComm *c = live(comm);

    return c ? c->polls : -1;
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
