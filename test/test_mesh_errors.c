/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI tests of the error classes of the mesh API (device type "cpu"): every
 * class reachable on a CPU-only machine, the agreement check, the options,
 * the detail message, and that failing calls write no output. Every rank
 * runs every test; collective failures must give the same class on all
 * ranks. Run under mpirun with CK_FORK=no (test/test_mesh_errors-np*.mpi). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "mesh_testutil.h"

static const char *const D3[] = {"d0", "d1", "d2"};
static const char *const W = "w";

/* A local call expected to fail: class, detail message, output handle
 * DMESH_NULL (whatever it held before). */
static struct dmesh_s *const not_null = (struct dmesh_s *)&not_null;
#define FAILS(call, expected, handle)                                                              \
    do {                                                                                           \
        (handle) = not_null;                                                                       \
        int rc_ = MT_RC(call, expected);                                                           \
        if (rc_ != DMESH_SUCCESS && (handle) != DMESH_NULL)                                        \
            mt_fail(__FILE__, __LINE__, "output handle not DMESH_NULL after a failing call: %s",   \
                    #call);                                                                        \
        if (rc_ == DMESH_SUCCESS)                                                                  \
            dmesh_free(&(handle));                                                                 \
    } while (0)

#define WORLD_FAILS(call, expected, handle) MT_FAILS_CREATE(MPI_COMM_WORLD, call, expected, handle)

static dmesh_t make(int ndims, const int shape[], const char *const names[])
{
    dmesh_t mesh = DMESH_NULL;

    MT_OK(dmesh_init(MPI_COMM_WORLD, "cpu", ndims, shape, names, MPI_INFO_NULL, &mesh));
    return mesh;
}

static dmesh_t slice1(dmesh_t mesh, const char *name)
{
    dmesh_t sub = DMESH_NULL;

    MT_OK(dmesh_slice(mesh, 1, &name, &sub));
    return sub;
}

static void free_all(int n, dmesh_t *meshes)
{
    for (int i = 0; i < n; i++) {
        MT_OK(dmesh_free(&meshes[i]));
        MT_CHECK(meshes[i] == DMESH_NULL);
    }
}

/* A consistent call still works after failures (nobody is left behind in a
 * collective call). */
static void still_works(void)
{
    int shape[1] = {mt_size};
    mt_model_t m;
    mt_axis_t ax[1];
    dmesh_t mesh = make(1, shape, &W);

    mt_model_init(&m, 1, shape, NULL);
    ax[0] = mt_axis_dim(&m, 0);
    mt_check_mesh(mesh, MPI_COMM_WORLD, &m, 1, ax, &W);
    free_all(1, &mesh);
}

/* ---- dmesh_free and error strings -------------------------------------- */

MT_TEST(free_semantics)
{
    int shape[1] = {mt_size};
    dmesh_t mesh = DMESH_NULL, sub;

    MT_OK(dmesh_free(&mesh));
    MT_CHECK(mesh == DMESH_NULL);
    MT_RC(dmesh_free(NULL), DMESH_ERR_ARG);
    mesh = make(1, shape, &W);
    sub = slice1(mesh, "w");
    /* Parent and derived meshes are freed independently, in any order. */
    MT_OK(dmesh_free(&mesh));
    MT_CHECK(mesh == DMESH_NULL);
    MT_OK(dmesh_free(&mesh));
    MT_CHECK(sub != DMESH_NULL);
    if (sub != DMESH_NULL) {
        int n = -1;
        MT_OK(dmesh_get_size(sub, &n));
        MT_EQ(n, mt_size);
    }
    MT_OK(dmesh_free(&sub));
    MT_CHECK(sub == DMESH_NULL);
}

MT_TEST(error_strings)
{
    for (int e = 0; e < DMESH_ERR_LASTCODE; e++) {
        const char *s = dmesh_error_string(e);
        MT_CHECK(s != NULL && s[0] != '\0');
        for (int f = 0; f < e; f++)
            MT_CHECK(s != NULL && strcmp(s, dmesh_error_string(f)) != 0);
    }
    MT_CHECK(dmesh_error_string(-1) != NULL);
    MT_CHECK(dmesh_error_string(DMESH_ERR_LASTCODE) != NULL);
    MT_CHECK(dmesh_error_string(1000) != NULL);
    MT_CHECK(dmesh_last_error() != NULL);
}

/* ---- DMESH_ERR_ARG ------------------------------------------------------ */

MT_TEST(arg_creation)
{
    int shape[DMESH_MAX_DIMS + 1], neg[2] = {-1, -mt_size}, zero[1] = {0}, ranks[MT_MAX_RANKS];
    MPI_Comm comms[2] = {MPI_COMM_WORLD, MPI_COMM_WORLD};
    dmesh_t h;
    static const char *const bad_devices[] = {"cuda:0", "gpu", "", "cpu:0", "CPU ", "tpu"};

    for (int i = 0; i <= DMESH_MAX_DIMS; i++)
        shape[i] = i == 0 ? mt_size : 1;
    for (int i = 0; i < mt_size; i++)
        ranks[i] = i;
    WORLD_FAILS(dmesh_init(MPI_COMM_NULL, "cpu", 1, shape, NULL, MPI_INFO_NULL, &h), DMESH_ERR_ARG,
                h);
    WORLD_FAILS(dmesh_init(MPI_COMM_WORLD, NULL, 1, shape, NULL, MPI_INFO_NULL, &h), DMESH_ERR_ARG,
                h);
    WORLD_FAILS(dmesh_init(MPI_COMM_WORLD, "cpu", 1, NULL, NULL, MPI_INFO_NULL, &h), DMESH_ERR_ARG,
                h);
    MT_RC(dmesh_init(MPI_COMM_WORLD, "cpu", 1, shape, NULL, MPI_INFO_NULL, NULL), DMESH_ERR_ARG);
    WORLD_FAILS(dmesh_init(MPI_COMM_WORLD, "cpu", 0, shape, NULL, MPI_INFO_NULL, &h), DMESH_ERR_ARG,
                h);
    WORLD_FAILS(dmesh_init(MPI_COMM_WORLD, "cpu", -1, shape, NULL, MPI_INFO_NULL, &h),
                DMESH_ERR_ARG, h);
    WORLD_FAILS(
        dmesh_init(MPI_COMM_WORLD, "cpu", DMESH_MAX_DIMS + 1, shape, NULL, MPI_INFO_NULL, &h),
        DMESH_ERR_ARG, h);
    /* A size 0 is chosen by dmesh_init (dims_impossible below), not by
     * dmesh_from_comms, whose communicators have their sizes. */
    WORLD_FAILS(dmesh_from_comms(MPI_COMM_WORLD, "cpu", 1, comms, zero, NULL, NULL, &h),
                DMESH_ERR_ARG, h);
    /* Sizes < 1 whose product is fine. */
    WORLD_FAILS(dmesh_init(MPI_COMM_WORLD, "cpu", 2, neg, NULL, MPI_INFO_NULL, &h), DMESH_ERR_ARG,
                h);
    for (size_t i = 0; i < sizeof(bad_devices) / sizeof(bad_devices[0]); i++)
        WORLD_FAILS(dmesh_init(MPI_COMM_WORLD, bad_devices[i], 1, shape, NULL, MPI_INFO_NULL, &h),
                    DMESH_ERR_ARG, h);
    /* the detail says what the value is instead */
    WORLD_FAILS(dmesh_init(MPI_COMM_WORLD, "nccl", 1, shape, NULL, MPI_INFO_NULL, &h),
                DMESH_ERR_ARG, h);
    MT_CHECK(strstr(dmesh_last_error(), "NCCL is a backend, of device type \"cuda\"") != NULL);
    MT_CHECK(strstr(dmesh_last_error(), "device index") == NULL);
    WORLD_FAILS(dmesh_init(MPI_COMM_WORLD, "cuda:0", 1, shape, NULL, MPI_INFO_NULL, &h),
                DMESH_ERR_ARG, h);
    MT_CHECK(strstr(dmesh_last_error(), "no device index") != NULL);
    WORLD_FAILS(dmesh_create(MPI_COMM_WORLD, "cpu", 1, shape, NULL, NULL, MPI_INFO_NULL, &h),
                DMESH_ERR_ARG, h);
    WORLD_FAILS(dmesh_create(MPI_COMM_WORLD, "cuda:0", 1, shape, ranks, NULL, MPI_INFO_NULL, &h),
                DMESH_ERR_ARG, h);
    WORLD_FAILS(dmesh_create(MPI_COMM_WORLD, "cpu", 0, shape, ranks, NULL, MPI_INFO_NULL, &h),
                DMESH_ERR_ARG, h);
    WORLD_FAILS(dmesh_from_comms(MPI_COMM_WORLD, "cpu", 1, NULL, shape, NULL, NULL, &h),
                DMESH_ERR_ARG, h);
    WORLD_FAILS(dmesh_from_comms(MPI_COMM_WORLD, "cpu", 1, comms, NULL, NULL, NULL, &h),
                DMESH_ERR_ARG, h);
    WORLD_FAILS(dmesh_from_comms(MPI_COMM_WORLD, "gpu", 1, comms, shape, NULL, NULL, &h),
                DMESH_ERR_ARG, h);
    /* ranks may be NULL only with one dim. */
    WORLD_FAILS(dmesh_from_comms(MPI_COMM_WORLD, "cpu", 2, comms, shape, NULL, NULL, &h),
                DMESH_ERR_ARG, h);
    still_works();
}

MT_TEST(arg_derived)
{
    int shape[2] = {1, mt_size}, neg[2] = {-1, -mt_size}, ok_sizes[2] = {1, mt_size};
    const char *name = "d1", *ab[2] = {"a", "b"};
    dmesh_t root = make(2, shape, D3), h, two[2];

    FAILS(dmesh_slice(DMESH_NULL, 1, &name, &h), DMESH_ERR_ARG, h);
    FAILS(dmesh_slice(root, 1, NULL, &h), DMESH_ERR_ARG, h);
    MT_RC(dmesh_slice(root, 1, &name, NULL), DMESH_ERR_ARG);
    WORLD_FAILS(dmesh_flatten(DMESH_NULL, "f", MPI_INFO_NULL, &h), DMESH_ERR_ARG, h);
    MT_RC(dmesh_flatten(root, "f", MPI_INFO_NULL, NULL), DMESH_ERR_ARG);
    WORLD_FAILS(dmesh_unflatten(root, 2, 2, ok_sizes, ab, MPI_INFO_NULL, &h), DMESH_ERR_ARG, h);
    WORLD_FAILS(dmesh_unflatten(root, 1, 0, ok_sizes, ab, MPI_INFO_NULL, &h), DMESH_ERR_ARG, h);
    WORLD_FAILS(dmesh_unflatten(root, 1, 2, NULL, ab, MPI_INFO_NULL, &h), DMESH_ERR_ARG, h);
    WORLD_FAILS(dmesh_unflatten(root, 1, 2, neg, ab, MPI_INFO_NULL, &h), DMESH_ERR_ARG, h);
    WORLD_FAILS(dmesh_unflatten(DMESH_NULL, 0, 2, ok_sizes, ab, MPI_INFO_NULL, &h), DMESH_ERR_ARG,
                h);
    MT_RC(dmesh_unflatten(root, 1, 2, ok_sizes, ab, MPI_INFO_NULL, NULL), DMESH_ERR_ARG);
    two[0] = root;
    two[1] = DMESH_NULL;
    FAILS(dmesh_concatenate(0, two, &h), DMESH_ERR_ARG, h);
    FAILS(dmesh_concatenate(1, NULL, &h), DMESH_ERR_ARG, h);
    FAILS(dmesh_concatenate(2, two, &h), DMESH_ERR_ARG, h);
    MT_RC(dmesh_concatenate(1, two, NULL), DMESH_ERR_ARG);
    free_all(1, &root);
    still_works();
}

MT_TEST(arg_queries)
{
    int shape[2] = {1, mt_size}, v = -42, arr[MT_MAX_RANKS], n = -42, member = -42;
    const char *s = "untouched";
    MPI_Comm c = MPI_COMM_SELF;
    dmesh_cache_info_t info = {-42, -42, -42, -42, -42, -42, -42};
    size_t needed = 42;
    char buf[16];
    dmesh_t root = make(2, shape, D3), cur;

    /* DMESH_NULL handle: ARG, outputs untouched. */
    MT_RC(dmesh_get_ndims(DMESH_NULL, &v), DMESH_ERR_ARG);
    MT_RC(dmesh_get_shape(DMESH_NULL, DMESH_MAX_DIMS, arr), DMESH_ERR_ARG);
    MT_RC(dmesh_get_size(DMESH_NULL, &v), DMESH_ERR_ARG);
    MT_RC(dmesh_get_dim_name(DMESH_NULL, 0, &s), DMESH_ERR_ARG);
    MT_RC(dmesh_get_dim_index(DMESH_NULL, "d0", &v), DMESH_ERR_ARG);
    MT_RC(dmesh_get_device_type(DMESH_NULL, &s), DMESH_ERR_ARG);
    MT_RC(dmesh_get_coordinate(DMESH_NULL, DMESH_MAX_DIMS, arr, &member), DMESH_ERR_ARG);
    MT_RC(dmesh_get_local_rank(DMESH_NULL, 0, &v), DMESH_ERR_ARG);
    MT_RC(dmesh_get_group_ranks(DMESH_NULL, 0, MT_MAX_RANKS, arr, &n), DMESH_ERR_ARG);
    MT_RC(dmesh_get_ranks(DMESH_NULL, MT_MAX_RANKS, arr, &n), DMESH_ERR_ARG);
    MT_RC(dmesh_get_comm(DMESH_NULL, 0, &c), DMESH_ERR_ARG);
    MT_RC(dmesh_get_device(DMESH_NULL, &v), DMESH_ERR_ARG);
    MT_RC(dmesh_equal(DMESH_NULL, root, &v), DMESH_ERR_ARG);
    MT_RC(dmesh_equal(root, DMESH_NULL, &v), DMESH_ERR_ARG);
    MT_RC(dmesh_to_string(DMESH_NULL, buf, sizeof(buf), &needed), DMESH_ERR_ARG);
    MT_RC(dmesh_get_cache_info(DMESH_NULL, &info), DMESH_ERR_ARG);
    MT_RC(dmesh_push(DMESH_NULL), DMESH_ERR_ARG);
    MT_EQ(v, -42);
    MT_EQ(n, -42);
    MT_EQ(member, -42);
    MT_STREQ(s, "untouched");
    MT_CHECK(c == MPI_COMM_NULL); /* an output handle: its null on failure */
    MT_EQ(info.comms_mpi, -42);
    MT_EQ(needed, 42);

    /* NULL outputs. */
    MT_RC(dmesh_get_ndims(root, NULL), DMESH_ERR_ARG);
    MT_RC(dmesh_get_shape(root, DMESH_MAX_DIMS, NULL), DMESH_ERR_ARG);
    MT_RC(dmesh_get_size(root, NULL), DMESH_ERR_ARG);
    MT_RC(dmesh_get_dim_name(root, 0, NULL), DMESH_ERR_ARG);
    MT_RC(dmesh_get_dim_index(root, "d0", NULL), DMESH_ERR_ARG);
    MT_RC(dmesh_get_dim_index(root, NULL, &v), DMESH_ERR_ARG);
    MT_RC(dmesh_get_device_type(root, NULL), DMESH_ERR_ARG);
    MT_RC(dmesh_get_local_rank(root, 0, NULL), DMESH_ERR_ARG);
    MT_RC(dmesh_get_comm(root, 0, NULL), DMESH_ERR_ARG);
    MT_RC(dmesh_get_device(root, NULL), DMESH_ERR_ARG);
    MT_RC(dmesh_equal(root, root, NULL), DMESH_ERR_ARG);
    MT_RC(dmesh_get_cache_info(root, NULL), DMESH_ERR_ARG);
    MT_RC(dmesh_get_current(NULL), DMESH_ERR_ARG);
    MT_RC(dmesh_to_string(root, NULL, 8, &needed), DMESH_ERR_ARG);

    /* Dims out of range; capacities too small. */
    MT_RC(dmesh_get_dim_name(root, 2, &s), DMESH_ERR_ARG);
    MT_RC(dmesh_get_local_rank(root, 2, &v), DMESH_ERR_ARG);
    MT_RC(dmesh_get_group_ranks(root, 2, MT_MAX_RANKS, arr, &n), DMESH_ERR_ARG);
    MT_RC(dmesh_get_comm(root, 2, &c), DMESH_ERR_ARG);
    MT_RC(dmesh_get_shape(root, 1, arr), DMESH_ERR_ARG);
    MT_RC(dmesh_get_coordinate(root, 1, arr, &member), DMESH_ERR_ARG);
    if (mt_size >= 2) {
        MT_RC(dmesh_get_group_ranks(root, 1, mt_size - 1, arr, &n), DMESH_ERR_ARG);
        MT_RC(dmesh_get_ranks(root, mt_size - 1, arr, &n), DMESH_ERR_ARG);
    }
    MT_EQ(v, -42);
    MT_EQ(n, -42);
    MT_EQ(member, -42);
    MT_STREQ(s, "untouched");
    MT_CHECK(c == MPI_COMM_NULL); /* an output handle: its null on failure */
    cur = DMESH_NULL;
    MT_OK(dmesh_get_current(&cur));
    MT_CHECK(cur == DMESH_NULL);
    free_all(1, &root);
}

/* Negative dims. Probed first with dmesh_get_dim_name: when it accepts -1,
 * the calls that would index with it are skipped (they may crash). */
MT_TEST(arg_negative_dim)
{
    int shape[2] = {1, mt_size}, v = -42, arr[MT_MAX_RANKS], n = -42, ok_sizes[2] = {1, mt_size};
    const char *s = "untouched", *ab[2] = {"a", "b"};
    MPI_Comm c = MPI_COMM_SELF;
    dmesh_t root = make(2, shape, D3), h;
    int rc = MT_RC(dmesh_get_dim_name(root, -1, &s), DMESH_ERR_ARG), all_rc;

    MPI_Allreduce(&rc, &all_rc, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (all_rc != DMESH_ERR_ARG || rc != DMESH_ERR_ARG) {
        mt_fail(__FILE__, __LINE__, "dim -1 accepted: skipping the other dim -1 calls");
    } else {
        MT_STREQ(s, "untouched");
        MT_RC(dmesh_get_local_rank(root, -1, &v), DMESH_ERR_ARG);
        MT_RC(dmesh_get_group_ranks(root, -1, MT_MAX_RANKS, arr, &n), DMESH_ERR_ARG);
        MT_RC(dmesh_get_comm(root, -1, &c), DMESH_ERR_ARG);
        MT_CHECK(c == MPI_COMM_NULL); /* an output handle: its null on failure */
        MT_EQ(v, -42);
        MT_EQ(n, -42);
        WORLD_FAILS(dmesh_unflatten(root, -1, 2, ok_sizes, ab, MPI_INFO_NULL, &h), DMESH_ERR_ARG,
                    h);
    }
    free_all(1, &root);
}

/* ---- DMESH_ERR_SIZE ----------------------------------------------------- */

MT_TEST(size_errors)
{
    int big[1] = {mt_size + 1}, ov2[2] = {65536, 65536}, ov3[3] = {2048, 2048, 1024};
    int ov_max[2] = {INT_MAX, 2}, shape[1] = {mt_size}, ranks[MT_MAX_RANKS + 1];
    int mism[2] = {mt_size, 2}, ov_sizes[2] = {65536, 65536};
    const char *ab[2] = {"a", "b"};
    dmesh_t h, root;

    for (int i = 0; i <= mt_size; i++)
        ranks[i] = i % mt_size;
    WORLD_FAILS(dmesh_init(MPI_COMM_WORLD, "cpu", 1, big, NULL, MPI_INFO_NULL, &h), DMESH_ERR_SIZE,
                h);
    /* Products that overflow int (2^32 wraps to 0 in 32 bits). */
    WORLD_FAILS(dmesh_init(MPI_COMM_WORLD, "cpu", 2, ov2, NULL, MPI_INFO_NULL, &h), DMESH_ERR_SIZE,
                h);
    WORLD_FAILS(dmesh_init(MPI_COMM_WORLD, "cpu", 3, ov3, NULL, MPI_INFO_NULL, &h), DMESH_ERR_SIZE,
                h);
    WORLD_FAILS(dmesh_init(MPI_COMM_WORLD, "cpu", 2, ov_max, NULL, MPI_INFO_NULL, &h),
                DMESH_ERR_SIZE, h);
    WORLD_FAILS(dmesh_create(MPI_COMM_WORLD, "cpu", 1, big, ranks, NULL, MPI_INFO_NULL, &h),
                DMESH_ERR_SIZE, h);
    root = make(1, shape, &W);
    WORLD_FAILS(dmesh_unflatten(root, 0, 2, mism, ab, MPI_INFO_NULL, &h), DMESH_ERR_SIZE, h);
    WORLD_FAILS(dmesh_unflatten(root, 0, 2, ov_sizes, ab, MPI_INFO_NULL, &h), DMESH_ERR_SIZE, h);
    WORLD_FAILS(dmesh_unflatten(root, 0, 1, big, ab, MPI_INFO_NULL, &h), DMESH_ERR_SIZE, h);
    free_all(1, &root);
    still_works();
}

/* Shape entries 0 that cannot be filled: DMESH_ERR_SIZE on every rank,
 * the detail naming the shape and the sizes, the caller's shape untouched,
 * for dmesh_init and dmesh_create; negative entries stay DMESH_ERR_ARG. */
static void dims_fails(int ndims, const int shape[], int expected, const char *detail)
{
    int copy[DMESH_MAX_DIMS], ranks[MT_MAX_RANKS];
    dmesh_t h;

    for (int i = 0; i < mt_size; i++)
        ranks[i] = i;
    memcpy(copy, shape, (size_t)ndims * sizeof(int));
    WORLD_FAILS(dmesh_init(MPI_COMM_WORLD, "cpu", ndims, copy, NULL, MPI_INFO_NULL, &h), expected,
                h);
    if (detail != NULL && strstr(dmesh_last_error(), detail) == NULL)
        mt_fail(__FILE__, __LINE__, "detail \"%s\" does not name \"%s\"", dmesh_last_error(),
                detail);
    WORLD_FAILS(dmesh_create(MPI_COMM_WORLD, "cpu", ndims, copy, ranks, NULL, MPI_INFO_NULL, &h),
                expected, h);
    if (detail != NULL && strstr(dmesh_last_error(), detail) == NULL)
        mt_fail(__FILE__, __LINE__, "detail \"%s\" does not name \"%s\"", dmesh_last_error(),
                detail);
    MT_CHECK(memcmp(copy, shape, (size_t)ndims * sizeof(int)) == 0);
}

MT_TEST(dims_impossible)
{
    int s30[2] = {3, 0}, big[3] = {0, mt_size + 1, 0}, neg[2] = {0, -2}, neg1[1] = {-1};
    int ov[3] = {65536, 0, 65536};
    char want[160];

    if (mt_size % 3 != 0) {
        snprintf(want, sizeof(want),
                 "shape (3, 0) cannot fill a communicator of %d ranks: %d is not a multiple of 3",
                 mt_size, mt_size);
        dims_fails(2, s30, DMESH_ERR_SIZE, want);
    }
    snprintf(want, sizeof(want),
             "shape (0, %d, 0) cannot fill a communicator of %d ranks: %d is not a multiple of %d",
             mt_size + 1, mt_size, mt_size, mt_size + 1);
    dims_fails(3, big, DMESH_ERR_SIZE, want);
    dims_fails(3, ov, DMESH_ERR_SIZE, "exceeds INT_MAX");
    dims_fails(2, neg, DMESH_ERR_ARG, "shape[1] = -2");
    dims_fails(1, neg1, DMESH_ERR_ARG, "shape[0] = -1");
    still_works();
}

/* Ranks that pass 0 where others pass the size it stands for: the mesh
 * would be the same, but the calls differ (as with MPI_Dims_create's
 * input), so the agreement check fails everywhere. */
/* dmesh_start with a NULL output on one rank: refused on every rank, none
 * left waiting in the creation (a rank that returned at once left the
 * others in dmesh_init's collectives). */
MT_TEST(start_null_output)
{
    MPI_Comm nc = MPI_COMM_NULL;
    dmesh_t h;

    if (mt_size < 2)
        return;
    WORLD_FAILS(dmesh_start(MPI_COMM_WORLD, "cpu", 1, &mt_size, NULL, MPI_INFO_NULL,
                            mt_rank == 1 ? NULL : &nc, &h),
                DMESH_ERR_ARG, h);
    ck_assert(nc == MPI_COMM_NULL);
}

MT_TEST(dims_agreement)
{
    int zero[1] = {0}, all[1] = {mt_size}, z2[2] = {0, 1}, g2[2] = {mt_size, 1};
    int zz[2] = {0, 0}, filled[2] = {0, 0}, ranks[MT_MAX_RANKS];
    dmesh_t h;

    if (mt_size < 2)
        return;
    for (int i = 0; i < mt_size; i++)
        ranks[i] = i;
    MPI_Dims_create(mt_size, 2, filled);
    WORLD_FAILS(
        dmesh_init(MPI_COMM_WORLD, "cpu", 1, mt_rank == 0 ? zero : all, NULL, MPI_INFO_NULL, &h),
        DMESH_ERR_MISMATCH, h);
    WORLD_FAILS(
        dmesh_init(MPI_COMM_WORLD, "cpu", 2, mt_rank == 1 ? g2 : z2, NULL, MPI_INFO_NULL, &h),
        DMESH_ERR_MISMATCH, h);
    WORLD_FAILS(
        dmesh_init(MPI_COMM_WORLD, "cpu", 2, mt_rank == 0 ? zz : filled, NULL, MPI_INFO_NULL, &h),
        DMESH_ERR_MISMATCH, h);
    WORLD_FAILS(dmesh_create(MPI_COMM_WORLD, "cpu", 1, mt_rank == 0 ? zero : all, ranks, NULL,
                             MPI_INFO_NULL, &h),
                DMESH_ERR_MISMATCH, h);
    /* One rank's request impossible: its class, everywhere. */
    {
        int bad[2] = {mt_size + 1, 0};
        WORLD_FAILS(
            dmesh_init(MPI_COMM_WORLD, "cpu", 2, mt_rank == 0 ? bad : z2, NULL, MPI_INFO_NULL, &h),
            DMESH_ERR_SIZE, h);
    }
    /* The same zeros everywhere agree. */
    MT_OK(dmesh_init(MPI_COMM_WORLD, "cpu", 2, zz, NULL, MPI_INFO_NULL, &h));
    MT_OK(dmesh_free(&h));
    still_works();
}

/* ---- DMESH_ERR_NAME ----------------------------------------------------- */

MT_TEST(name_errors_creation)
{
    int shape[2] = {1, mt_size}, ranks[MT_MAX_RANKS];
    char long_name[DMESH_MAX_NAME + 1];
    const char *dup[2] = {"a", "a"}, *empty[2] = {"a", ""}, *toolong[2] = {"a", long_name};
    const char *with_null[2] = {"a", NULL};
    MPI_Comm comms[2];
    dmesh_t h;
    int rc;

    memset(long_name, 'x', DMESH_MAX_NAME);
    long_name[DMESH_MAX_NAME] = '\0'; /* DMESH_MAX_NAME bytes without the NUL */
    for (int i = 0; i < mt_size; i++)
        ranks[i] = i;
    WORLD_FAILS(dmesh_init(MPI_COMM_WORLD, "cpu", 2, shape, dup, MPI_INFO_NULL, &h), DMESH_ERR_NAME,
                h);
    WORLD_FAILS(dmesh_init(MPI_COMM_WORLD, "cpu", 2, shape, empty, MPI_INFO_NULL, &h),
                DMESH_ERR_NAME, h);
    WORLD_FAILS(dmesh_init(MPI_COMM_WORLD, "cpu", 2, shape, toolong, MPI_INFO_NULL, &h),
                DMESH_ERR_NAME, h);
    WORLD_FAILS(dmesh_create(MPI_COMM_WORLD, "cpu", 2, shape, ranks, dup, MPI_INFO_NULL, &h),
                DMESH_ERR_NAME, h);
    /* Fewer names than dims (a NULL entry): NAME, or ARG for the NULL. */
    h = DMESH_NULL;
    rc = dmesh_init(MPI_COMM_WORLD, "cpu", 2, shape, with_null, MPI_INFO_NULL, &h);
    if (rc != DMESH_ERR_NAME && rc != DMESH_ERR_ARG)
        MT_RC(rc, DMESH_ERR_NAME);
    MT_CHECK(h == DMESH_NULL);
    MT_CHECK(dmesh_last_error()[0] != '\0');
    MT_SAME(MPI_COMM_WORLD, rc);
    if (h != DMESH_NULL)
        dmesh_free(&h);
    /* from_comms with duplicate names. */
    MPI_Comm_split(MPI_COMM_WORLD, mt_rank, 0, &comms[0]);
    MPI_Comm_dup(MPI_COMM_WORLD, &comms[1]);
    WORLD_FAILS(dmesh_from_comms(MPI_COMM_WORLD, "cpu", 2, comms, shape, ranks, dup, &h),
                DMESH_ERR_NAME, h);
    MPI_Comm_free(&comms[0]);
    MPI_Comm_free(&comms[1]);
    still_works();
}

MT_TEST(name_errors_derived)
{
    int shape[2] = {1, mt_size}, s2[2] = {2, mt_size / 2}, sizes[2] = {mt_size, 1};
    const char *unknown = "zz", *ac[2] = {"a", "c"}, *d0c[2] = {"d0", "c"}, *d1 = "d1";
    const char *empty[2] = {"c", ""};
    dmesh_t root, unnamed, h, keep[4];
    int v = -42;

    root = make(2, shape, D3);
    unnamed = make(2, shape, NULL);
    FAILS(dmesh_slice(root, 1, &unknown, &h), DMESH_ERR_NAME, h);
    /* the detail names the unknown name and the mesh's names */
    MT_EQ(strstr(dmesh_last_error(), "\"zz\" in mesh (d0, d1)") != NULL, 1);
    FAILS(dmesh_slice(unnamed, 1, &d1, &h), DMESH_ERR_NAME, h);
    MT_RC(dmesh_get_dim_index(root, "zz", &v), DMESH_ERR_NAME);
    MT_RC(dmesh_get_dim_index(unnamed, "d0", &v), DMESH_ERR_NAME);
    MT_EQ(v, -42);
    /* Flatten: a root dim name; an unnamed mesh without a name. */
    WORLD_FAILS(dmesh_flatten(root, "d0", MPI_INFO_NULL, &h), DMESH_ERR_NAME, h);
    keep[0] = slice1(root, "d1");
    WORLD_FAILS(dmesh_flatten(keep[0], "d0", MPI_INFO_NULL, &h), DMESH_ERR_NAME, h);
    WORLD_FAILS(dmesh_flatten(unnamed, NULL, MPI_INFO_NULL, &h), DMESH_ERR_NAME, h);
    /* Unflatten: names missing on a named mesh; a new name equal to a
     * remaining dim; an empty name. */
    WORLD_FAILS(dmesh_unflatten(root, 1, 2, sizes, NULL, MPI_INFO_NULL, &h), DMESH_ERR_NAME, h);
    WORLD_FAILS(dmesh_unflatten(root, 1, 2, sizes, d0c, MPI_INFO_NULL, &h), DMESH_ERR_NAME, h);
    WORLD_FAILS(dmesh_unflatten(root, 1, 2, sizes, empty, MPI_INFO_NULL, &h), DMESH_ERR_NAME, h);
    h = DMESH_NULL;
    MT_OK(dmesh_unflatten(root, 1, 2, sizes, ac, MPI_INFO_NULL, &h));
    MT_OK(dmesh_free(&h));
    free_all(1, &keep[0]);

    /* Flatten names: empty, too long, a joined default name that is too long. */
    {
        char l1[40], l2[40], big[DMESH_MAX_NAME + 1];
        const char *longn[2] = {l1, l2};
        memset(l1, 'p', sizeof(l1) - 1);
        memset(l2, 'q', sizeof(l2) - 1);
        l1[sizeof(l1) - 1] = l2[sizeof(l2) - 1] = '\0';
        memset(big, 'b', DMESH_MAX_NAME);
        big[DMESH_MAX_NAME] = '\0';
        WORLD_FAILS(dmesh_flatten(root, "", MPI_INFO_NULL, &h), DMESH_ERR_NAME, h);
        WORLD_FAILS(dmesh_flatten(root, big, MPI_INFO_NULL, &h), DMESH_ERR_NAME, h);
        keep[0] = make(2, shape, longn);
        WORLD_FAILS(dmesh_flatten(keep[0], NULL, MPI_INFO_NULL, &h), DMESH_ERR_NAME, h);
        free_all(1, &keep[0]);
    }

    /* Flatten names are valid in slices of the root only. */
    {
        const char *fl = "fl";
        keep[0] = DMESH_NULL;
        MT_OK(dmesh_flatten(root, "fl", MPI_INFO_NULL, &keep[0]));
        keep[1] = DMESH_NULL;
        MT_OK(dmesh_slice(root, 2, D3, &keep[1]));
        FAILS(dmesh_slice(keep[1], 1, &fl, &h), DMESH_ERR_NAME, h);
        keep[2] = slice1(root, "fl");
        free_all(3, keep);
    }

    /* A flatten name registered for another layout. */
    if (mt_size >= 2) {
        dmesh_t r2 = make(2, s2, D3), f = DMESH_NULL;
        keep[0] = slice1(r2, "d0");
        keep[1] = slice1(r2, "d1");
        MT_OK(dmesh_flatten(keep[0], "f", MPI_INFO_NULL, &f));
        WORLD_FAILS(dmesh_flatten(keep[1], "f", MPI_INFO_NULL, &h), DMESH_ERR_NAME, h);
        if (s2[1] >= 2) /* else the whole mesh has the layout of d0 */
            WORLD_FAILS(dmesh_flatten(r2, "f", MPI_INFO_NULL, &h), DMESH_ERR_NAME, h);
        /* The same layout under the registered name is fine. */
        h = DMESH_NULL;
        MT_OK(dmesh_flatten(keep[0], "f", MPI_INFO_NULL, &h));
        keep[2] = f;
        keep[3] = h;
        free_all(4, keep);
        free_all(1, &r2);
    }
    dmesh_t all[2] = {unnamed, root};
    free_all(2, all);
    still_works();
}

/* ---- DMESH_ERR_LAYOUT --------------------------------------------------- */

MT_TEST(layout_errors)
{
    int shape[1] = {mt_size}, s22[2] = {2, 2}, ranks[3];
    const char *rev[2] = {"d1", "d0"}, *over[2] = {"all", "d1"};
    dmesh_t a, b, h, keep[4], pair[2];
    MPI_Comm c;

    /* Different universes. */
    a = make(1, shape, &W);
    const char *v = "v";
    b = make(1, shape, &v);
    pair[0] = a;
    pair[1] = b;
    FAILS(dmesh_concatenate(2, pair, &h), DMESH_ERR_LAYOUT, h);
    if (mt_size >= 2) {
        /* Overlapping: the same axis under two names. */
        keep[0] = DMESH_NULL;
        MT_OK(dmesh_flatten(a, "f", MPI_INFO_NULL, &keep[0]));
        pair[1] = keep[0];
        FAILS(dmesh_concatenate(2, pair, &h), DMESH_ERR_LAYOUT, h);
        free_all(1, &keep[0]);
    }
    free_all(1, &b);
    if (mt_size >= 4) {
        dmesh_t r = make(2, s22, D3);
        FAILS(dmesh_slice(r, 2, rev, &h), DMESH_ERR_LAYOUT, h);
        keep[0] = DMESH_NULL;
        MT_OK(dmesh_flatten(r, "all", MPI_INFO_NULL, &keep[0]));
        FAILS(dmesh_slice(r, 2, over, &h), DMESH_ERR_LAYOUT, h);
        keep[1] = slice1(r, "d0");
        keep[2] = slice1(r, "d1");
        pair[0] = keep[1];
        pair[1] = keep[0];
        FAILS(dmesh_concatenate(2, pair, &h), DMESH_ERR_LAYOUT, h);
        pair[0] = keep[2];
        FAILS(dmesh_concatenate(2, pair, &h), DMESH_ERR_LAYOUT, h);
        keep[3] = r;
        free_all(4, keep);
    }
    /* create: ranks out of range, duplicates. */
    ranks[0] = mt_size;
    WORLD_FAILS(dmesh_create(MPI_COMM_WORLD, "cpu", 1, (int[]){1}, ranks, NULL, MPI_INFO_NULL, &h),
                DMESH_ERR_LAYOUT, h);
    ranks[0] = -1;
    WORLD_FAILS(dmesh_create(MPI_COMM_WORLD, "cpu", 1, (int[]){1}, ranks, NULL, MPI_INFO_NULL, &h),
                DMESH_ERR_LAYOUT, h);
    if (mt_size >= 2) {
        ranks[0] = ranks[1] = mt_size - 1;
        WORLD_FAILS(
            dmesh_create(MPI_COMM_WORLD, "cpu", 1, (int[]){2}, ranks, NULL, MPI_INFO_NULL, &h),
            DMESH_ERR_LAYOUT, h);
        ranks[0] = 0;
        ranks[1] = mt_size;
        WORLD_FAILS(
            dmesh_create(MPI_COMM_WORLD, "cpu", 1, (int[]){2}, ranks, NULL, MPI_INFO_NULL, &h),
            DMESH_ERR_LAYOUT, h);
    }
    free_all(1, &a);

    /* from_comms with communicators that do not match the mesh. */
    if (mt_size >= 2) {
        int id[MT_MAX_RANKS];
        for (int i = 0; i < mt_size; i++)
            id[i] = i;
        MPI_Comm_split(MPI_COMM_WORLD, 0, -mt_rank, &c); /* reversed order */
        WORLD_FAILS(dmesh_from_comms(MPI_COMM_WORLD, "cpu", 1, &c, shape, id, &W, &h),
                    DMESH_ERR_LAYOUT, h);
        MPI_Comm_free(&c);
        MPI_Comm_dup(MPI_COMM_SELF, &c); /* too few members */
        WORLD_FAILS(dmesh_from_comms(MPI_COMM_WORLD, "cpu", 1, &c, shape, id, &W, &h),
                    DMESH_ERR_LAYOUT, h);
        MPI_Comm_free(&c);
    }
    if (mt_size >= 4 && mt_size % 2 == 0) {
        /* The two dim communicators of (2, P/2) passed in swapped order. */
        int s2[2] = {2, mt_size / 2}, id[MT_MAX_RANKS];
        MPI_Comm comms[2], swapped[2];
        for (int i = 0; i < mt_size; i++)
            id[i] = i;
        MPI_Comm_split(MPI_COMM_WORLD, mt_rank % s2[1], mt_rank / s2[1], &comms[0]);
        MPI_Comm_split(MPI_COMM_WORLD, mt_rank / s2[1], mt_rank % s2[1], &comms[1]);
        swapped[0] = comms[1];
        swapped[1] = comms[0];
        h = DMESH_NULL;
        MT_OK(dmesh_from_comms(MPI_COMM_WORLD, "cpu", 2, comms, s2, id, D3, &h));
        MT_OK(dmesh_free(&h));
        WORLD_FAILS(dmesh_from_comms(MPI_COMM_WORLD, "cpu", 2, swapped, s2, id, D3, &h),
                    DMESH_ERR_LAYOUT, h);
        MPI_Comm_free(&comms[0]);
        MPI_Comm_free(&comms[1]);
    }
    still_works();
}

/* ---- DMESH_ERR_MISMATCH ------------------------------------------------- */

MT_TEST(agreement_check)
{
    int one[1] = {1}, two[1] = {2}, shape[1] = {mt_size}, row[2] = {1, mt_size};
    int id[MT_MAX_RANKS], rev[MT_MAX_RANKS], s_a[2] = {1, mt_size}, s_b[2] = {mt_size, 1};
    const char *x = "x", *y = "y", *ab[2] = {"a", "b"}, *ac[2] = {"a", "c"};
    dmesh_t h, root;

    if (mt_size < 2)
        return;
    for (int i = 0; i < mt_size; i++) {
        id[i] = i;
        rev[i] = mt_size - 1 - i;
    }
    /* Different shapes, ndims, names, rank lists. */
    WORLD_FAILS(
        dmesh_init(MPI_COMM_WORLD, "cpu", 1, mt_rank == 0 ? one : two, NULL, MPI_INFO_NULL, &h),
        DMESH_ERR_MISMATCH, h);
    WORLD_FAILS(dmesh_init(MPI_COMM_WORLD, "cpu", mt_rank == 0 ? 1 : 2, mt_rank == 0 ? shape : row,
                           NULL, MPI_INFO_NULL, &h),
                DMESH_ERR_MISMATCH, h);
    WORLD_FAILS(
        dmesh_init(MPI_COMM_WORLD, "cpu", 1, shape, mt_rank % 2 ? &x : &y, MPI_INFO_NULL, &h),
        DMESH_ERR_MISMATCH, h);
    WORLD_FAILS(
        dmesh_init(MPI_COMM_WORLD, "cpu", 1, shape, mt_rank == 0 ? NULL : &x, MPI_INFO_NULL, &h),
        DMESH_ERR_MISMATCH, h);
    WORLD_FAILS(dmesh_create(MPI_COMM_WORLD, "cpu", 1, shape, mt_rank == 0 ? id : rev, NULL,
                             MPI_INFO_NULL, &h),
                DMESH_ERR_MISMATCH, h);
    still_works();

    /* Derived collective calls. */
    root = make(1, shape, &W);
    WORLD_FAILS(dmesh_unflatten(root, 0, 2, mt_rank == 0 ? s_a : s_b, ab, MPI_INFO_NULL, &h),
                DMESH_ERR_MISMATCH, h);
    WORLD_FAILS(dmesh_unflatten(root, 0, 2, s_a, mt_rank == 0 ? ab : ac, MPI_INFO_NULL, &h),
                DMESH_ERR_MISMATCH, h);
    {
        dmesh_t r2 = make(2, s_a, D3);
        WORLD_FAILS(dmesh_flatten(r2, mt_rank == 0 ? "f0" : "f1", MPI_INFO_NULL, &h),
                    DMESH_ERR_MISMATCH, h);
        free_all(1, &r2);
    }
    {
        /* Different options of the new axes: split on one rank, group creation (the
         * default) on the others. */
        MPI_Info split = mt_info1("dmesh_comm_create", "split");
        WORLD_FAILS(dmesh_unflatten(root, 0, 2, s_a, ab, mt_rank == 0 ? split : MPI_INFO_NULL, &h),
                    DMESH_ERR_MISMATCH, h);
        MPI_Info_free(&split);
    }
    free_all(1, &root);
    still_works();
}

/* The detail of a mismatch names the lowest rank whose arguments differ
 * from rank 0's, the argument and both values, on every rank. */
#define SAYS(text)                                                                                 \
    do {                                                                                           \
        if (strcmp(dmesh_last_error(), (text)) != 0)                                               \
            mt_fail(__FILE__, __LINE__, "detail \"%s\", expected \"%s\"", dmesh_last_error(),      \
                    (text));                                                                       \
    } while (0)

/* One row of the mismatch table: a collective call in which the ranks of
 * "odd" (those from `from` on) pass another value of one argument than
 * rank 0; want: the detail every rank must get (the lowest of them, the
 * argument, both values). root: a mesh (1, size) named a, b. */
typedef struct {
    const char *call;
    int (*run)(int odd, dmesh_t root, dmesh_t *h, MPI_Comm *c, char *want, size_t len);
} mismatch_row_t;

static int from; /* the lowest rank whose value differs */

static int mm_shape(int odd, dmesh_t root, dmesh_t *h, MPI_Comm *c, char *want, size_t len)
{
    (void)root, (void)c;
    snprintf(want, len, "dmesh_init: rank %d passed shape (%d, 1), rank 0 (1, %d)", from, mt_size,
             mt_size);
    return dmesh_init(MPI_COMM_WORLD, "cpu", 2, odd ? (int[]){mt_size, 1} : (int[]){1, mt_size},
                      (const char *[]){"a", "b"}, MPI_INFO_NULL, h);
}

static int mm_names(int odd, dmesh_t root, dmesh_t *h, MPI_Comm *c, char *want, size_t len)
{
    (void)root, (void)c;
    snprintf(want, len, "dmesh_init: rank %d passed names (a, c), rank 0 (a, b)", from);
    return dmesh_init(MPI_COMM_WORLD, "cpu", 2, (int[]){1, mt_size},
                      odd ? (const char *[]){"a", "c"} : (const char *[]){"a", "b"}, MPI_INFO_NULL,
                      h);
}

static int mm_unnamed(int odd, dmesh_t root, dmesh_t *h, MPI_Comm *c, char *want, size_t len)
{
    (void)root, (void)c;
    snprintf(want, len, "dmesh_init: rank %d passed names unnamed, rank 0 (a, b)", from);
    return dmesh_init(MPI_COMM_WORLD, "cpu", 2, (int[]){1, mt_size},
                      odd ? NULL : (const char *[]){"a", "b"}, MPI_INFO_NULL, h);
}

static int mm_options(int odd, dmesh_t root, dmesh_t *h, MPI_Comm *c, char *want, size_t len)
{
    MPI_Info split = mt_info1("dmesh_comm_create", "split");
    int rc;

    (void)root, (void)c;
    snprintf(want, len,
             "dmesh_init: rank %d passed dmesh_comm_create split, rank 0 group (set by the info "
             "key or by DMESH_COMM_CREATE: where the variable is set, pass it to every host, as "
             "Open MPI's mpiexec -x DMESH_COMM_CREATE does)",
             from);
    rc = dmesh_init(MPI_COMM_WORLD, "cpu", 1, (int[]){mt_size}, NULL, odd ? split : MPI_INFO_NULL,
                    h);
    MPI_Info_free(&split);
    return rc;
}

static int mm_ranks(int odd, dmesh_t root, dmesh_t *h, MPI_Comm *c, char *want, size_t len)
{
    int ranks[MT_MAX_RANKS];

    (void)root, (void)c;
    for (int i = 0; i < mt_size; i++)
        ranks[i] = i;
    if (odd) { /* the last two swapped: the first difference at size - 2 */
        ranks[mt_size - 2] = mt_size - 1;
        ranks[mt_size - 1] = mt_size - 2;
    }
    snprintf(want, len, "dmesh_create: rank %d passed ranks[%d] = %d, rank 0 ranks[%d] = %d", from,
             mt_size - 2, mt_size - 1, mt_size - 2, mt_size - 2);
    return dmesh_create(MPI_COMM_WORLD, "cpu", 1, (int[]){mt_size}, ranks, NULL, MPI_INFO_NULL, h);
}

static int mm_from_comms(int odd, dmesh_t root, dmesh_t *h, MPI_Comm *c, char *want, size_t len)
{
    MPI_Comm dup;
    int rc;

    (void)root, (void)c;
    MPI_Comm_dup(MPI_COMM_WORLD, &dup);
    snprintf(want, len, "dmesh_from_comms: rank %d passed names (y), rank 0 (x)", from);
    rc = dmesh_from_comms(MPI_COMM_WORLD, "cpu", 1, &dup, (int[]){mt_size}, NULL,
                          odd ? (const char *[]){"y"} : (const char *[]){"x"}, h);
    MPI_Comm_free(&dup);
    return rc;
}

static int mm_flatten(int odd, dmesh_t root, dmesh_t *h, MPI_Comm *c, char *want, size_t len)
{
    (void)c;
    snprintf(want, len, "dmesh_flatten: rank %d passed name \"f1\", rank 0 \"f0\"", from);
    return dmesh_flatten(root, odd ? "f1" : "f0", MPI_INFO_NULL, h);
}

static int mm_unflatten_sizes(int odd, dmesh_t root, dmesh_t *h, MPI_Comm *c, char *want,
                              size_t len)
{
    (void)c;
    snprintf(want, len, "dmesh_unflatten: rank %d passed sizes (%d, 1), rank 0 (1, %d)", from,
             mt_size, mt_size);
    return dmesh_unflatten(root, 1, 2, odd ? (int[]){mt_size, 1} : (int[]){1, mt_size},
                           (const char *[]){"x", "y"}, MPI_INFO_NULL, h);
}

static int mm_unflatten_names(int odd, dmesh_t root, dmesh_t *h, MPI_Comm *c, char *want,
                              size_t len)
{
    (void)c;
    snprintf(want, len, "dmesh_unflatten: rank %d passed names (a, x, z), rank 0 (a, x, y)", from);
    return dmesh_unflatten(root, 1, 2, (int[]){1, mt_size},
                           odd ? (const char *[]){"x", "z"} : (const char *[]){"x", "y"},
                           MPI_INFO_NULL, h);
}

static int mm_periods(int odd, dmesh_t root, dmesh_t *h, MPI_Comm *c, char *want, size_t len)
{
    (void)h;
    snprintf(want, len, "dmesh_get_cart_comm: rank %d passed periods (0, 1), rank 0 (0, 0)", from);
    return dmesh_get_cart_comm(root, (int[]){0, odd}, 0, c);
}

static int mm_reorder(int odd, dmesh_t root, dmesh_t *h, MPI_Comm *c, char *want, size_t len)
{
    (void)h;
    snprintf(want, len, "dmesh_get_cart_comm: rank %d passed reorder 1, rank 0 0", from);
    return dmesh_get_cart_comm(root, (int[]){1, 1}, odd, c);
}

static int mm_remain_dims(int odd, dmesh_t root, dmesh_t *h, MPI_Comm *c, char *want, size_t len)
{
    (void)h;
    snprintf(want, len, "dmesh_get_sub_comm: rank %d passed remain_dims (1, 0), rank 0 (0, 1)",
             from);
    return dmesh_get_sub_comm(root, odd ? (int[]){1, 0} : (int[]){0, 1}, c);
}

static int mm_text(int odd, dmesh_t root, dmesh_t *h, MPI_Comm *c, char *want, size_t len)
{
    char text[1024], *at, zero[64];
    int rc;

    (void)c;
    MT_OK(dmesh_serialize(root, text, sizeof(text), NULL));
    while (odd && (at = strstr(text, "\"a\"")) != NULL) /* the name a, first on line 4 */
        at[1] = 'q';
    rc = dmesh_deserialize(MPI_COMM_WORLD, text, MPI_INFO_NULL, h);
    /* both lines, each as far as the detail shortens it */
    snprintf(want, len, "dmesh_deserialize: rank %d passed text line 4 \"root \"q\" ", from);
    snprintf(zero, sizeof(zero), ", rank 0 text line 4 \"root \"a\" ");
    if (strncmp(dmesh_last_error(), want, strlen(want)) == 0 &&
        strstr(dmesh_last_error(), zero) != NULL)
        snprintf(want, len, "%s", dmesh_last_error());
    return rc;
}

/* Two different calls: both names. */
static int mm_calls(int odd, dmesh_t root, dmesh_t *h, MPI_Comm *c, char *want, size_t len)
{
    snprintf(want, len, "%s: rank %d called dmesh_get_sub_comm, rank 0 dmesh_flatten",
             odd ? "dmesh_get_sub_comm" : "dmesh_flatten", from);
    if (odd)
        return dmesh_get_sub_comm(root, (int[]){1, 1}, c);
    return dmesh_flatten(root, "f", MPI_INFO_NULL, h);
}

static const mismatch_row_t mismatch_table[] = {
    {"dmesh_init shape", mm_shape},
    {"dmesh_init names", mm_names},
    {"dmesh_init names NULL", mm_unnamed},
    {"dmesh_init options", mm_options},
    {"dmesh_create ranks", mm_ranks},
    {"dmesh_from_comms names", mm_from_comms},
    {"dmesh_flatten name", mm_flatten},
    {"dmesh_unflatten sizes", mm_unflatten_sizes},
    {"dmesh_unflatten names", mm_unflatten_names},
    {"dmesh_get_cart_comm periods", mm_periods},
    {"dmesh_get_cart_comm reorder", mm_reorder},
    {"dmesh_get_sub_comm remain_dims", mm_remain_dims},
    {"dmesh_deserialize text", mm_text},
    {"dmesh_flatten against dmesh_get_sub_comm", mm_calls},
};

/* Every row: DMESH_ERR_MISMATCH on every rank, no output, the detail. At 1
 * rank no rank can differ: the rows run with rank 0's values and succeed. */
MT_TEST(agreement_detail)
{
    dmesh_t root = make(2, (int[]){1, mt_size}, (const char *[]){"a", "b"});
    char want[256];

    for (int half = 0; half < 2; half++) {
        /* the last rank alone, then the upper half: the lowest is named */
        from = half ? (mt_size + 1) / 2 : mt_size - 1;
        for (size_t i = 0; i < sizeof(mismatch_table) / sizeof(mismatch_table[0]); i++) {
            int odd = mt_size > 1 && mt_rank >= from, rc;
            dmesh_t h = not_null;
            MPI_Comm c = MPI_COMM_SELF;

            rc = mismatch_table[i].run(odd, root, &h, &c, want, sizeof(want));
            if (mt_size == 1) {
                MT_EQ(rc, DMESH_SUCCESS);
                if (h != not_null)
                    dmesh_free(&h);
                continue;
            }
            MT_SAME(MPI_COMM_WORLD, rc);
            if (rc != DMESH_ERR_MISMATCH || (h != not_null && h != DMESH_NULL) ||
                (c != MPI_COMM_SELF && c != MPI_COMM_NULL))
                mt_fail(__FILE__, __LINE__, "%s: returned %d, an output written",
                        mismatch_table[i].call, rc);
            if (strcmp(dmesh_last_error(), want) != 0)
                mt_fail(__FILE__, __LINE__, "%s: detail \"%s\", expected \"%s\"",
                        mismatch_table[i].call, dmesh_last_error(), want);
        }
    }
    free_all(1, &root);
    still_works();
}

/* A mesh of another universe on one rank (two roots on the same
 * communicator): the universe's identity is part of what the ranks agree
 * on, so the call fails everywhere instead of making the caches diverge. */
MT_TEST(agreement_universe_identity)
{
    int shape[2] = {1, mt_size};
    dmesh_t a, b, h;

    if (mt_size < 2)
        return;
    a = make(2, shape, D3);
    b = make(2, shape, D3);
    WORLD_FAILS(dmesh_flatten(mt_rank == 0 ? a : b, "f", MPI_INFO_NULL, &h), DMESH_ERR_MISMATCH, h);
    WORLD_FAILS(
        dmesh_unflatten(mt_rank == 0 ? a : b, 1, 2, (int[]){1, mt_size}, D3 + 1, MPI_INFO_NULL, &h),
        DMESH_ERR_MISMATCH, h);
    /* both universes still work, with the same caches on every rank */
    MT_OK(dmesh_flatten(a, "f", MPI_INFO_NULL, &h));
    MT_OK(dmesh_free(&h));
    MT_OK(dmesh_flatten(b, "f", MPI_INFO_NULL, &h));
    MT_OK(dmesh_free(&h));
    dmesh_t all[2] = {a, b};
    free_all(2, all);
    still_works();
}

/* A rank whose arguments are rejected makes every rank fail with its class,
 * and every rank's detail names it. */
MT_TEST(agreement_names_failing_rank)
{
    int shape[1] = {mt_size}, bad = mt_size - 1;
    char expect[64];
    dmesh_t h;
    MPI_Info info = mt_info1("dmesh_backend", mt_rank == bad ? "bogus" : "mpi");

    WORLD_FAILS(dmesh_init(MPI_COMM_WORLD, "cpu", 1, shape, NULL, info, &h), DMESH_ERR_ARG, h);
    snprintf(expect, sizeof(expect), "rank %d: ", bad);
    if (strncmp(dmesh_last_error(), expect, strlen(expect)) != 0)
        mt_fail(__FILE__, __LINE__, "detail \"%s\" does not start with \"%s\"", dmesh_last_error(),
                expect);
    MPI_Info_free(&info);
    still_works();
}

MT_TEST(agreement_check_off)
{
    int shape[2] = {1, mt_size};
    MPI_Info off = mt_info1("dmesh_check", "false");
    mt_model_t m;
    mt_axis_t ax[2];
    dmesh_t h = DMESH_NULL, f = DMESH_NULL, u = DMESH_NULL;

    /* Consistent calls work with the check off. */
    mt_model_init(&m, 2, shape, NULL);
    ax[0] = mt_axis_dim(&m, 0);
    ax[1] = mt_axis_dim(&m, 1);
    MT_OK(dmesh_init(MPI_COMM_WORLD, "cpu", 2, shape, D3, off, &h));
    mt_check_mesh(h, MPI_COMM_WORLD, &m, 2, ax, D3);
    MT_OK(dmesh_flatten(h, "f", off, &f));
    MT_OK(dmesh_unflatten(f, 0, 2, shape, D3, off, &u));
    mt_check_mesh(u, MPI_COMM_WORLD, &m, 2, ax, D3);
    dmesh_t all[3] = {u, f, h};
    free_all(3, all);
    MPI_Info_free(&off);
}

/* ---- DMESH_ERR_NOT_MEMBER ----------------------------------------------- */

MT_TEST(not_member_errors)
{
    int shape[1] = {mt_size - 1}, s22[2] = {2, 2}, v = -42, arr[MT_MAX_RANKS], n = -42;
    dmesh_t m[3];

    if (mt_size < 2)
        return;
    m[0] = make(1, shape, &W);
    m[1] = slice1(m[0], "w");
    m[2] = DMESH_NULL;
    if (mt_rank == mt_size - 1) {
        for (int i = 0; i < 2; i++) {
            MT_RC(dmesh_get_local_rank(m[i], 0, &v), DMESH_ERR_NOT_MEMBER);
            MT_RC(dmesh_get_group_ranks(m[i], 0, MT_MAX_RANKS, arr, &n), DMESH_ERR_NOT_MEMBER);
        }
        MT_EQ(v, -42);
        MT_EQ(n, -42);
    }
    if (mt_size >= 5) {
        dmesh_t r = make(2, s22, D3);
        m[2] = slice1(r, "d1"); /* two copies: [0,1] and [2,3] */
        if (mt_rank >= 4) {
            MT_RC(dmesh_get_ranks(m[2], MT_MAX_RANKS, arr, &n), DMESH_ERR_NOT_MEMBER);
            MT_RC(dmesh_get_local_rank(r, 1, &v), DMESH_ERR_NOT_MEMBER);
        }
        MT_EQ(n, -42);
        free_all(1, &r);
    }
    free_all(3, m);
}

/* ---- DMESH_ERR_NO_DEVICE / DMESH_ERR_BACKEND ---------------------------- */

static int have_gpu_device_files(void)
{
    return access("/dev/nvidia0", F_OK) == 0 || access("/dev/nvidiactl", F_OK) == 0;
}

MT_TEST(cuda_without_device)
{
    int shape[1] = {mt_size}, ranks[MT_MAX_RANKS], rc, rc2;
    dmesh_t h = DMESH_NULL, h2 = DMESH_NULL;

    for (int i = 0; i < mt_size; i++)
        ranks[i] = i;
    rc = dmesh_init(MPI_COMM_WORLD, "cuda", 1, shape, NULL, MPI_INFO_NULL, &h);
    rc2 = dmesh_create(MPI_COMM_WORLD, "cuda", 1, shape, ranks, NULL, MPI_INFO_NULL, &h2);
    MT_SAME(MPI_COMM_WORLD, rc);
    MT_SAME(MPI_COMM_WORLD, rc2);
    if (rc == DMESH_SUCCESS && have_gpu_device_files()) {
        int dev = -1;
        MT_OK(dmesh_get_device(h, &dev));
        MT_CHECK(dev >= 0);
    } else {
        if (rc != DMESH_ERR_NO_DEVICE && rc != DMESH_ERR_BACKEND)
            MT_RC(rc, DMESH_ERR_NO_DEVICE);
        if (rc2 != DMESH_ERR_NO_DEVICE && rc2 != DMESH_ERR_BACKEND)
            MT_RC(rc2, DMESH_ERR_NO_DEVICE);
        MT_CHECK(h == DMESH_NULL && h2 == DMESH_NULL);
        MT_CHECK(dmesh_last_error()[0] != '\0');
        /* CUDA's own words come after dmesh's */
        if (strstr(dmesh_last_error(), "cudaGetDeviceCount") != NULL)
            MT_CHECK(strstr(dmesh_last_error(), "no usable CUDA device (CUDA says, ") != NULL);
    }
    if (h != DMESH_NULL)
        dmesh_free(&h);
    if (h2 != DMESH_NULL)
        dmesh_free(&h2);
    /* With the MPI backend only the device is missing: NO_DEVICE; or, in
     * .ci/run's hidden-gpu-libs stage, the CUDA runtime (loaded at run
     * time, doc/gpu.md section 8). */
    {
        MPI_Info mpi = mt_info1("dmesh_backend", "mpi");
        const char *hidden = getenv("DMESH_TEST_GPU_LIBS_HIDDEN");
        rc = dmesh_init(MPI_COMM_WORLD, "cuda", 1, shape, NULL, mpi, &h);
        MT_SAME(MPI_COMM_WORLD, rc);
        if (hidden != NULL && hidden[0] == '1') {
            MT_RC(rc, DMESH_ERR_BACKEND);
            MT_CHECK(strstr(dmesh_last_error(), "cannot load the CUDA runtime (libcudart.so.") !=
                     NULL);
        } else if (!(rc == DMESH_SUCCESS && have_gpu_device_files())) {
            MT_RC(rc, DMESH_ERR_NO_DEVICE);
            MT_CHECK(h == DMESH_NULL);
        }
        if (h != DMESH_NULL)
            dmesh_free(&h);
        MPI_Info_free(&mpi);
    }
    still_works();
}

MT_TEST(backend_nccl_on_cpu)
{
    int shape[2] = {1, mt_size};
    static const char *const keys[] = {"dmesh_backend", "dmesh_backend.d0", "dmesh_backend.1"};
    dmesh_t h, root;

    for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
        MPI_Info info = mt_info1(keys[i], "nccl");
        WORLD_FAILS(dmesh_init(MPI_COMM_WORLD, "cpu", 2, shape, D3, info, &h), DMESH_ERR_BACKEND,
                    h);
        MPI_Info_free(&info);
    }
    root = make(2, shape, D3);
    MPI_Info info = mt_info1("dmesh_backend", "nccl");
    WORLD_FAILS(dmesh_flatten(root, "f", info, &h), DMESH_ERR_BACKEND, h);
    MPI_Info_free(&info);
    free_all(1, &root);
    still_works();
}

/* ---- options: DMESH_ERR_ARG --------------------------------------------- */

/* NCCL settings that ncclCommInitRankConfig refuses fail at the API, on
 * every rank, before any device or communicator is touched. */
MT_TEST(nccl_option_refused)
{
    static const char *const bad[][4] = {{"nccl_blocking", "2", NULL, NULL},
                                         {"nccl_split_share", "3", NULL, NULL},
                                         {"nccl_min_ctas", "2", NULL, NULL},
                                         {"nccl_min_ctas", "8", "nccl_max_ctas", "4"},
                                         {"nccl_max_ctas.1", "0", NULL, NULL}};
    int shape[2] = {1, mt_size};
    dmesh_t h;

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        MPI_Info info = mt_info2("dmesh_backend", "nccl", bad[i][0], bad[i][1]);
        if (bad[i][2] != NULL)
            MPI_Info_set(info, bad[i][2], bad[i][3]);
        WORLD_FAILS(dmesh_init(MPI_COMM_WORLD, "cuda", 2, shape, D3, info, &h), DMESH_ERR_ARG, h);
        MT_CHECK(strstr(dmesh_last_error(), "nccl_") != NULL);
        MPI_Info_free(&info);
    }
    still_works();
}

