/* SPDX-License-Identifier: BSD-3-Clause */
/* NCCL creation strategies (dmesh_nccl_create = init / split / scalable)
 * through the public mesh API, without a GPU: libdmesh_core is linked with
 * the NCCL and CUDA test doubles (test/nccl_double, test/gpu/cuda_double.c),
 * whose definitions take the place of libnccl's and libcudart's. Every
 * strategy must give each dimension an NCCL communicator with the members
 * and ranks of its MPI communicator (checked by the double against MPI, and
 * by an allreduce through the double), count what it spent, and fail on
 * every rank alike. Soft checks (gpu_testutil.h): no rank is left waiting. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>
#include <mpi.h>
#include <nccl.h>

#include "cuda_double.h"
#include "dmesh.h"
#include "dmesh_nccl.h"
#include "gpu_testutil.h"
#include "nccl_double.h"

/* lib/gpu_lib.h (not included: its macros would send this file's NCCL
 * calls through libdmesh's table): look for the libraries again. */
void dmesh_gpu_lib_forget(void);

#define NGPU CUDA_DOUBLE_NODE_GPUS
static const char *const strategies[3] = {"init", "split", "scalable"};

/* Info for a "cuda" mesh on this rank's own GPU, made with strategy how. */
static MPI_Info info_for(const char *how)
{
    MPI_Info info;
    char dev[16];

    snprintf(dev, sizeof(dev), "%d", world_rank % NGPU);
    MPI_Info_create(&info);
    MPI_Info_set(info, "dmesh_device", dev);
    if (how != NULL)
        MPI_Info_set(info, "dmesh_nccl_create", how);
    return info;
}

static dmesh_t init_mesh(const char *how, int ndims, const int shape[], const char *const names[])
{
    MPI_Info info = info_for(how);
    dmesh_t m = DMESH_NULL;
    int rc = dmesh_init(MPI_COMM_WORLD, "cuda", ndims, shape, names, info, &m);

    MPI_Info_free(&info);
    CHECK_EQ(rc, DMESH_SUCCESS);
    return m;
}

static dmesh_cache_info_t counts(dmesh_t m)
{
    dmesh_cache_info_t c;

    memset(&c, 0, sizeof(c));
    CHECK_EQ(dmesh_get_cache_info(m, &c), DMESH_SUCCESS);
    return c;
}

/* The NCCL communicator of dim d pairs with the MPI one: same members and
 * ranks (the double checks with MPI), and an allreduce through the double
 * sums the members' world ranks. Returns what the double knows of it. */
static nccl_double_comm_info_t check_dim(dmesh_t m, int d)
{
    nccl_double_comm_info_t info;
    MPI_Comm mpi = MPI_COMM_NULL;
    ncclComm_t nccl = NULL;
    int ranks[64], n = 0, want = 0, buf[2] = {world_rank, 1};

    memset(&info, 0, sizeof(info));
    CHECK_EQ(dmesh_get_comm(m, d, &mpi), DMESH_SUCCESS);
    CHECK_EQ(dmesh_get_nccl_comm(m, d, &nccl), DMESH_SUCCESS);
    CHECK_EQ(dmesh_get_group_ranks(m, d, 64, ranks, &n), DMESH_SUCCESS);
    if (mpi == MPI_COMM_NULL || nccl == NULL) {
        CHECK(0);
        return info;
    }
    CHECK_EQ(nccl_double_check_pairing(nccl, mpi), 0);
    CHECK_EQ(ncclAllReduce(buf, buf, 2, ncclInt32, ncclSum, nccl, NULL), ncclSuccess);
    for (int i = 0; i < n; i++)
        want += ranks[i];
    CHECK_EQ(buf[0], want);
    CHECK_EQ(buf[1], n);
    CHECK_EQ(nccl_double_comm_info(nccl, &info), 0);
    return info;
}

/* ---- tests ------------------------------------------------------------- */

