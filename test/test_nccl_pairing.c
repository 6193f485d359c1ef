/* SPDX-License-Identifier: BSD-3-Clause */
/* Pairing of MPI and NCCL communicators (lib/comm_nccl.c), without a GPU:
 * comm_nccl.c is compiled with lib/error.c against a test double of NCCL
 * (test/nccl_double), under mpiexec. The double records which rank made each
 * id and what every member passed to ncclCommInitRankConfig, and checks the
 * pairing against the MPI communicator with MPI itself.
 *
 * Checks are soft (they count and print, the test fails at its end) so that
 * a failing rank never leaves the others waiting in a collective call. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include <check.h>
#include <mpi.h>
#include <nccl.h>

#include "comm_nccl.h"
#include "cuda_double.h"
#include "dmesh_nccl.h"
#include "error.h"
#include "gpu_testutil.h"
#include "nccl_double.h"

/* ---- helpers ------------------------------------------------------------- */

#define NGPU CUDA_DOUBLE_NODE_GPUS
static int dev; /* this rank's device, as a universe would have bound it */

static MPI_Comm split(int color, int key)
{
    MPI_Comm c;

    MPI_Comm_split(MPI_COMM_WORLD, color, key, &c);
    MPI_Comm_set_errhandler(c, MPI_ERRORS_RETURN);
    return c;
}

/* Create the NCCL communicator of mpi, check its pairing with the double. */
static ncclComm_t create_checked(MPI_Comm mpi, const dmesh_nccl_options_t *o)
{
    void *nccl = NULL;
    int rc = dmesh_nccl_comm_create(mpi, o, dev, &nccl);

    CHECK_EQ(rc, DMESH_SUCCESS);
    CHECK_SAME(rc);
    if (rc != DMESH_SUCCESS)
        return NULL;
    CHECK(nccl != NULL);
    CHECK_EQ(nccl_double_check_pairing(nccl, mpi), 0);
    return nccl;
}

static nccl_double_comm_info_t info_of(ncclComm_t c)
{
    nccl_double_comm_info_t info;

    memset(&info, 0, sizeof(info));
    CHECK_EQ(nccl_double_comm_info(c, &info), 0);
    return info;
}

/* ---- tests ------------------------------------------------------------- */

GT_TEST(test_available)
{
    CHECK_EQ(dmesh_nccl_available(), 1);
    CHECK_EQ(dmesh_nccl_comm_destroy(NULL, dev), DMESH_SUCCESS);
    CHECK_EQ(dmesh_nccl_comm_abort_all(0, NULL, dev), DMESH_SUCCESS);
}

/* One id per communicator, made by its rank 0 only. */
GT_TEST(test_world)
{
    MPI_Comm world = split(0, world_rank);
    unsigned long before = nccl_double_unique_ids();
    ncclComm_t c = create_checked(world, NULL);

    CHECK_EQ(nccl_double_unique_ids() - before, world_rank == 0 ? 1 : 0);
    CHECK_EQ(nccl_double_live_comms(), 1);
    CHECK_EQ(dmesh_nccl_comm_destroy(c, dev), DMESH_SUCCESS);
    CHECK(info_of(c).finalized && info_of(c).destroyed && !info_of(c).aborted);
    CHECK_EQ(nccl_double_live_comms(), 0);
    MPI_Comm_free(&world);
}

/* Groups of a split, in reverse rank order: NCCL ranks follow the MPI ranks
 * of each group, and each group has its own id from its own rank 0. */
GT_TEST(test_split_groups)
{
    MPI_Comm parity = split(world_rank % 2, world_size - world_rank);
    int rank, origins[2] = {-1, -1}, all[2 * 64];
    ncclComm_t c = create_checked(parity, NULL);
    nccl_double_comm_info_t info = info_of(c);

    MPI_Comm_rank(parity, &rank);
    CHECK_EQ(info.rank, rank);
    origins[0] = world_rank % 2;
    origins[1] = info.id_origin;
    CHECK(world_size <= 64);
    MPI_Allgather(origins, 2, MPI_INT, all, 2, MPI_INT, MPI_COMM_WORLD);
    for (int i = 0; i < world_size && i < 64; i++)
        if (all[2 * i] != origins[0])
            CHECK(all[2 * i + 1] != info.id_origin);
    CHECK_EQ(dmesh_nccl_comm_destroy(c, dev), DMESH_SUCCESS);
    MPI_Comm_free(&parity);
}