MT_TEST(option_errors)
{
    static const char *const bad[][2] = {
        {"dmesh_backend", "gloo"},   {"dmesh_backend", "mpi2"},      {"dmesh_backend.d0", "foo"},
        {"dmesh_backend.zz", "mpi"}, {"dmesh_backend.2", "mpi"},     {"dmesh_backend.-1", "mpi"},
        {"dmesh_check", "maybe"},    {"dmesh_comm_create", "bogus"}, {"dmesh_bind", "sometimes"},
        {"dmesh_device", "abc"}};
    int shape[2] = {1, mt_size};
    dmesh_t h, root;
    MPI_Info info;

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        info = mt_info1(bad[i][0], bad[i][1]);
        WORLD_FAILS(dmesh_init(MPI_COMM_WORLD, "cpu", 2, shape, D3, info, &h), DMESH_ERR_ARG, h);
        MPI_Info_free(&info);
    }
    /* One dim by name and by index. */
    info = mt_info2("dmesh_backend.d1", "mpi", "dmesh_backend.1", "mpi");
    WORLD_FAILS(dmesh_init(MPI_COMM_WORLD, "cpu", 2, shape, D3, info, &h), DMESH_ERR_ARG, h);
    MPI_Info_free(&info);
    /* A dim name on an unnamed mesh is an unknown dim. */
    info = mt_info1("dmesh_backend.d0", "mpi");
    WORLD_FAILS(dmesh_init(MPI_COMM_WORLD, "cpu", 2, shape, NULL, info, &h), DMESH_ERR_ARG, h);
    MPI_Info_free(&info);
    /* Options of derived collective calls. */
    root = make(2, shape, D3);
    info = mt_info1("dmesh_comm_create", "bogus");
    WORLD_FAILS(dmesh_flatten(root, "f", info, &h), DMESH_ERR_ARG, h);
    WORLD_FAILS(
        dmesh_unflatten(root, 1, 2, (int[]){1, mt_size}, ((const char *[]){"a", "b"}), info, &h),
        DMESH_ERR_ARG, h);
    MPI_Info_free(&info);
    free_all(1, &root);
    still_works();
}