/* A 2-D mesh by each strategy: right communicators, and the counts. */
GT_TEST(test_strategies_2d)
{
    int shape[2] = {2, world_size / 2}, wide = world_size > 2;
    const char *names[2] = {"dp", "tp"};

    for (int s = 0; s < 3; s++) {
        unsigned long ids = nccl_double_unique_ids();
        dmesh_t m = init_mesh(strategies[s], 2, shape, names);
        dmesh_cache_info_t c = counts(m);

        for (int d = 0; d < 2; d++) {
            nccl_double_comm_info_t i = check_dim(m, d);
            CHECK_EQ(i.split, s == 1 && (d == 1 || wide));
            CHECK_EQ(i.nids > 0, s == 2);
            CHECK_EQ(i.grouped, 1); /* the dims inside one group */
        }
        CHECK_EQ(c.nccl_bootstraps, s == 0 ? 2 : s == 1 ? 1 : 0);
        /* split: the root communicator (and its MPI pair) is in the cache;
         * at 2 ranks, dp (2:1) is the root itself */
        CHECK_EQ(c.nccl_splits, s == 1 ? 1 + wide : 0);
        CHECK_EQ(c.nccl_scalable_inits, s == 2 ? 2 : 0);
        CHECK_EQ(c.comms_nccl, s == 1 ? 2 + wide : 2);
        if (s == 1) /* one id for the whole mesh, made by rank 0 */
            CHECK_EQ(nccl_double_unique_ids() - ids, world_rank == 0);
        CHECK_EQ(dmesh_free(&m), DMESH_SUCCESS);
    }
    CHECK_EQ(nccl_double_live_comms(), 0);
}

/* Dims of size 1 share one cache entry: by every strategy its NCCL
 * communicator is made once (and freed), and every dim pairs right. */
GT_TEST(test_size1_dims_made_once)
{
    int shape[3] = {world_size, 1, 1};
    const char *names[3] = {"world", "a", "b"};

    for (int s = 0; s < 3; s++) {
        dmesh_t m = init_mesh(strategies[s], 3, shape, names);
        dmesh_cache_info_t c = counts(m);

        for (int d = 0; d < 3; d++)
            check_dim(m, d);
        /* the world and the empty axis (one entry when the world has 1 rank) */
        CHECK_EQ(c.comms_nccl, world_size > 1 ? 2 : 1);
        CHECK_EQ(c.nccl_bootstraps + c.nccl_splits + c.nccl_scalable_inits, world_size > 1 ? 2 : 1);
        CHECK_EQ(dmesh_free(&m), DMESH_SUCCESS);
    }
    CHECK_EQ(nccl_double_live_comms(), 0);
}

/* split: flatten and unflatten split from the universe's root, which is
 * bootstrapped once; nothing is made twice. */
GT_TEST(test_split_flatten_unflatten)
{
    int shape[1] = {world_size}, sizes[2] = {2, world_size / 2};
    const char *world[1] = {"world"}, *names[2] = {"dp", "tp"};
    dmesh_t m = init_mesh("split", 1, shape, world), u = DMESH_NULL, f = DMESH_NULL;
    MPI_Info info = info_for("split");
    dmesh_cache_info_t c = counts(m);

    CHECK_EQ(c.nccl_bootstraps, 1); /* the 1-D mesh's dim is the root itself */
    CHECK_EQ(c.nccl_splits, 0);
    check_dim(m, 0);
    CHECK_EQ(dmesh_unflatten(m, 0, 2, sizes, names, info, &u), DMESH_SUCCESS);
    check_dim(u, 0);
    check_dim(u, 1);
    c = counts(u);
    CHECK_EQ(c.nccl_bootstraps, 1);
    CHECK_EQ(c.nccl_splits, world_size / 2 > 1 ? 2 : 1);
    CHECK_EQ(dmesh_flatten(u, NULL, info, &f), DMESH_SUCCESS); /* = world: a cache hit */
    c = counts(f);
    CHECK_EQ(c.nccl_bootstraps, 1);
    CHECK_EQ(c.nccl_splits, world_size / 2 > 1 ? 2 : 1);
    MPI_Info_free(&info);
    dmesh_free(&f);
    dmesh_free(&u);
    dmesh_free(&m);
    CHECK_EQ(nccl_double_live_comms(), 0);
}