/* Fields reach ncclCommInitRankConfig only when their bit is set. */
GT_TEST(test_config_fields)
{
    dmesh_nccl_options_t o = {DMESH_NCCL_OPT_BLOCKING | DMESH_NCCL_OPT_CGA_CLUSTER_SIZE |
                                  DMESH_NCCL_OPT_MIN_CTAS | DMESH_NCCL_OPT_MAX_CTAS |
                                  DMESH_NCCL_OPT_NET_NAME | DMESH_NCCL_OPT_SPLIT_SHARE,
                              1,
                              4,
                              2,
                              16,
                              1,
                              "IB",
                              "",
                              0};
    MPI_Comm world = split(0, world_rank);
    ncclComm_t c = create_checked(world, &o);
    nccl_double_comm_info_t info = info_of(c);

    CHECK_EQ(info.config.blocking, 1);
    CHECK_EQ(info.config.cgaClusterSize, 4);
    CHECK_EQ(info.config.minCTAs, 2);
    CHECK_EQ(info.config.maxCTAs, 16);
    CHECK_EQ(info.config.splitShare, 1);
    CHECK(info.config.netName != NULL && strcmp(info.config.netName, "IB") == 0);
    CHECK_EQ(dmesh_nccl_comm_destroy(c, dev), DMESH_SUCCESS);
    MPI_Comm_free(&world);
}

GT_TEST(test_config_defaults)
{
    dmesh_nccl_options_t o = {DMESH_NCCL_OPT_MAX_CTAS, 0, 7, 7, 8, 1, "ignored", "", 0};
    MPI_Comm world = split(0, world_rank);
    ncclComm_t c = create_checked(world, &o);
    nccl_double_comm_info_t info = info_of(c);

    CHECK_EQ(info.config.maxCTAs, 8);
    CHECK_EQ(info.config.blocking, NCCL_CONFIG_UNDEF_INT);
    CHECK_EQ(info.config.cgaClusterSize, NCCL_CONFIG_UNDEF_INT);
    CHECK_EQ(info.config.minCTAs, NCCL_CONFIG_UNDEF_INT);
    CHECK_EQ(info.config.splitShare, NCCL_CONFIG_UNDEF_INT);
    CHECK(info.config.netName == NULL);
    CHECK_EQ(dmesh_nccl_comm_destroy(c, dev), DMESH_SUCCESS);
    MPI_Comm_free(&world);
}

/* nccl_blocking=0: creation and destruction wait until NCCL is done. */
GT_TEST(test_nonblocking)
{
    dmesh_nccl_options_t o = {DMESH_NCCL_OPT_BLOCKING, 0, 0, 0, 0, 0, "", "", 0};
    MPI_Comm world = split(0, world_rank);
    ncclComm_t c;

    nccl_double_set_polls(3);
    c = create_checked(world, &o);
    CHECK_EQ(nccl_double_pending_polls(c), 0);
    CHECK_EQ(dmesh_nccl_comm_destroy(c, dev), DMESH_SUCCESS);
    CHECK(info_of(c).finalized && info_of(c).destroyed);
    nccl_double_set_polls(0);
    MPI_Comm_free(&world);
}

/* Teardown on error paths: every communicator aborted inside one group. */
GT_TEST(test_abort_all)
{
    MPI_Comm a = split(0, world_rank), b = split(world_rank % 2, world_rank),
             h = split(world_rank < world_size / 2, world_rank);
    void *set[4] = {create_checked(a, NULL), NULL, create_checked(b, NULL),
                    create_checked(h, NULL)};

    CHECK_EQ(nccl_double_live_comms(), 3);
    CHECK_EQ(dmesh_nccl_comm_abort_all(4, set, dev), DMESH_SUCCESS);
    CHECK_EQ(nccl_double_live_comms(), 0);
    CHECK_EQ(nccl_double_group_depth(), 0);
    for (int i = 0; i < 4; i++)
        if (set[i] != NULL) {
            nccl_double_comm_info_t info = info_of(set[i]);
            CHECK(info.aborted && !info.destroyed);
            CHECK_EQ(info.abort_group_depth, 1);
        }
    MPI_Comm_free(&h);
    MPI_Comm_free(&b);
    MPI_Comm_free(&a);
}