/* Unknown dmesh_* keys are ignored; with dmesh_strict on they are
 * DMESH_ERR_ARG naming the key, on every rank even when one rank alone has
 * the key and the strict flag. nccl_* keys go to NCCL and pass. */
MT_TEST(unknown_keys)
{
    int shape[2] = {1, mt_size};
    dmesh_t h = DMESH_NULL, root;
    MPI_Info typo = mt_info1("dmesh_comm_creat", "split"),
             strict = mt_info2("dmesh_comm_creat", "split", "dmesh_strict", "true"),
             nccl = mt_info2("nccl_not_a_field", "1", "dmesh_strict", "on"),
             bad = mt_info1("dmesh_strict", "maybe"), one = MPI_INFO_NULL;

    if (mt_rank == 0)
        one = mt_info2("dmesh_foo", "1", "dmesh_strict", "yes");
    MT_OK(dmesh_init(MPI_COMM_WORLD, "cpu", 2, shape, D3, typo, &h));
    MT_OK(dmesh_free(&h));
    WORLD_FAILS(dmesh_init(MPI_COMM_WORLD, "cpu", 2, shape, D3, strict, &h), DMESH_ERR_ARG, h);
    MT_CHECK(strstr(dmesh_last_error(), "dmesh_comm_creat") != NULL);
    WORLD_FAILS(dmesh_init(MPI_COMM_WORLD, "cpu", 2, shape, D3, one, &h), DMESH_ERR_ARG, h);
    MT_CHECK(strstr(dmesh_last_error(), "dmesh_foo") != NULL);
    WORLD_FAILS(dmesh_init(MPI_COMM_WORLD, "cpu", 2, shape, D3, bad, &h), DMESH_ERR_ARG, h);
    MT_CHECK(strstr(dmesh_last_error(), "dmesh_strict") != NULL);
    MT_OK(dmesh_init(MPI_COMM_WORLD, "cpu", 2, shape, D3, nccl, &h));
    MT_OK(dmesh_free(&h));
    /* Options of derived collective calls. */
    root = make(2, shape, D3);
    MT_OK(dmesh_flatten(root, "f", typo, &h));
    MT_OK(dmesh_free(&h));
    WORLD_FAILS(dmesh_flatten(root, "f", strict, &h), DMESH_ERR_ARG, h);
    MT_CHECK(strstr(dmesh_last_error(), "dmesh_comm_creat") != NULL);
    free_all(1, &root);
    MPI_Info all[] = {typo, strict, nccl, bad, one};
    for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
        if (all[i] != MPI_INFO_NULL)
            MPI_Info_free(&all[i]);
    still_works();
}