/* dmesh_get_sub_comm on a "cuda" mesh, by each strategy: the kept
 * dimensions' communicator (here both: the whole world, a new layout) is
 * paired with an NCCL one like a flattened dimension's; dmesh_flatten of
 * the same dimensions then finds both in the cache (the same MPI handle,
 * nothing new made), and a repeated call makes nothing. */
GT_TEST(test_sub_comm_paired)
{
    int shape[2] = {2, world_size / 2}, both[2] = {1, 1};
    const char *names[2] = {"dp", "tp"};

    for (int s = 0; s < 3; s++) {
        dmesh_t m = init_mesh(strategies[s], 2, shape, names), f = DMESH_NULL;
        MPI_Comm sub = MPI_COMM_NULL, again = MPI_COMM_NULL, fc = MPI_COMM_NULL;
        dmesh_cache_info_t before, after;
        int n = -1;

        CHECK_EQ(dmesh_get_sub_comm(m, both, &sub), DMESH_SUCCESS);
        CHECK(sub != MPI_COMM_NULL);
        if (sub != MPI_COMM_NULL)
            MPI_Comm_size(sub, &n);
        CHECK_EQ(n, world_size);
        before = counts(m);
        CHECK_EQ(dmesh_get_sub_comm(m, both, &again), DMESH_SUCCESS);
        CHECK(again == sub);
        CHECK_EQ(dmesh_flatten(m, NULL, MPI_INFO_NULL, &f), DMESH_SUCCESS);
        CHECK_EQ(dmesh_get_comm(f, 0, &fc), DMESH_SUCCESS);
        CHECK(fc == sub);
        check_dim(f, 0); /* its NCCL communicator pairs with sub */
        after = counts(m);
        CHECK_EQ(after.comms_mpi, before.comms_mpi);
        CHECK_EQ(after.comms_nccl, before.comms_nccl);
        CHECK_EQ(dmesh_free(&f), DMESH_SUCCESS);
        CHECK_EQ(dmesh_free(&m), DMESH_SUCCESS);
    }
    CHECK_EQ(nccl_double_live_comms(), 0);
}

/* A mesh smaller than the world, with a permuted rank map: members pair
 * right by every strategy; the rank outside makes no NCCL communicator. */
GT_TEST(test_smaller_than_world)
{
    int n = world_size - 1, ranks[64], shape[1] = {n};

    for (int i = 0; i < n; i++)
        ranks[i] = world_size - 1 - i; /* rank 0 is outside */
    for (int s = 0; s < 3; s++) {
        MPI_Info info = info_for(strategies[s]);
        dmesh_t m = DMESH_NULL;
        int live = nccl_double_live_comms();
        CHECK_EQ(dmesh_create(MPI_COMM_WORLD, "cuda", 1, shape, ranks, NULL, info, &m),
                 DMESH_SUCCESS);
        MPI_Info_free(&info);
        if (world_rank == 0) {
            ncclComm_t nc = NULL;
            CHECK_EQ(dmesh_get_nccl_comm(m, 0, &nc), DMESH_ERR_NOT_MEMBER);
            CHECK_EQ(nccl_double_live_comms(), live);
            CHECK_EQ(counts(m).nccl_bootstraps + counts(m).nccl_splits, 0);
        } else {
            check_dim(m, 0);
        }
        dmesh_free(&m);
    }
    CHECK_EQ(nccl_double_live_comms(), 0);
}

/* A failure inside NCCL on one rank: the same class on every rank, nothing
 * left alive, and the next mesh works. */