/* One abort fails: the others still go, the group is closed, the error is
 * reported as DMESH_ERR_NCCL. */
GT_TEST(test_abort_all_error)
{
    MPI_Comm a = split(0, world_rank), b = split(world_rank % 2, world_rank);
    void *set[2] = {create_checked(a, NULL), create_checked(b, NULL)};

    nccl_double_fail_next("ncclCommAbort", ncclInternalError);
    CHECK_EQ(dmesh_nccl_comm_abort_all(2, set, dev), DMESH_ERR_NCCL);
    CHECK_MSG("ncclCommAbort: internal error (double)");
    CHECK_EQ(nccl_double_live_comms(), 0);
    CHECK_EQ(nccl_double_group_depth(), 0);
    MPI_Comm_free(&b);
    MPI_Comm_free(&a);
}

/* ncclGetUniqueId fails on rank 0: every rank learns it from the broadcast. */
GT_TEST(test_unique_id_error)
{
    MPI_Comm world = split(0, world_rank);
    void *nccl = NULL;
    int rc;

    if (world_rank == 0)
        nccl_double_fail_next("ncclGetUniqueId", ncclSystemError);
    rc = dmesh_nccl_comm_create(world, NULL, dev, &nccl);
    CHECK_EQ(rc, DMESH_ERR_NCCL);
    CHECK_SAME(rc);
    CHECK(nccl == NULL);
    CHECK_MSG("ncclGetUniqueId");
    CHECK_MSG("unhandled system error (double)");
    CHECK_EQ(nccl_double_live_comms(), 0);
    MPI_Comm_free(&world);
}

/* ncclCommInitRankConfig fails on one rank: every rank fails, and those
 * whose communicator was made abort it. */
/* dmesh_timeout: a non-blocking init that does not complete in time is
 * aborted, and every rank returns DMESH_ERR_TIMEOUT (dmesh makes the init
 * non-blocking itself when a timeout is set and nccl_blocking is not). */
GT_TEST(test_init_timeout)
{
    MPI_Comm world = split(0, world_rank);
    dmesh_nccl_options_t o;
    void *nccl = NULL;
    int rc;

    memset(&o, 0, sizeof(o));
    o.timeout = 0.2;
    nccl_double_set_polls(1 << 30); /* ready only after 2^30 more polls: never, here */
    rc = dmesh_nccl_comm_create(world, &o, dev, &nccl);
    nccl_double_set_polls(0);
    CHECK_EQ(rc, DMESH_ERR_TIMEOUT);
    CHECK_SAME(rc);
    CHECK(nccl == NULL);
    CHECK_MSG("dmesh_timeout");
    CHECK_EQ(nccl_double_live_comms(), 0);
    MPI_Comm_free(&world);
}

GT_TEST(test_init_error)
{
    MPI_Comm world = split(0, world_rank);
    int bad = world_size > 1 ? 1 : 0, rc;
    void *nccl = NULL;
    char expect[64];

    if (world_rank == bad)
        nccl_double_fail_next("ncclCommInitRankConfig", ncclInvalidUsage);
    rc = dmesh_nccl_comm_create(world, NULL, dev, &nccl);
    CHECK_EQ(rc, DMESH_ERR_NCCL);
    CHECK_SAME(rc);
    CHECK(nccl == NULL);
    /* every rank names the rank that failed, and why */
    snprintf(expect, sizeof(expect), "rank %d: ncclCommInitRankConfig: invalid usage", bad);
    CHECK_MSG(expect);
    CHECK_EQ(nccl_double_live_comms(), 0);
    MPI_Comm_free(&world);
}

/* A failed finalize still frees the communicator (abort). */
GT_TEST(test_finalize_error)
{
    MPI_Comm world = split(0, world_rank);
    ncclComm_t c = create_checked(world, NULL);

    nccl_double_fail_next("ncclCommFinalize", ncclRemoteError);
    CHECK_EQ(dmesh_nccl_comm_destroy(c, dev), DMESH_ERR_NCCL);
    CHECK_MSG("ncclCommFinalize: remote process exited (double)");
    CHECK(info_of(c).aborted);
    CHECK_EQ(nccl_double_live_comms(), 0);
    MPI_Comm_free(&world);
}

/* ---- the device, two ranks on one GPU, data, the double's own strictness */