/* Unknown DMESH_* variables, read once per process. In every run none is
 * set; test/mesh-unknown.sh (test/mesh-unknown-npN.mpi) starts the processes
 * with DMESH_BOGUS=1, once with DMESH_STRICT=true (CK_RUN_CASE=unknown_env),
 * and checks what DMESH_DEBUG listed. */
MT_TEST(unknown_env)
{
    int shape[1] = {mt_size}, bogus = getenv("DMESH_BOGUS") != NULL,
        strict = getenv("DMESH_STRICT") != NULL;
    MPI_Info foo = mt_info1("dmesh_foo", "1"), off = mt_info1("dmesh_strict", "false"),
             on = mt_info1("dmesh_strict", "true");
    dmesh_t h = DMESH_NULL;

    MT_CHECK(!strict || strcmp(getenv("DMESH_STRICT"), "true") == 0);
    if (bogus && strict) {
        WORLD_FAILS(dmesh_init(MPI_COMM_WORLD, "cpu", 1, shape, NULL, MPI_INFO_NULL, &h),
                    DMESH_ERR_ARG, h);
        MT_CHECK(strstr(dmesh_last_error(), "DMESH_BOGUS") != NULL);
        WORLD_FAILS(dmesh_init(MPI_COMM_WORLD, "cpu", 1, shape, NULL, foo, &h), DMESH_ERR_ARG, h);
        MT_CHECK(strstr(dmesh_last_error(), "dmesh_foo") != NULL);
        MT_OK(dmesh_init(MPI_COMM_WORLD, "cpu", 1, shape, NULL, off, &h)); /* the key wins */
        MT_OK(dmesh_free(&h));
    } else if (bogus) {
        MT_OK(dmesh_init(MPI_COMM_WORLD, "cpu", 1, shape, NULL, foo, &h)); /* listed, not refused */
        MT_OK(dmesh_free(&h));
        WORLD_FAILS(dmesh_init(MPI_COMM_WORLD, "cpu", 1, shape, NULL, on, &h), DMESH_ERR_ARG, h);
        MT_CHECK(strstr(dmesh_last_error(), "DMESH_BOGUS") != NULL);
    } else {
        MT_OK(dmesh_init(MPI_COMM_WORLD, "cpu", 1, shape, NULL, on, &h));
        MT_OK(dmesh_free(&h));
    }
    MPI_Info_free(&foo);
    MPI_Info_free(&off);
    MPI_Info_free(&on);
}