static void failure_on_one_rank(const char *how, const char *fn)
{
    int shape[2] = {2, world_size / 2};
    MPI_Info info = info_for(how);
    dmesh_t m = DMESH_NULL;
    int rc;

    if (world_rank == world_size - 1)
        nccl_double_fail_next(fn, ncclInternalError);
    rc = dmesh_init(MPI_COMM_WORLD, "cuda", 2, shape, NULL, info, &m);
    CHECK_EQ(rc, DMESH_ERR_NCCL);
    CHECK_SAME(rc);
    CHECK(m == DMESH_NULL);
    nccl_double_fail_next(NULL, ncclSuccess);
    CHECK_EQ(nccl_double_live_comms(), 0);
    MPI_Info_free(&info);
    m = init_mesh(how, 2, shape, NULL);
    check_dim(m, 0);
    dmesh_free(&m);
}

GT_TEST(test_split_failure)
{
    failure_on_one_rank("split", "ncclCommSplit");
}

GT_TEST(test_scalable_failure)
{
    failure_on_one_rank("scalable", "ncclCommInitRankScalable");
}

GT_TEST(test_init_failure_grouped)
{
    failure_on_one_rank("init", "ncclCommInitRankConfig");
}

GT_TEST(test_group_end_failure)
{
    failure_on_one_rank("init", "ncclGroupEnd");
}

/* NCCL cannot be loaded (doc/gpu.md section 8) where fail is set: DMESH_NCCL_LIBRARY
 * names a file that does not exist. A "cuda" mesh with NCCL dims fails with
 * DMESH_ERR_BACKEND naming NCCL on every rank, nothing left alive; one whose
 * dims all use MPI never needs NCCL; once the variable is gone, NCCL (the
 * double, found in the program) loads again. */
static void nccl_missing(int fail, const char *rank_detail)
{
    int shape[1] = {world_size};
    MPI_Info info = info_for("init");
    dmesh_t m = DMESH_NULL;
    int rc;

    dmesh_gpu_lib_forget();
    if (fail)
        setenv("DMESH_NCCL_LIBRARY", "/nonexistent/libnccl.so.99", 1);
    rc = dmesh_init(MPI_COMM_WORLD, "cuda", 1, shape, NULL, info, &m);
    CHECK_EQ(rc, DMESH_ERR_BACKEND);
    CHECK_SAME(rc);
    CHECK_MSG(rank_detail);
    CHECK_MSG("cannot load NCCL from DMESH_NCCL_LIBRARY=/nonexistent/libnccl.so.99");
    CHECK(m == DMESH_NULL);
    CHECK_EQ(nccl_double_live_comms(), 0);
    MPI_Info_set(info, "dmesh_backend", "mpi");
    CHECK_EQ(dmesh_init(MPI_COMM_WORLD, "cuda", 1, shape, NULL, info, &m), DMESH_SUCCESS);
    dmesh_free(&m);
    unsetenv("DMESH_NCCL_LIBRARY");
    MPI_Info_free(&info);
    m = init_mesh("init", 1, shape, NULL);
    check_dim(m, 0);
    dmesh_free(&m);
}

GT_TEST(test_nccl_missing_everywhere)
{
    nccl_missing(1, "rank 0: device type \"cuda\": ");
}

GT_TEST(test_nccl_missing_on_last_rank)
{
    char detail[32];

    snprintf(detail, sizeof(detail), "rank %d: ", world_size - 1);
    nccl_missing(world_rank == world_size - 1, detail);
}

/* scalable with several roots: each member got the same nroots ids. */
GT_TEST(test_scalable_roots)
{
    int shape[1] = {world_size};
    MPI_Info info = info_for("scalable");
    dmesh_t m = DMESH_NULL;

    MPI_Info_set(info, "nccl_scalable_roots", "2");
    CHECK_EQ(dmesh_init(MPI_COMM_WORLD, "cuda", 1, shape, NULL, info, &m), DMESH_SUCCESS);
    CHECK_EQ(check_dim(m, 0).nids, world_size < 2 ? world_size : 2);
    dmesh_free(&m);
    MPI_Info_free(&info);
}