/* The universe's device is current for NCCL's calls, the caller's after. */
GT_TEST(test_device_around_calls)
{
    MPI_Comm world = split(0, world_rank);
    int other = (dev + 1) % NGPU;
    ncclComm_t c;

    cuda_double_set_current(other);
    c = create_checked(world, NULL);
    CHECK_EQ(info_of(c).device, dev);
    CHECK_EQ(cuda_double_current(), other);
    CHECK_EQ(dmesh_nccl_comm_destroy(c, dev), DMESH_SUCCESS);
    CHECK_EQ(info_of(c).destroy_device, dev);
    CHECK_EQ(cuda_double_current(), other);
    cuda_double_set_current(dev);
    MPI_Comm_free(&world);
}

/* Ranks 0 and 1 on one GPU: DMESH_ERR_NO_DEVICE on every rank, naming
 * them, before NCCL is entered. */
GT_TEST(test_duplicate_gpu)
{
    MPI_Comm world = split(0, world_rank);
    unsigned long ids = nccl_double_unique_ids();
    void *nccl = NULL;
    int rc;

    if (world_size < 2)
        return;
    rc = dmesh_nccl_comm_create(world, NULL, world_rank == 1 ? 0 : dev, &nccl);
    CHECK_EQ(rc, DMESH_ERR_NO_DEVICE);
    CHECK_SAME(rc);
    CHECK(nccl == NULL);
    CHECK_MSG("ranks 0 and 1");
    CHECK_MSG(cuda_double_node_gpus[0]);
    CHECK_EQ(nccl_double_unique_ids(), ids); /* NCCL never entered */
    CHECK_EQ(nccl_double_live_comms(), 0);
    CHECK_EQ(cuda_double_current(), dev);
    MPI_Comm_free(&world);
}

/* The double itself refuses two members on one GPU, on every member, with
 * a communicator in an error state, as NCCL does. */
GT_TEST(test_double_duplicate_gpu)
{
    ncclUniqueId id;
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    ncclComm_t c = NULL;
    ncclResult_t r, state = ncclSuccess;

    if (world_size < 2)
        return;
    if (world_rank == 0)
        CHECK_EQ(ncclGetUniqueId(&id), ncclSuccess);
    MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, MPI_COMM_WORLD);
    cuda_double_set_current(0);
    r = ncclCommInitRankConfig(&c, world_size, id, world_rank, &config);
    CHECK_EQ(r, ncclInvalidUsage);
    CHECK(strstr(ncclGetLastError(c), "Duplicate GPU") != NULL);
    CHECK(c != NULL);
    CHECK_EQ(ncclCommGetAsyncError(c, &state), ncclSuccess);
    CHECK_EQ(state, ncclInvalidUsage);
    CHECK_EQ(ncclCommAbort(c), ncclSuccess);
    cuda_double_set_current(dev);
}

/* Config values NCCL refuses: no communicator, ncclInvalidArgument. */
GT_TEST(test_double_config_refused)
{
    ncclUniqueId id;
    int bad[][4] = {{2, NCCL_CONFIG_UNDEF_INT, NCCL_CONFIG_UNDEF_INT, NCCL_CONFIG_UNDEF_INT},
                    {1, 2, NCCL_CONFIG_UNDEF_INT, NCCL_CONFIG_UNDEF_INT},
                    {1, 8, 4, NCCL_CONFIG_UNDEF_INT},
                    {1, NCCL_CONFIG_UNDEF_INT, NCCL_CONFIG_UNDEF_INT, 2}};

    CHECK_EQ(ncclGetUniqueId(&id), ncclSuccess);
    for (int i = 0; i < 4; i++) {
        ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
        ncclComm_t c = (ncclComm_t)&config;
        config.blocking = bad[i][0];
        config.minCTAs = bad[i][1];
        config.maxCTAs = bad[i][2];
        config.splitShare = bad[i][3];
        CHECK_EQ(ncclCommInitRankConfig(&c, 1, id, 0, &config), ncclInvalidArgument);
        CHECK(c == NULL);
    }
}

/* Non-blocking init waits for every member: rank 0 stays in progress
 * until rank 1, which waits for rank 0's word, has called it too. */