/* ---- program ------------------------------------------------------------ */

static Suite *errors_suite(void)
{
    Suite *s = suite_create("mesh_errors");
    TCase *tc = tcase_create("errors");

    tcase_add_test(tc, free_semantics);
    tcase_add_test(tc, error_strings);
    tcase_add_test(tc, arg_creation);
    tcase_add_test(tc, arg_derived);
    tcase_add_test(tc, arg_queries);
    tcase_add_test(tc, arg_negative_dim);
    tcase_add_test(tc, size_errors);
    tcase_add_test(tc, dims_impossible);
    tcase_add_test(tc, dims_agreement);
    tcase_add_test(tc, start_null_output);
    tcase_add_test(tc, name_errors_creation);
    tcase_add_test(tc, name_errors_derived);
    tcase_add_test(tc, layout_errors);
    tcase_add_test(tc, agreement_check);
    tcase_add_test(tc, agreement_detail);
    tcase_add_test(tc, agreement_check_off);
    tcase_add_test(tc, agreement_universe_identity);
    tcase_add_test(tc, agreement_names_failing_rank);
    tcase_add_test(tc, not_member_errors);
    tcase_add_test(tc, cuda_without_device);
    tcase_add_test(tc, backend_nccl_on_cpu);
    tcase_add_test(tc, nccl_option_refused);
    tcase_add_test(tc, option_errors);
    tcase_add_test(tc, unknown_keys);
    suite_add_tcase(s, tc);
    tc = tcase_create("unknown_env");
    tcase_add_test(tc, unknown_env);
    suite_add_tcase(s, tc);
    return s;
}

int main(int argc, char **argv)
{
    return mt_main(&argc, &argv, errors_suite);
}