/* The option's values; its environment variable is read once per process. */
GT_TEST(test_option)
{
    int shape[1] = {world_size};
    MPI_Info info = info_for("bogus");
    dmesh_t m = DMESH_NULL;

    CHECK_EQ(dmesh_init(MPI_COMM_WORLD, "cuda", 1, shape, NULL, info, &m), DMESH_ERR_ARG);
    CHECK_MSG("dmesh_nccl_create");
    MPI_Info_free(&info);
    /* read once per process (the call above read it): a later change is ignored */
    setenv("DMESH_NCCL_CREATE", "scalable", 1);
    m = init_mesh(NULL, 1, shape, NULL);
    unsetenv("DMESH_NCCL_CREATE");
    CHECK_EQ(counts(m).nccl_scalable_inits, 0);
    dmesh_free(&m);
}

/* dmesh_get_nccl_comm's own checks (lib/mesh_nccl.c), outputs untouched. */
GT_TEST(test_get_nccl_comm_args)
{
    int shape[1] = {world_size};
    dmesh_t m = init_mesh(NULL, 1, shape, NULL);
    ncclComm_t c = NULL;

    CHECK_EQ(dmesh_get_nccl_comm(m, 0, NULL), DMESH_ERR_ARG);
    CHECK_EQ(dmesh_get_nccl_comm(DMESH_NULL, 0, &c), DMESH_ERR_ARG);
    CHECK_EQ(dmesh_get_nccl_comm(m, 1, &c), DMESH_ERR_ARG);
    CHECK_EQ(dmesh_get_nccl_comm(m, -1, &c), DMESH_ERR_ARG);
    CHECK(c == NULL);
    CHECK_EQ(dmesh_get_nccl_comm(m, 0, &c), DMESH_SUCCESS);
    CHECK(c != NULL);
    dmesh_free(&m);
}

/* dmesh_get_nccl_comm_by_name: the communicator of the index form, and a
 * name the mesh lacks is DMESH_ERR_NAME naming it and the mesh's names. */
GT_TEST(test_get_nccl_comm_by_name)
{
    const char *names[2] = {"1", "tp"};
    int shape[2] = {1, world_size};
    dmesh_t m = init_mesh(NULL, 2, shape, names);
    ncclComm_t a = NULL, b = NULL;

    for (int d = 0; d < 2; d++) {
        CHECK_EQ(dmesh_get_nccl_comm(m, d, &a), DMESH_SUCCESS);
        CHECK_EQ(dmesh_get_nccl_comm_by_name(m, names[d], &b), DMESH_SUCCESS);
        CHECK(a != NULL && a == b);
    }
    CHECK_EQ(dmesh_get_nccl_comm_by_name(m, "tq", &b), DMESH_ERR_NAME);
    CHECK(b == NULL && strstr(dmesh_last_error(), "dmesh_get_nccl_comm_by_name") != NULL &&
          strstr(dmesh_last_error(), "\"tq\" in mesh (1, tp)") != NULL);
    CHECK_EQ(dmesh_get_nccl_comm_by_name(m, NULL, &b), DMESH_ERR_ARG);
    CHECK_EQ(dmesh_get_nccl_comm_by_name(m, "tp", NULL), DMESH_ERR_ARG);
    dmesh_free(&m);
}

/* Lazy creation (dmesh_nccl_init=lazy): the first dmesh_get_nccl_comm of a
 * dim is collective over its group. A NULL output on one rank is that
 * rank's error, agreed: every member returns DMESH_ERR_ARG (none is left
 * in the creation), nothing is made, and the next call makes it. */
GT_TEST(test_lazy_null_output)
{
    int shape[2] = {2, world_size / 2};
    MPI_Info info = info_for(NULL);
    dmesh_t m = DMESH_NULL;
    ncclComm_t c = NULL;
    int rc, live;

    if (world_size < 2)
        return;
    MPI_Info_set(info, "dmesh_nccl_init", "lazy");
    CHECK_EQ(dmesh_init(MPI_COMM_WORLD, "cuda", 2, shape, NULL, info, &m), DMESH_SUCCESS);
    MPI_Info_free(&info);
    live = nccl_double_live_comms();
    /* dim 0 groups ranks r and r + size/2: world rank 0 leaves out its own */
    rc = dmesh_get_nccl_comm(m, 0, world_rank == 0 ? NULL : &c);
    if (world_rank % (world_size / 2) == 0) {
        CHECK_EQ(rc, DMESH_ERR_ARG);
        CHECK(c == NULL);
    } else {
        CHECK_EQ(rc, DMESH_SUCCESS); /* another group: not concerned */
    }
    CHECK_EQ(nccl_double_live_comms(), live + (world_rank % (world_size / 2) != 0));
    check_dim(m, 0); /* now made in the first group too */
    check_dim(m, 1);
    dmesh_free(&m);
    CHECK_EQ(nccl_double_live_comms(), 0);
}