GT_TEST(test_double_rendezvous)
{
    ncclUniqueId id;
    ncclConfig_t config = NCCL_CONFIG_INITIALIZER;
    ncclComm_t c = NULL;
    ncclResult_t state = ncclInProgress;
    int token = 0;

    if (world_size != 2)
        return;
    if (world_rank == 0)
        CHECK_EQ(ncclGetUniqueId(&id), ncclSuccess);
    MPI_Bcast(&id, sizeof(id), MPI_BYTE, 0, MPI_COMM_WORLD);
    config.blocking = world_rank == 0 ? 0 : 1;
    if (world_rank == 0) {
        CHECK_EQ(ncclCommInitRankConfig(&c, 2, id, 0, &config), ncclInProgress);
        for (int i = 0; i < 100; i++) {
            CHECK_EQ(ncclCommGetAsyncError(c, &state), ncclSuccess);
            CHECK_EQ(state, ncclInProgress);
        }
        MPI_Send(&token, 1, MPI_INT, 1, 0, MPI_COMM_WORLD);
        while (state == ncclInProgress)
            CHECK_EQ(ncclCommGetAsyncError(c, &state), ncclSuccess);
        CHECK_EQ(state, ncclSuccess);
    } else {
        MPI_Recv(&token, 1, MPI_INT, 0, 0, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        CHECK_EQ(ncclCommInitRankConfig(&c, 2, id, 1, &config), ncclSuccess);
    }
    CHECK_EQ(dmesh_nccl_comm_destroy(c, dev), DMESH_SUCCESS);
}

/* An allreduce over each parity group: the sum of the members' values. */
static void allreduce_checked(ncclComm_t c, int nonblocking)
{
    int buf[3] = {world_rank, 1, 10 * world_rank}, want = 0, n = 0;
    ncclResult_t r = ncclAllReduce(buf, buf, 3, ncclInt32, ncclSum, c, NULL), state = r;

    for (int w = world_rank % 2; w < world_size; w += 2, n++)
        want += w;
    CHECK_EQ(r, nonblocking ? ncclInProgress : ncclSuccess);
    if (nonblocking)
        CHECK_EQ(buf[1], 1); /* not there before completion */
    while (state == ncclInProgress)
        CHECK_EQ(ncclCommGetAsyncError(c, &state), ncclSuccess);
    CHECK_EQ(state, ncclSuccess);
    CHECK_EQ(buf[0], want);
    CHECK_EQ(buf[1], n);
    CHECK_EQ(buf[2], 10 * want);
}

GT_TEST(test_allreduce)
{
    dmesh_nccl_options_t o = {DMESH_NCCL_OPT_BLOCKING, 0, 0, 0, 0, 0, "", "mesh/parity", 0};
    MPI_Comm parity = split(world_rank % 2, world_rank);
    ncclComm_t c = create_checked(parity, NULL);

    allreduce_checked(c, 0);
    CHECK_EQ(info_of(c).allreduces, 1);
    CHECK_EQ(dmesh_nccl_comm_destroy(c, dev), DMESH_SUCCESS);
    nccl_double_set_polls(2);
    c = create_checked(parity, &o);
    CHECK(info_of(c).config.commName != NULL &&
          strcmp(info_of(c).config.commName, "mesh/parity") == 0);
    allreduce_checked(c, 1);
    CHECK_EQ(dmesh_nccl_comm_destroy(c, dev), DMESH_SUCCESS);
    nccl_double_set_polls(0);
    MPI_Comm_free(&parity);
}

/* lib/gpu_lib.h (not included: its macros would send this file's NCCL
 * calls through the table): the tests' hooks of the loader. */
void dmesh_gpu_lib_forget(void);
void dmesh_gpu_lib_hide_optional(int hide);

#if NCCL_DOUBLE_REVOKE_SHRINK
/* dmesh_revoke's NCCL part: every communicator revoked and kept (not
 * aborted, not finalized), one ncclCommRevoke each; a collective on one
 * then fails; aborting them afterwards frees them. */
GT_TEST(test_revoke_all)
{
    MPI_Comm a = split(0, world_rank), b = split(world_rank % 2, world_rank);
    void *set[3] = {create_checked(a, NULL), NULL, create_checked(b, NULL)};
    unsigned long before = nccl_double_calls("ncclCommRevoke");
    int kept = -1, buf = 1;

    CHECK_EQ(dmesh_nccl_comm_revoke_all(3, set, dev, &kept), DMESH_SUCCESS);
    CHECK_EQ(kept, 1);
    CHECK_EQ(nccl_double_calls("ncclCommRevoke") - before, 2);
    CHECK_EQ(nccl_double_live_comms(), 2);
    CHECK(info_of(set[0]).revoked && info_of(set[2]).revoked);
    CHECK(!info_of(set[0]).aborted && !info_of(set[0]).finalized);
    CHECK_EQ(ncclAllReduce(&buf, &buf, 1, ncclInt32, ncclSum, set[0], NULL), ncclInvalidUsage);
    CHECK_EQ(dmesh_nccl_comm_abort_all(3, set, dev), DMESH_SUCCESS);
    CHECK_EQ(nccl_double_live_comms(), 0);
    MPI_Comm_free(&b);
    MPI_Comm_free(&a);
}
#endif

/* An NCCL without ncclCommRevoke and ncclCommShrink (older than 2.27, or
 * headers that lack one, as 2.28.3's lack ncclCommRevoke): the
 * communicators are aborted instead (kept 0), and shrinking is refused. */
GT_TEST(test_revoke_all_old_nccl)
{
    MPI_Comm a;
    void *set[1], *c = (void *)&c;
    unsigned long before = nccl_double_calls("ncclCommRevoke");
    int kept = -1, none[1] = {0};

    dmesh_gpu_lib_hide_optional(1);
    dmesh_gpu_lib_forget();
    a = split(0, world_rank);
    set[0] = create_checked(a, NULL); /* loads NCCL again, without them */
    CHECK_EQ(dmesh_nccl_can_shrink(), 0);
    CHECK_EQ(dmesh_nccl_comm_shrink(set[0], 0, none, 0, NULL, dev, &c, NULL), DMESH_ERR_BACKEND);
    CHECK(c == (void *)&c); /* untouched */
    CHECK_EQ(dmesh_nccl_comm_revoke_all(1, set, dev, &kept), DMESH_SUCCESS);
    CHECK_EQ(kept, 0);
    CHECK_EQ(nccl_double_calls("ncclCommRevoke"), before);
    CHECK(set[0] == NULL || info_of(set[0]).aborted);
    CHECK_EQ(nccl_double_live_comms(), 0);
    dmesh_gpu_lib_hide_optional(0);
    dmesh_gpu_lib_forget();
    MPI_Comm_free(&a);
}

#if NCCL_DOUBLE_REVOKE_SHRINK
/* The world communicator, revoked (quiescent after polls), shrunk without
 * rank 1 (which does not call, as a dead rank would not): the survivors'
 * communicator pairs with their MPI one (order kept), an allreduce sums
 * their world ranks, NCCL_SHRINK_ABORT since a member failed; with nothing
 * excluded and nothing failed, NCCL_SHRINK_DEFAULT and every rank. */
static void shrink_checked(int drop_one, int polls)
{
    MPI_Comm world = split(0, world_rank), left = split(drop_one && world_rank == 1, world_rank);
    void *parent = create_checked(world, NULL), *c = NULL;
    dmesh_nccl_stats_t st;
    int one[1] = {1}, kept = 0, out = drop_one && world_rank == 1, buf[2] = {world_rank, 1};
    int want = world_size * (world_size - 1) / 2 - (drop_one ? 1 : 0);
    unsigned long before = nccl_double_calls("ncclCommShrink");

    memset(&st, 0, sizeof(st));
    nccl_double_set_polls(polls);
    CHECK_EQ(dmesh_nccl_comm_revoke_all(1, &parent, dev, &kept), DMESH_SUCCESS);
    CHECK_EQ(kept, 1);
    CHECK_EQ(nccl_double_pending_polls(parent), polls); /* not quiescent yet */
    if (!out) {
        CHECK_EQ(dmesh_nccl_comm_shrink(parent, drop_one, one, drop_one, NULL, dev, &c, &st),
                 DMESH_SUCCESS);
        CHECK_EQ(nccl_double_pending_polls(parent), 0); /* waited for */
        CHECK_EQ(st.shrinks, 1);
        CHECK_EQ(nccl_double_calls("ncclCommShrink") - before, 1);
        CHECK(c != NULL && info_of(c).shrunk);
        CHECK_EQ(info_of(c).shrink_flags, drop_one ? NCCL_SHRINK_ABORT : NCCL_SHRINK_DEFAULT);
        CHECK_EQ(info_of(c).shrink_excluded, drop_one);
        CHECK_EQ(info_of(c).nranks, world_size - drop_one);
        CHECK_EQ(nccl_double_check_pairing(c, left), 0);
        CHECK_EQ(ncclAllReduce(buf, buf, 2, ncclInt32, ncclSum, c, NULL), ncclSuccess);
        CHECK_EQ(buf[0], want);
        CHECK_EQ(buf[1], world_size - drop_one);
        CHECK_EQ(dmesh_nccl_comm_destroy(c, dev), DMESH_SUCCESS);
    } else
        CHECK_EQ(nccl_double_calls("ncclCommShrink"), before);
    nccl_double_set_polls(0);
    CHECK_EQ(dmesh_nccl_comm_abort_all(1, &parent, dev), DMESH_SUCCESS);
    CHECK_EQ(nccl_double_live_comms(), 0);
    MPI_Comm_free(&left);
    MPI_Comm_free(&world);
}

GT_TEST(test_shrink)
{
    shrink_checked(0, 0);
    shrink_checked(1, 0);
    shrink_checked(1, 3);
}

/* A failed ncclCommShrink leaves nothing here and says why. */
GT_TEST(test_shrink_error)
{
    MPI_Comm world = split(0, world_rank);
    void *parent = create_checked(world, NULL), *c = NULL;
    int kept = 0, none[1] = {0}, rc;

    CHECK_EQ(dmesh_nccl_comm_revoke_all(1, &parent, dev, &kept), DMESH_SUCCESS);
    if (world_rank == 0)
        nccl_double_fail_next("ncclCommShrink", ncclInternalError);
    rc = dmesh_nccl_comm_shrink(parent, 0, none, 0, NULL, dev, &c, NULL);
    CHECK_EQ(rc, world_rank == 0 ? DMESH_ERR_NCCL : DMESH_SUCCESS);
    if (world_rank == 0) {
        CHECK(c == NULL);
        CHECK_MSG("ncclCommShrink: internal error (double)");
    }
    if (c != NULL)
        CHECK_EQ(dmesh_nccl_comm_abort_all(1, &c, dev), DMESH_SUCCESS);
    CHECK_EQ(dmesh_nccl_comm_abort_all(1, &parent, dev), DMESH_SUCCESS);
    CHECK_EQ(nccl_double_live_comms(), 0);
    MPI_Comm_free(&world);
}
#endif

static Suite *pairing_suite(void)
{
    Suite *s = suite_create("nccl_pairing");
    TCase *t = tcase_create("pairing");

    tcase_set_timeout(t, 120);
    tcase_add_test(t, test_available);
    tcase_add_test(t, test_world);
    tcase_add_test(t, test_split_groups);
    tcase_add_test(t, test_config_fields);
    tcase_add_test(t, test_config_defaults);
    tcase_add_test(t, test_nonblocking);
    tcase_add_test(t, test_abort_all);
    tcase_add_test(t, test_abort_all_error);
    tcase_add_test(t, test_unique_id_error);
    tcase_add_test(t, test_init_error);
    tcase_add_test(t, test_finalize_error);
    tcase_add_test(t, test_device_around_calls);
    tcase_add_test(t, test_duplicate_gpu);
    tcase_add_test(t, test_double_duplicate_gpu);
    tcase_add_test(t, test_double_config_refused);
    tcase_add_test(t, test_double_rendezvous);
    tcase_add_test(t, test_allreduce);
    tcase_add_test(t, test_init_timeout);
#if NCCL_DOUBLE_REVOKE_SHRINK
    tcase_add_test(t, test_revoke_all);
#endif
    tcase_add_test(t, test_revoke_all_old_nccl);
#if NCCL_DOUBLE_REVOKE_SHRINK
    tcase_add_test(t, test_shrink);
    tcase_add_test(t, test_shrink_error);
#endif
    suite_add_tcase(s, t);
    return s;
}

int main(int argc, char **argv)
{
    int total;

    gt_init(&argc, &argv);
    /* one GPU per rank, as device binding would give them */
    cuda_double_set_devices(NGPU, cuda_double_node_gpus);
    dev = world_rank % NGPU;
    cudaSetDevice(dev);
    total = gt_run_suite(pairing_suite());
    MPI_Finalize();
    return total == 0 ? 0 : 1;
}