/* After dmesh_abort the communicators are gone: dmesh_get_nccl_comm is
 * DMESH_ERR_ARG, eager or lazy, and leaves its output alone. */
/* An eager call that reuses an entry a lazy mesh left made in one group
 * only (the first dmesh_get_nccl_comm of dim 1 ran in group 0 alone): the
 * eager creation makes what the call reserved, the same on every rank, and
 * leaves the reused entry to its own lazy creation in the other groups (a
 * rank whose group had made it must not be left waiting for the others). */
GT_TEST(test_eager_after_partial_lazy)
{
    int shape[2] = {2, world_size / 2}, sizes[2] = {1, world_size / 2};
    const char *names[2] = {"dp", "tp"}, *un[2] = {"x", "y"};
    MPI_Info info = info_for(NULL);
    dmesh_t m = DMESH_NULL, u = DMESH_NULL;
    ncclComm_t c = NULL;

    if (world_size < 4)
        return;
    MPI_Info_set(info, "dmesh_nccl_init", "lazy");
    CHECK_EQ(dmesh_init(MPI_COMM_WORLD, "cuda", 2, shape, names, info, &m), DMESH_SUCCESS);
    MPI_Info_free(&info);
    if (world_rank < world_size / 2) /* group 0 of dim tp */
        CHECK_EQ(dmesh_get_nccl_comm(m, 1, &c), DMESH_SUCCESS);
    info = info_for(NULL); /* eager, split: y's axis is tp's, found in the cache */
    CHECK_EQ(dmesh_unflatten(m, 1, 2, sizes, un, info, &u), DMESH_SUCCESS);
    MPI_Info_free(&info);
    check_dim(u, 1); /* group 1 makes y now, lazily over its group */
    check_dim(u, 2);
    check_dim(m, 1);
    dmesh_free(&u);
    dmesh_free(&m);
    CHECK_EQ(nccl_double_live_comms(), 0);
}

/* The same for the split root: a lazy 1-D mesh without rank 0, whose
 * members made its communicator (the whole mesh's axis, the root's), then
 * an eager split: the root is found made on the members and pending on
 * rank 0; every rank still agrees on it once. */
GT_TEST(test_eager_split_root_after_lazy)
{
    int n = world_size - 1, ranks[64], shape[1] = {n}, sizes[2] = {1, world_size - 1};
    MPI_Info info = info_for("split");
    dmesh_t m = DMESH_NULL, u = DMESH_NULL;
    ncclComm_t c = NULL;

    for (int i = 0; i < n; i++)
        ranks[i] = i + 1; /* rank 0 is outside */
    MPI_Info_set(info, "dmesh_nccl_init", "lazy");
    CHECK_EQ(dmesh_create(MPI_COMM_WORLD, "cuda", 1, shape, ranks, NULL, info, &m), DMESH_SUCCESS);
    MPI_Info_free(&info);
    if (world_rank != 0)
        CHECK_EQ(dmesh_get_nccl_comm(m, 0, &c), DMESH_SUCCESS);
    info = info_for("split");
    CHECK_EQ(dmesh_unflatten(m, 0, 2, sizes, NULL, info, &u), DMESH_SUCCESS);
    MPI_Info_free(&info);
    if (world_rank != 0) {
        check_dim(u, 0);
        check_dim(u, 1);
    }
    dmesh_free(&u);
    dmesh_free(&m);
    CHECK_EQ(nccl_double_live_comms(), 0);
}

GT_TEST(test_get_nccl_comm_after_abort)
{
    int shape[1] = {world_size};
    ncclComm_t c = NULL;

    for (int lazy = 0; lazy < 2; lazy++) {
        MPI_Info info = info_for(NULL);
        dmesh_t m = DMESH_NULL;

        if (lazy)
            MPI_Info_set(info, "dmesh_nccl_init", "lazy");
        CHECK_EQ(dmesh_init(MPI_COMM_WORLD, "cuda", 1, shape, NULL, info, &m), DMESH_SUCCESS);
        MPI_Info_free(&info);
        CHECK_EQ(dmesh_abort(m), DMESH_SUCCESS);
        CHECK_EQ(dmesh_get_nccl_comm(m, 0, &c), DMESH_ERR_ARG);
        CHECK_MSG("aborted");
        CHECK(c == NULL);
        dmesh_free(&m);
    }
    CHECK_EQ(nccl_double_live_comms(), 0);
}

/* The double's ncclCommSplit as NCCL's: NOCOLOR gives NULL, keys order. */
GT_TEST(test_double_split)
{
    ncclUniqueId id;
    ncclComm_t world = NULL, child = NULL;
    int rank = -1, count = -1;

    cudaSetDevice(world_rank % NGPU); /* NCCL: one GPU per rank */
    if (world_rank == 0)
        ncclGetUniqueId(&id);
    MPI_Bcast(&id, (int)sizeof(id), MPI_BYTE, 0, MPI_COMM_WORLD);
    CHECK_EQ(ncclCommInitRank(&world, world_size, id, world_rank), ncclSuccess);
    CHECK_EQ(
        ncclCommSplit(world, world_rank == 0 ? NCCL_SPLIT_NOCOLOR : 7, -world_rank, &child, NULL),
        ncclSuccess);
    if (world_rank == 0) {
        CHECK(child == NULL);
    } else {
        CHECK_EQ(ncclCommCount(child, &count), ncclSuccess);
        CHECK_EQ(ncclCommUserRank(child, &rank), ncclSuccess);
        CHECK_EQ(count, world_size - 1);
        CHECK_EQ(rank, world_size - 1 - world_rank); /* keys descending */
        CHECK_EQ(ncclCommDestroy(child), ncclSuccess);
    }
    CHECK_EQ(ncclCommDestroy(world), ncclSuccess);
}

static Suite *create_suite(void)
{
    Suite *s = suite_create("nccl_create");
    TCase *t = tcase_create("create");

    tcase_set_timeout(t, 120);
    tcase_add_test(t, test_double_split);
    tcase_add_test(t, test_strategies_2d);
    tcase_add_test(t, test_split_flatten_unflatten);
    tcase_add_test(t, test_smaller_than_world);
    tcase_add_test(t, test_sub_comm_paired);
    tcase_add_test(t, test_split_failure);
    tcase_add_test(t, test_scalable_failure);
    tcase_add_test(t, test_init_failure_grouped);
    tcase_add_test(t, test_group_end_failure);
    tcase_add_test(t, test_scalable_roots);
    tcase_add_test(t, test_option);
    tcase_add_test(t, test_size1_dims_made_once);
    tcase_add_test(t, test_get_nccl_comm_args);
    tcase_add_test(t, test_get_nccl_comm_by_name);
    tcase_add_test(t, test_lazy_null_output);
    tcase_add_test(t, test_eager_after_partial_lazy);
    tcase_add_test(t, test_eager_split_root_after_lazy);
    tcase_add_test(t, test_get_nccl_comm_after_abort);
    tcase_add_test(t, test_nccl_missing_everywhere);
    tcase_add_test(t, test_nccl_missing_on_last_rank);
    suite_add_tcase(s, t);
    return s;
}

int main(int argc, char **argv)
{
    int total;

    gt_init(&argc, &argv);
    cuda_double_set_devices(NGPU, cuda_double_node_gpus);
    total = gt_run_suite(create_suite());
    MPI_Finalize();
    return total == 0 ? 0 : 1;
}
