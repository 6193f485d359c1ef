/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI tests of the mesh API (device type "cpu"): the mesh-level facts of
 * PyTorch's own DeviceMesh tests on an 8-rank communicator, and general
 * properties of every operation at any world size, checked on the real
 * communicators.
 * Run under mpirun with CK_FORK=no (make check: test/test_mesh-np*.mpi),
 * launched plainly or with mpiexec --with-ft ulfm: where a count depends on
 * the launch (cached_flatten_is_local_without_check), the test asks the MPI
 * which one it is and expects that launch's count. */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ft_launch.h"
#include "mesh_testutil.h"

static const char *const D3[] = {"d0", "d1", "d2"};
static const char *const D16[] = {"d0", "d1", "d2",  "d3",  "d4",  "d5",  "d6",  "d7",
                                  "d8", "d9", "d10", "d11", "d12", "d13", "d14", "d15"};

/* ---- helpers ------------------------------------------------------------ */

/* Root model and axes of a mesh made by init/create of shape over ranks. */
static void root_axes(mt_model_t *m, mt_axis_t ax[], int ndims, const int shape[],
                      const int ranks[])
{
    mt_model_init(m, ndims, shape, ranks);
    for (int d = 0; d < ndims; d++)
        ax[d] = mt_axis_dim(m, d);
}

static dmesh_t init_named(MPI_Comm comm, int ndims, const int shape[], const char *const names[])
{
    dmesh_t mesh = DMESH_NULL;

    MT_OK(dmesh_init(comm, "cpu", ndims, shape, names, MPI_INFO_NULL, &mesh));
    return mesh;
}

static dmesh_t slice(dmesh_t mesh, int n, const char *const names[])
{
    dmesh_t sub = DMESH_NULL;

    MT_OK(dmesh_slice(mesh, n, names, &sub));
    return sub;
}

static dmesh_t slice1(dmesh_t mesh, const char *name)
{
    return slice(mesh, 1, &name);
}

static dmesh_t slice2(dmesh_t mesh, const char *a, const char *b)
{
    const char *names[2] = {a, b};
    return slice(mesh, 2, names);
}

static dmesh_t flatten(dmesh_t mesh, const char *name)
{
    dmesh_t flat = DMESH_NULL;

    MT_OK(dmesh_flatten(mesh, name, MPI_INFO_NULL, &flat));
    return flat;
}

static int equal(dmesh_t a, dmesh_t b)
{
    int eq = -1, eq2 = -1;

    MT_OK(dmesh_equal(a, b, &eq));
    MT_OK(dmesh_equal(b, a, &eq2));
    MT_EQ(eq, eq2);
    return eq;
}

static void free_all(int n, dmesh_t *meshes)
{
    for (int i = 0; i < n; i++) {
        MT_OK(dmesh_free(&meshes[i]));
        MT_CHECK(meshes[i] == DMESH_NULL);
    }
}

static MPI_Comm comm_of(dmesh_t mesh, int dim)
{
    MPI_Comm c = MPI_COMM_NULL;

    MT_OK(dmesh_get_comm(mesh, dim, &c));
    return c;
}

/* The row of a table of ngroups groups of gsize ranks that holds rank r. */
static const int *row_of(const int *table, int ngroups, int gsize, int r)
{
    for (int g = 0; g < ngroups; g++)
        for (int i = 0; i < gsize; i++)
            if (table[g * gsize + i] == r)
                return table + g * gsize;
    return NULL;
}

/* The group of the caller along dim is the row of table that holds it: by
 * dmesh_get_group_ranks, the local rank, and the real communicator. */
#define EXPECT_GROUPS(mesh, ref, dim, table, ngroups, gsize)                                       \
    expect_groups(__LINE__, mesh, ref, dim, table, ngroups, gsize)
static void expect_groups(int line, dmesh_t mesh, MPI_Comm ref, int dim, const int *table,
                          int ngroups, int gsize)
{
    int r, got[MT_MAX_RANKS], n = -1, lr = -1, pos = -1;
    const int *row;

    MPI_Comm_rank(ref, &r);
    row = row_of(table, ngroups, gsize, r);
    if (row == NULL) {
        mt_fail(__FILE__, line, "rank %d is in no group of the table", r);
        return;
    }
    for (int i = 0; i < gsize; i++)
        if (row[i] == r)
            pos = i;
    MT_OK(dmesh_get_group_ranks(mesh, dim, MT_MAX_RANKS, got, &n));
    if (n != gsize || !mt_same_ints(got, row, gsize))
        mt_fail(__FILE__, line, "group ranks of dim %d on rank %d differ from the fact", dim, r);
    n = mt_comm_members(mesh, dim, ref, got);
    if (n != gsize || !mt_same_ints(got, row, gsize))
        mt_fail(__FILE__, line,
                "members of the dim %d communicator on rank %d differ from the fact", dim, r);
    MT_OK(dmesh_get_local_rank(mesh, dim, &lr));
    if (lr != pos)
        mt_fail(__FILE__, line, "local rank on dim %d of rank %d: got %d, expected %d", dim, r, lr,
                pos);
}

/* The mesh tensor of the caller is the row of table that holds it. */
#define EXPECT_TENSOR(mesh, ref, table, ncopies, size)                                             \
    expect_tensor(__LINE__, mesh, ref, table, ncopies, size)
static void expect_tensor(int line, dmesh_t mesh, MPI_Comm ref, const int *table, int ncopies,
                          int size)
{
    int r, got[MT_MAX_RANKS], n = -1;
    const int *row;

    MPI_Comm_rank(ref, &r);
    row = row_of(table, ncopies, size, r);
    MT_OK(dmesh_get_ranks(mesh, MT_MAX_RANKS, got, &n));
    if (row == NULL || n != size || !mt_same_ints(got, row, size))
        mt_fail(__FILE__, line, "mesh tensor of rank %d differs from the fact", r);
}

static void expect_shape(int ndims, const int *shape, dmesh_t mesh)
{
    int nd = -1, s[DMESH_MAX_DIMS];

    MT_OK(dmesh_get_ndims(mesh, &nd));
    MT_EQ(nd, ndims);
    if (nd != ndims)
        return;
    MT_OK(dmesh_get_shape(mesh, DMESH_MAX_DIMS, s));
    for (int d = 0; d < ndims; d++)
        MT_EQ(s[d], shape[d]);
}

static void expect_names(int ndims, const char *const *names, dmesh_t mesh)
{
    for (int d = 0; d < ndims; d++) {
        const char *name = NULL;
        MT_OK(dmesh_get_dim_name(mesh, d, &name));
        MT_STREQ(name, names[d]);
    }
}

/* ---- 8-rank facts (from PyTorch's DeviceMesh tests) --------------------- */

static const int cube_dim0[] = {0, 4, 1, 5, 2, 6, 3, 7};
static const int cube_dim1[] = {0, 2, 1, 3, 4, 6, 5, 7};
static const int cube_dim2[] = {0, 1, 2, 3, 4, 5, 6, 7};

MT_TEST(fact_create_cube)
{
    MPI_Comm c8;
    int shape[3] = {2, 2, 2}, ranks[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    dmesh_t mesh = DMESH_NULL;
    mt_model_t m;
    mt_axis_t ax[3];

    if (!mt_comm8(&c8))
        return;
    MT_OK(dmesh_create(c8, "cpu", 3, shape, ranks, NULL, MPI_INFO_NULL, &mesh));
    EXPECT_GROUPS(mesh, c8, 0, cube_dim0, 4, 2);
    EXPECT_GROUPS(mesh, c8, 1, cube_dim1, 4, 2);
    EXPECT_GROUPS(mesh, c8, 2, cube_dim2, 4, 2);
    root_axes(&m, ax, 3, shape, ranks);
    mt_check_mesh(mesh, c8, &m, 3, ax, NULL);
    free_all(1, &mesh);
    MPI_Comm_free(&c8);
}

MT_TEST(fact_init_cube_local_ranks)
{
    MPI_Comm c8;
    int shape[3] = {2, 2, 2}, r, lr[3] = {-1, -1, -1}, coord[3] = {-1, -1, -1}, is_member = -1;
    const char *names[3] = {"dp", "pp", "tp"};
    dmesh_t mesh;

    if (!mt_comm8(&c8))
        return;
    MPI_Comm_rank(c8, &r);
    mesh = init_named(c8, 3, shape, names);
    for (int d = 0; d < 3; d++)
        MT_OK(dmesh_get_local_rank(mesh, d, &lr[d]));
    MT_EQ(lr[0], r / 4);
    MT_EQ(lr[1], (r / 2) % 2);
    MT_EQ(lr[2], r % 2);
    MT_OK(dmesh_get_coordinate(mesh, 3, coord, &is_member));
    MT_EQ(is_member, 1);
    MT_EQ(coord[0], r / 4);
    MT_EQ(coord[1], (r / 2) % 2);
    MT_EQ(coord[2], r % 2);
    free_all(1, &mesh);
    MPI_Comm_free(&c8);
}

MT_TEST(fact_slice_2x4)
{
    static const int tp_groups[] = {0, 1, 2, 3, 4, 5, 6, 7};
    static const int dp_groups[] = {0, 4, 1, 5, 2, 6, 3, 7};
    MPI_Comm c8;
    int shape[2] = {2, 4};
    const char *names[2] = {"DP", "TP"};
    dmesh_t m[3];

    if (!mt_comm8(&c8))
        return;
    m[0] = init_named(c8, 2, shape, names);
    m[1] = slice1(m[0], "TP");
    m[2] = slice1(m[0], "DP");
    EXPECT_TENSOR(m[1], c8, tp_groups, 2, 4);
    EXPECT_GROUPS(m[1], c8, 0, tp_groups, 2, 4);
    EXPECT_TENSOR(m[2], c8, dp_groups, 4, 2);
    EXPECT_GROUPS(m[2], c8, 0, dp_groups, 4, 2);
    EXPECT_GROUPS(m[0], c8, 0, dp_groups, 4, 2);
    EXPECT_GROUPS(m[0], c8, 1, tp_groups, 2, 4);
    free_all(3, m);
    MPI_Comm_free(&c8);
}

MT_TEST(fact_slice_dp_cp)
{
    static const int copies[] = {0, 1, 4, 5, 2, 3, 6, 7};
    MPI_Comm c8;
    int shape[3] = {2, 2, 2}, sub_shape[2] = {2, 2};
    const char *names[3] = {"dp", "pp", "cp"}, *reversed[2] = {"cp", "dp"};
    dmesh_t m[2], bad;

    if (!mt_comm8(&c8))
        return;
    m[0] = init_named(c8, 3, shape, names);
    m[1] = slice2(m[0], "dp", "cp");
    expect_shape(2, sub_shape, m[1]);
    EXPECT_TENSOR(m[1], c8, copies, 2, 4);
    EXPECT_GROUPS(m[1], c8, 0, cube_dim0, 4, 2);
    EXPECT_GROUPS(m[1], c8, 1, cube_dim2, 4, 2);
    bad = DMESH_NULL;
    MT_RC(dmesh_slice(m[0], 2, reversed, &bad), DMESH_ERR_LAYOUT);
    MT_CHECK(bad == DMESH_NULL);
    free_all(2, m);
    MPI_Comm_free(&c8);
}

MT_TEST(fact_flatten_dp_cp)
{
    static const int dp_cp[] = {0, 2, 4, 6, 1, 3, 5, 7};
    static const int tp[] = {0, 1, 2, 3, 4, 5, 6, 7};
    static const int all[] = {0, 1, 2, 3, 4, 5, 6, 7};
    static const int dp_tp[] = {0, 1, 4, 5, 2, 3, 6, 7};
    MPI_Comm c8;
    int shape[3] = {2, 2, 2}, shape42[2] = {4, 2};
    const char *names[3] = {"dp", "cp", "tp"}, *name = NULL, *bad_names[2] = {"dp_tp", "cp"};
    const char *want_names[2] = {"dp_cp", "tp"};
    dmesh_t m[8], bad;
    dmesh_cache_info_t c0, c1;

    for (int i = 0; i < 8; i++)
        m[i] = DMESH_NULL;
    if (!mt_comm8(&c8))
        return;
    m[0] = init_named(c8, 3, shape, names);
    m[1] = slice2(m[0], "dp", "cp");
    m[2] = flatten(m[1], NULL);
    MT_OK(dmesh_get_dim_name(m[2], 0, &name));
    MT_STREQ(name, "dp_cp");
    EXPECT_GROUPS(m[2], c8, 0, dp_cp, 2, 4);

    /* Flattening again creates no communicator and gives an equal mesh. */
    c0 = mt_cache(m[0]);
    m[3] = flatten(m[1], NULL);
    c1 = mt_cache(m[0]);
    MT_EQ(c1.comms_mpi, c0.comms_mpi);
    MT_EQ(equal(m[2], m[3]), 1);
    MT_CHECK(comm_of(m[2], 0) == comm_of(m[3], 0));

    /* Slicing the root by the registered name. */
    m[4] = slice2(m[0], "dp_cp", "tp");
    expect_shape(2, shape42, m[4]);
    expect_names(2, want_names, m[4]);
    EXPECT_TENSOR(m[4], c8, all, 1, 8);
    EXPECT_GROUPS(m[4], c8, 0, dp_cp, 2, 4);
    EXPECT_GROUPS(m[4], c8, 1, tp, 4, 2);
    MT_EQ(mt_cache(m[0]).comms_mpi, c0.comms_mpi);

    m[5] = slice2(m[0], "dp", "tp");
    m[6] = flatten(m[5], NULL);
    MT_OK(dmesh_get_dim_name(m[6], 0, &name));
    MT_STREQ(name, "dp_tp");
    EXPECT_GROUPS(m[6], c8, 0, dp_tp, 2, 4);
    bad = DMESH_NULL;
    MT_RC(dmesh_slice(m[0], 2, bad_names, &bad), DMESH_ERR_LAYOUT);
    MT_CHECK(bad == DMESH_NULL);
    MT_FAILS_CREATE(c8, dmesh_flatten(m[0], "dp", MPI_INFO_NULL, &bad), DMESH_ERR_NAME, bad);
    m[7] = slice2(m[0], "cp", "tp");
    MT_FAILS_CREATE(c8, dmesh_flatten(m[7], "dp_tp", MPI_INFO_NULL, &bad), DMESH_ERR_NAME, bad);
    free_all(8, m);
    MPI_Comm_free(&c8);
}

/* A name flattened from a transposed concatenation (tp before dp) has its
 * ranks in another order than the root's: slicing the root by it is a
 * LAYOUT error that says so, while the mesh flatten returned works (its
 * communicator sums the ranks of its group). */
MT_TEST(flatten_transposed_slice)
{
    int shape[2] = {2, mt_size / 2}, sum = -1, want = 0;
    const char *names[2] = {"dp", "tp"}, *tp_dp[1] = {"tp_dp"};
    dmesh_t m[5], pair[2], bad = DMESH_NULL;
    MPI_Comm c = MPI_COMM_NULL;

    if (mt_size < 4 || mt_size % 2)
        return;
    m[0] = init_named(MPI_COMM_WORLD, 2, shape, names);
    MT_OK(dmesh_slice(m[0], 1, &names[0], &m[1]));
    MT_OK(dmesh_slice(m[0], 1, &names[1], &m[2]));
    pair[0] = m[2]; /* tp first, then dp */
    pair[1] = m[1];
    MT_OK(dmesh_concatenate(2, pair, &m[3]));
    MT_OK(dmesh_flatten(m[3], "tp_dp", MPI_INFO_NULL, &m[4]));
    MT_RC(dmesh_slice(m[0], 1, tp_dp, &bad), DMESH_ERR_LAYOUT);
    MT_CHECK(bad == DMESH_NULL);
    MT_CHECK(strstr(dmesh_last_error(), "transposed") != NULL);
    MT_OK(dmesh_get_comm(m[4], 0, &c));
    MPI_Allreduce(&mt_rank, &sum, 1, MPI_INT, MPI_SUM, c);
    for (int r = 0; r < mt_size; r++)
        want += r;
    MT_EQ(sum, want);
    free_all(5, m);
}

MT_TEST(fact_flatten_shard_cp)
{
    static const int copy[] = {0, 1, 2, 3, 4, 5, 6, 7};
    static const int replicate[] = {0, 4, 1, 5, 2, 6, 3, 7};
    MPI_Comm c8;
    int shape[3] = {2, 2, 2}, shape24[2] = {2, 4};
    const char *names[3] = {"replicate", "shard", "cp"};
    dmesh_t m[4];

    if (!mt_comm8(&c8))
        return;
    m[0] = init_named(c8, 3, shape, names);
    m[1] = slice2(m[0], "shard", "cp");
    m[2] = flatten(m[1], NULL);
    m[3] = slice2(m[0], "replicate", "shard_cp");
    expect_shape(2, shape24, m[3]);
    EXPECT_TENSOR(m[3], c8, copy, 1, 8);
    EXPECT_GROUPS(m[3], c8, 0, replicate, 4, 2);
    EXPECT_GROUPS(m[3], c8, 1, copy, 2, 4);
    free_all(4, m);
    MPI_Comm_free(&c8);
}

MT_TEST(fact_unflatten_dp)
{
    static const int shard[] = {0, 4, 1, 5, 2, 6, 3, 7};
    static const int repl[] = {0, 2, 1, 3, 4, 6, 5, 7};
    static const int tp[] = {0, 1, 2, 3, 4, 5, 6, 7};
    MPI_Comm c8;
    int shape[2] = {4, 2}, sizes[2] = {2, 2}, shape3[3] = {2, 2, 2};
    const char *names[2] = {"dp", "tp"}, *new_names[2] = {"dp_shard", "dp_replicate"};
    const char *want[3] = {"dp_shard", "dp_replicate", "tp"};
    dmesh_t m[3], bad;

    if (!mt_comm8(&c8))
        return;
    m[0] = init_named(c8, 2, shape, names);
    m[1] = DMESH_NULL;
    MT_OK(dmesh_unflatten(m[0], 0, 2, sizes, new_names, MPI_INFO_NULL, &m[1]));
    expect_shape(3, shape3, m[1]);
    expect_names(3, want, m[1]);
    MT_CHECK(comm_of(m[1], 2) == comm_of(m[0], 1));
    EXPECT_GROUPS(m[1], c8, 0, shard, 4, 2);
    EXPECT_GROUPS(m[1], c8, 1, repl, 4, 2);
    EXPECT_GROUPS(m[1], c8, 2, tp, 4, 2);
    /* The new names are the unflattened mesh's own, not the root's. */
    m[2] = slice1(m[1], "dp_shard");
    EXPECT_GROUPS(m[2], c8, 0, shard, 4, 2);
    bad = DMESH_NULL;
    MT_RC(dmesh_slice(m[0], 1, new_names, &bad), DMESH_ERR_NAME);
    MT_CHECK(bad == DMESH_NULL);
    free_all(3, m);
    MPI_Comm_free(&c8);
}

MT_TEST(fact_unflatten_world_shared)
{
    static const int outer[] = {0, 4, 1, 5, 2, 6, 3, 7};
    static const int middle[] = {0, 2, 1, 3, 4, 6, 5, 7};
    static const int inner[] = {0, 1, 2, 3, 4, 5, 6, 7};
    MPI_Comm c8;
    int shape[1] = {8}, sizes[3] = {2, 2, 2};
    const char *world = "world", *n1[3] = {"dp", "cp", "tp"}, *n2[3] = {"dp", "ep", "ep_tp"};
    dmesh_t m[3];
    dmesh_cache_info_t c0, c1;

    if (!mt_comm8(&c8))
        return;
    m[0] = init_named(c8, 1, shape, &world);
    m[1] = m[2] = DMESH_NULL;
    MT_OK(dmesh_unflatten(m[0], 0, 3, sizes, n1, MPI_INFO_NULL, &m[1]));
    c0 = mt_cache(m[0]);
    MT_OK(dmesh_unflatten(m[0], 0, 3, sizes, n2, MPI_INFO_NULL, &m[2]));
    c1 = mt_cache(m[0]);
    MT_EQ(c1.comms_mpi, c0.comms_mpi);
    MT_CHECK(c1.hits > c0.hits);
    for (int i = 1; i <= 2; i++) {
        EXPECT_GROUPS(m[i], c8, 0, outer, 4, 2);
        EXPECT_GROUPS(m[i], c8, 1, middle, 4, 2);
        EXPECT_GROUPS(m[i], c8, 2, inner, 4, 2);
    }
    for (int d = 0; d < 3; d++)
        MT_CHECK(comm_of(m[1], d) == comm_of(m[2], d));
    free_all(3, m);
    MPI_Comm_free(&c8);
}

MT_TEST(fact_concatenate)
{
    MPI_Comm c8;
    int shape[3] = {2, 2, 2}, a[8], b[8], na = -1, nb = -1;
    const char *names[3] = {"pp", "dp", "tp"};
    dmesh_t m[8];
    dmesh_cache_info_t c0;

    for (int i = 0; i < 8; i++)
        m[i] = DMESH_NULL;
    if (!mt_comm8(&c8))
        return;
    m[0] = init_named(c8, 3, shape, names);
    c0 = mt_cache(m[0]);
    m[1] = slice1(m[0], "dp");
    m[2] = slice1(m[0], "tp");
    MT_OK(dmesh_concatenate(2, (dmesh_t[]){m[1], m[2]}, &m[3]));
    m[4] = slice2(m[0], "dp", "tp");
    MT_OK(dmesh_get_ranks(m[3], 8, a, &na));
    MT_OK(dmesh_get_ranks(m[4], 8, b, &nb));
    MT_EQ(na, 4);
    MT_CHECK(na == nb && mt_same_ints(a, b, na));
    MT_EQ(equal(m[3], m[4]), 1);
    m[5] = slice2(m[0], "pp", "dp");
    MT_OK(dmesh_concatenate(2, (dmesh_t[]){m[5], m[2]}, &m[6]));
    MT_EQ(equal(m[6], m[0]), 1);
    MT_EQ(mt_cache(m[0]).comms_mpi, c0.comms_mpi);
    free_all(8, m);
    MPI_Comm_free(&c8);
}

/* ---- general properties at any world size -------------------------------- */

static void check_init(MPI_Comm comm, int ndims, const int shape[], const char *const names[])
{
    mt_model_t m;
    mt_axis_t ax[DMESH_MAX_DIMS];
    dmesh_t mesh;
    int r, coord[DMESH_MAX_DIMS], is_member = -1, prod = 1;

    root_axes(&m, ax, ndims, shape, NULL);
    mesh = init_named(comm, ndims, shape, names);
    mt_check_mesh(mesh, comm, &m, ndims, ax, names);
    /* The row-major coordinate rule, written out. */
    MPI_Comm_rank(comm, &r);
    for (int d = 0; d < ndims; d++)
        prod *= shape[d];
    MT_OK(dmesh_get_coordinate(mesh, DMESH_MAX_DIMS, coord, &is_member));
    MT_EQ(is_member, r < prod);
    for (int d = ndims - 1, rest = r; d >= 0 && r < prod; d--) {
        MT_EQ(coord[d], rest % shape[d]);
        rest /= shape[d];
    }
    free_all(1, &mesh);
}

MT_TEST(init_shapes)
{
    int f[64 * 3], shape[DMESH_MAX_DIMS];

    for (int k = 1; k <= 3; k++) {
        int nf = mt_factorisations(mt_size, k, 64, f);
        for (int i = 0; i < nf; i++) {
            check_init(MPI_COMM_WORLD, k, f + i * k, D3);
            check_init(MPI_COMM_WORLD, k, f + i * k, NULL);
        }
    }
    /* Shapes smaller than the world: the last ranks are not members. */
    shape[0] = 1;
    check_init(MPI_COMM_WORLD, 1, shape, D3);
    if (mt_size >= 2) {
        shape[0] = mt_size - 1;
        check_init(MPI_COMM_WORLD, 1, shape, D3);
    }
    if (mt_size >= 5) {
        shape[0] = 2;
        shape[1] = (mt_size - 1) / 2;
        check_init(MPI_COMM_WORLD, 2, shape, D3);
    }
    /* DMESH_MAX_DIMS dimensions, sizes 1 but the first. */
    for (int d = 0; d < DMESH_MAX_DIMS; d++)
        shape[d] = d == 0 ? mt_size : 1;
    check_init(MPI_COMM_WORLD, DMESH_MAX_DIMS, shape, D16);
    for (int d = 0; d < DMESH_MAX_DIMS; d++)
        shape[d] = d == DMESH_MAX_DIMS - 1 ? mt_size : 1;
    check_init(MPI_COMM_WORLD, DMESH_MAX_DIMS, shape, NULL);
}

MT_TEST(init_names_boundary)
{
    char longest[DMESH_MAX_NAME];
    const char *names[1] = {longest};
    int shape[1] = {mt_size};

    memset(longest, 'n', DMESH_MAX_NAME - 1);
    longest[DMESH_MAX_NAME - 1] = '\0';
    check_init(MPI_COMM_WORLD, 1, shape, names);
}

static void check_create(int ndims, const int shape[], const int ranks[], const char *const names[])
{
    mt_model_t m;
    mt_axis_t ax[DMESH_MAX_DIMS];
    dmesh_t mesh = DMESH_NULL;

    root_axes(&m, ax, ndims, shape, ranks);
    MT_OK(dmesh_create(MPI_COMM_WORLD, "cpu", ndims, shape, ranks, names, MPI_INFO_NULL, &mesh));
    mt_check_mesh(mesh, MPI_COMM_WORLD, &m, ndims, ax, names);
    free_all(1, &mesh);
}

MT_TEST(create_permuted)
{
    int rev[MT_MAX_RANKS], rot[MT_MAX_RANKS], f[64 * 2], shape[1] = {mt_size}, nf;

    for (int i = 0; i < mt_size; i++) {
        rev[i] = mt_size - 1 - i;
        rot[i] = (i + 1) % mt_size;
    }
    check_create(1, shape, rev, D3);
    check_create(1, shape, rot, NULL);
    nf = mt_factorisations(mt_size, 2, 64, f);
    for (int i = 0; i < nf; i++) {
        check_create(2, f + 2 * i, rev, D3);
        check_create(2, f + 2 * i, rot, D3);
    }
    nf = mt_factorisations(mt_size, 3, 64, f);
    for (int i = 0; i < nf; i++)
        check_create(3, f + 3 * i, rev, D3);
    /* A rank list that leaves rank 0 out. */
    if (mt_size >= 2) {
        shape[0] = mt_size - 1;
        check_create(1, shape, rev, D3);
    }
}

/* ---- shape entries 0: chosen as by MPI_Dims_create --------------------- */

/* Shapes with entries 0 (the others given) for a communicator of size
 * ranks: the ones whose given entries divide size. */
static int dims_cases(int size, int max, int nd[], int shapes[][3])
{
    static const int cases[][4] = {{1, 0},       {2, 0, 0},    {2, 2, 0}, {2, 0, 2},
                                   {3, 0, 2, 0}, {3, 0, 0, 0}, {2, 1, 0}, {3, 0, 0, 1}};
    int n = 0;

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]) && n < max; i++) {
        int given = 1;
        for (int d = 0; d < cases[i][0]; d++)
            given *= cases[i][1 + d] > 0 ? cases[i][1 + d] : 1;
        if (size % given != 0)
            continue;
        nd[n] = cases[i][0];
        memcpy(shapes[n], &cases[i][1], sizeof(shapes[n]));
        n++;
    }
    return n;
}

/* What MPI_Dims_create gives for size ranks and the entries of shape. */
static void dims_expected(int size, int ndims, const int shape[], int out[])
{
    memcpy(out, shape, (size_t)ndims * sizeof(int));
    MT_EQ(MPI_Dims_create(size, ndims, out), MPI_SUCCESS);
}

/* "DeviceMesh(cpu, (a, b), ...": the text of an unnamed mesh starts with
 * its shape. */
static void expect_text_shape(dmesh_t mesh, int ndims, const int shape[])
{
    char text[4096], want[256];
    int k = snprintf(want, sizeof(want), "DeviceMesh(cpu, (");

    for (int d = 0; d < ndims; d++)
        k += snprintf(want + k, sizeof(want) - (size_t)k, "%s%d", d ? ", " : "", shape[d]);
    snprintf(want + k, sizeof(want) - (size_t)k, "), ");
    MT_OK(dmesh_to_string(mesh, text, sizeof(text), NULL));
    if (strncmp(text, want, strlen(want)) != 0)
        mt_fail(__FILE__, __LINE__, "dmesh_to_string: \"%s\" does not start with \"%s\"", text,
                want);
}

/* dmesh_init (ranks NULL) or dmesh_create with a shape holding zeros over
 * comm: the mesh has the shape MPI_Dims_create gives, product = the size
 * of comm, the given entries kept, the caller's array untouched, and its
 * groups are those of that shape on the real communicators. */
static void check_dims(MPI_Comm comm, int ndims, const int shape[], const int ranks[])
{
    int size, want[DMESH_MAX_DIMS], copy[DMESH_MAX_DIMS];
    mt_model_t m;
    mt_axis_t ax[DMESH_MAX_DIMS];
    dmesh_t mesh = DMESH_NULL;

    MPI_Comm_size(comm, &size);
    dims_expected(size, ndims, shape, want);
    memcpy(copy, shape, (size_t)ndims * sizeof(int));
    if (ranks == NULL)
        MT_OK(dmesh_init(comm, "cpu", ndims, copy, NULL, MPI_INFO_NULL, &mesh));
    else
        MT_OK(dmesh_create(comm, "cpu", ndims, copy, ranks, NULL, MPI_INFO_NULL, &mesh));
    MT_CHECK(mt_same_ints(copy, shape, ndims)); /* const: not written */
    if (mesh == DMESH_NULL)
        return;
    for (int d = 0; d < ndims; d++)
        if (shape[d] != 0)
            MT_EQ(want[d], shape[d]);
    expect_shape(ndims, want, mesh);
    expect_text_shape(mesh, ndims, want);
    root_axes(&m, ax, ndims, want, ranks);
    mt_check_mesh(mesh, comm, &m, ndims, ax, NULL);
    free_all(1, &mesh);
}

MT_TEST(dims_zero_init)
{
    int nd[16], shapes[16][3], n = dims_cases(mt_size, 16, nd, shapes);

    MT_CHECK(n >= 4);
    for (int i = 0; i < n; i++)
        check_dims(MPI_COMM_WORLD, nd[i], shapes[i], NULL);
}

/* The shapes MPI_Dims_create balances, written out for 8 ranks. */
MT_TEST(dims_zero_init_8)
{
    static const int in[][3] = {{0, 0, 0}, {0, 2, 0}, {0, 0, 1}, {1, 0, 0}, {0, 0, 4}};
    static const int out[][3] = {{2, 2, 2}, {2, 2, 2}, {4, 2, 1}, {1, 4, 2}, {2, 1, 4}};
    int shape[3];
    MPI_Comm c8;
    dmesh_t mesh;

    if (!mt_comm8(&c8))
        return;
    for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
        memcpy(shape, in[i], sizeof(shape));
        mesh = init_named(c8, 3, shape, D3);
        expect_shape(3, out[i], mesh);
        check_dims(c8, 3, in[i], NULL);
        free_all(1, &mesh);
    }
    MPI_Comm_free(&c8);
}

/* dmesh_create: zeros are filled so that the product is the size of the
 * communicator; ranks[] then lists every rank of it. */
MT_TEST(dims_zero_create)
{
    int rev[MT_MAX_RANKS], rot[MT_MAX_RANKS], nd[16], shapes[16][3];
    int n = dims_cases(mt_size, 16, nd, shapes);

    for (int i = 0; i < mt_size; i++) {
        rev[i] = mt_size - 1 - i;
        rot[i] = (i + 1) % mt_size;
    }
    for (int i = 0; i < n; i++) {
        check_dims(MPI_COMM_WORLD, nd[i], shapes[i], rev);
        check_dims(MPI_COMM_WORLD, nd[i], shapes[i], rot);
    }
}

MT_TEST(sub_communicator_ranks)
{
    MPI_Comm sub;
    int n, r, shape[1], want[MT_MAX_RANKS], got[MT_MAX_RANKS], ngot, k = 0;
    const char *name = "x";
    mt_model_t m;
    mt_axis_t ax[1];
    dmesh_t mesh[2];
    long long one = 1, sum = 0;

    /* Odd and even ranks, in reverse order: ranks of sub are not world ranks. */
    MPI_Comm_split(MPI_COMM_WORLD, mt_rank % 2, -mt_rank, &sub);
    MPI_Comm_size(sub, &n);
    MPI_Comm_rank(sub, &r);
    shape[0] = n;
    root_axes(&m, ax, 1, shape, NULL);
    mesh[0] = init_named(sub, 1, shape, &name);
    mt_check_mesh(mesh[0], sub, &m, 1, ax, &name);
    for (int w = mt_size - 1; w >= 0; w--)
        if (w % 2 == mt_rank % 2)
            want[k++] = w;
    ngot = mt_comm_members(mesh[0], 0, MPI_COMM_WORLD, got);
    MT_EQ(ngot, n);
    MT_CHECK(ngot == k && mt_same_ints(got, want, k));

    /* The caller may free its communicator while the mesh lives on. */
    MPI_Comm_free(&sub);
    mesh[1] = slice1(mesh[0], "x");
    MPI_Allreduce(&one, &sum, 1, MPI_LONG_LONG, MPI_SUM, comm_of(mesh[1], 0));
    MT_EQ(sum, n);
    free_all(2, mesh);
}

/* Every ascending subset of the dims of a named root of shape. */
static void check_slices(int ndims, const int shape[])
{
    mt_model_t m;
    mt_axis_t ax[3], sax[3];
    const char *names[3];
    dmesh_t root, sub;
    dmesh_cache_info_t c0, c1;

    root_axes(&m, ax, ndims, shape, NULL);
    root = init_named(MPI_COMM_WORLD, ndims, shape, D3);
    c0 = mt_cache(root);
    for (int set = 1; set < (1 << ndims); set++) {
        int n = 0;
        for (int d = 0; d < ndims; d++)
            if (set & (1 << d)) {
                names[n] = D3[d];
                sax[n++] = ax[d];
            }
        sub = slice(root, n, names);
        mt_check_mesh(sub, MPI_COMM_WORLD, &m, n, sax, names);
        if (n == ndims)
            MT_EQ(equal(sub, root), 1);
        else
            MT_EQ(equal(sub, root), 0);
        /* Same layout, same communicator. */
        for (int i = 0; i < n; i++) {
            int d = -1;
            MT_OK(dmesh_get_dim_index(root, names[i], &d));
            MT_CHECK(comm_of(sub, i) == comm_of(root, d));
        }
        free_all(1, &sub);
    }
    c1 = mt_cache(root);
    MT_EQ(c1.comms_mpi, c0.comms_mpi);
    MT_EQ(c1.comms_nccl, 0);
    if (ndims == 3) {
        /* A slice of a slice equals the direct slice. */
        dmesh_t s[3];
        s[0] = slice2(root, "d0", "d2");
        s[1] = slice1(s[0], "d2");
        s[2] = slice1(root, "d2");
        MT_EQ(equal(s[1], s[2]), 1);
        mt_check_mesh(s[1], MPI_COMM_WORLD, &m, 1, &ax[2], &D3[2]);
        free_all(3, s);
    }
    free_all(1, &root);
}

MT_TEST(slice_general)
{
    int f[64 * 3];

    for (int k = 1; k <= 3; k++) {
        int nf = mt_factorisations(mt_size, k, 64, f);
        for (int i = 0; i < nf; i++)
            check_slices(k, f + i * k);
    }
}

static void check_flatten(int ndims, const int shape[])
{
    mt_model_t m;
    mt_axis_t ax[3], fax[2];
    dmesh_t root, mm[6];
    char joined[3 * DMESH_MAX_NAME];
    const char *jn, *names[2];

    root_axes(&m, ax, ndims, shape, NULL);
    root = init_named(MPI_COMM_WORLD, ndims, shape, D3);
    snprintf(joined, sizeof(joined), "%s", D3[0]);
    fax[0] = ax[0];
    for (int d = 1; d < ndims; d++) {
        strcat(joined, "_");
        strcat(joined, D3[d]);
        fax[0] = mt_axis_join(fax[0], ax[d]);
    }
    jn = joined;
    for (int i = 0; i < 6; i++)
        mm[i] = DMESH_NULL;
    mm[0] = flatten(root, NULL);
    mt_check_mesh(mm[0], MPI_COMM_WORLD, &m, 1, fax, &jn);
    if (ndims == 3) {
        /* Flatten each pair of neighbours and slice the root with the result. */
        mm[1] = slice2(root, "d0", "d1");
        mm[2] = flatten(mm[1], NULL);
        fax[0] = mt_axis_join(ax[0], ax[1]);
        fax[1] = ax[2];
        names[0] = "d0_d1";
        names[1] = "d2";
        mt_check_mesh(mm[2], MPI_COMM_WORLD, &m, 1, fax, names);
        mm[3] = slice(root, 2, names);
        mt_check_mesh(mm[3], MPI_COMM_WORLD, &m, 2, fax, names);
        free_all(2, &mm[2]);
        mm[2] = slice2(root, "d1", "d2");
        mm[3] = flatten(mm[2], NULL);
        fax[0] = ax[0];
        fax[1] = mt_axis_join(ax[1], ax[2]);
        names[0] = "d0";
        names[1] = "d1_d2";
        mt_check_mesh(mm[3], MPI_COMM_WORLD, &m, 1, &fax[1], &names[1]);
        mm[4] = slice(root, 2, names);
        mt_check_mesh(mm[4], MPI_COMM_WORLD, &m, 2, fax, names);
        /* Not neighbours: the flat dim is (d0, d2). */
        mm[5] = slice2(root, "d0", "d2");
        free_all(1, &mm[4]);
        mm[4] = flatten(mm[5], NULL);
        fax[0] = mt_axis_join(ax[0], ax[2]);
        names[0] = "d0_d2";
        mt_check_mesh(mm[4], MPI_COMM_WORLD, &m, 1, fax, names);
    }
    free_all(6, mm);
    free_all(1, &root);
}

MT_TEST(flatten_general)
{
    int f[64 * 3];

    for (int k = 1; k <= 3; k++) {
        int nf = mt_factorisations(mt_size, k, 64, f);
        for (int i = 0; i < nf; i++)
            check_flatten(k, f + i * k);
    }
}

MT_TEST(flatten_one_dim_to_its_name)
{
    int shape[2] = {mt_size, 1}, shape1[1] = {mt_size};
    const char *w = "w";
    dmesh_t m[6];
    dmesh_cache_info_t c0;

    m[0] = init_named(MPI_COMM_WORLD, 2, shape, D3);
    c0 = mt_cache(m[0]);
    m[1] = slice1(m[0], "d0");
    m[2] = flatten(m[1], "d0");
    MT_EQ(equal(m[1], m[2]), 1);
    m[3] = flatten(m[1], NULL);
    MT_EQ(equal(m[1], m[3]), 1);
    MT_EQ(mt_cache(m[0]).comms_mpi, c0.comms_mpi);
    /* A 1-D root flattened to its own name: an equal mesh (checked before
     * the root-name rule, as in PyTorch). */
    m[4] = init_named(MPI_COMM_WORLD, 1, shape1, &w);
    m[5] = flatten(m[4], "w");
    MT_EQ(equal(m[4], m[5]), 1);
    free_all(6, m);
}

/* Flatten of a root with every dim >= 2 creates one communicator, a second
 * flatten (same name, or another name of the same layout) none. */
MT_TEST(cache_flatten_once)
{
    int f[64 * 3];

    for (int k = 2; k <= 3; k++) {
        int nf = mt_factorisations(mt_size, k, 64, f);
        for (int i = 0; i < nf; i++) {
            int *s = f + i * k, ok = 1;
            dmesh_t m[4];
            dmesh_cache_info_t c0, c1, c2;
            for (int d = 0; d < k; d++)
                ok &= s[d] >= 2;
            if (!ok)
                continue;
            m[0] = init_named(MPI_COMM_WORLD, k, s, D3);
            c0 = mt_cache(m[0]);
            m[1] = flatten(m[0], "f");
            c1 = mt_cache(m[0]);
            m[2] = flatten(m[0], "f");
            m[3] = flatten(m[0], NULL);
            c2 = mt_cache(m[0]);
            MT_EQ(c1.comms_mpi, c0.comms_mpi + 1);
            MT_EQ(c2.comms_mpi, c1.comms_mpi);
            MT_EQ(equal(m[1], m[2]), 1);
            MT_CHECK(comm_of(m[1], 0) == comm_of(m[3], 0));
            free_all(4, m);
        }
    }
}

/* Unflatten dim d of a root of shape into sizes; checks the result with the
 * model, then unflattens again (other names) and checks that no
 * communicator was made and that the second one shares the first's. */
static void check_unflatten(int ndims, const int shape[], int d, int n, const int sizes[],
                            int named)
{
    static const char *const first[] = {"u0", "u1", "u2"}, *const second[] = {"v0", "v1", "v2"};
    const char *names1[DMESH_MAX_DIMS], *names2[DMESH_MAX_DIMS];
    mt_model_t m;
    mt_axis_t ax[DMESH_MAX_DIMS];
    dmesh_t root, u1 = DMESH_NULL, u2 = DMESH_NULL;
    dmesh_cache_info_t c0, c1;
    int nax = 0, nn1 = 0, nn2 = 0;
    MPI_Comm root_comms[DMESH_MAX_DIMS];

    mt_model_init(&m, ndims, shape, NULL);
    mt_model_split(&m, d, n, sizes);
    for (int i = 0; i < ndims; i++) {
        if (i != d) {
            ax[nax++] = mt_axis_dim(&m, i);
            names1[nn1++] = D3[i];
            names2[nn2++] = D3[i];
            continue;
        }
        for (int k = 0; k < n; k++) {
            ax[nax++] = mt_axis_digit(d, k);
            names1[nn1++] = first[k];
            names2[nn2++] = second[k];
        }
    }
    root = init_named(MPI_COMM_WORLD, ndims, shape, named ? D3 : NULL);
    for (int i = 0; i < ndims; i++)
        root_comms[i] = comm_of(root, i);
    MT_OK(dmesh_unflatten(root, d, n, sizes, named ? first : NULL, MPI_INFO_NULL, &u1));
    mt_check_mesh(u1, MPI_COMM_WORLD, &m, nax, ax, named ? names1 : NULL);
    /* The dims that were not split keep their communicators. */
    for (int i = 0, j = 0; i < ndims; i++, j++) {
        if (i == d) {
            j += n - 1;
            continue;
        }
        MT_CHECK(comm_of(u1, j) == root_comms[i]);
    }
    c0 = mt_cache(root);
    MT_OK(dmesh_unflatten(root, d, n, sizes, named ? second : NULL, MPI_INFO_NULL, &u2));
    c1 = mt_cache(root);
    MT_EQ(c1.comms_mpi, c0.comms_mpi);
    MT_CHECK(c1.hits - c0.hits == c1.lookups - c0.lookups);
    if (n >= 2 && sizes[0] >= 2 && sizes[n - 1] >= 2)
        MT_CHECK(c1.hits > c0.hits);
    mt_check_mesh(u2, MPI_COMM_WORLD, &m, nax, ax, named ? names2 : NULL);
    for (int i = 0; i < nax; i++)
        MT_CHECK(comm_of(u1, i) == comm_of(u2, i));
    if (!named)
        MT_EQ(equal(u1, u2), 1);
    dmesh_t all[3] = {u1, u2, root};
    free_all(3, all);
}

MT_TEST(unflatten_general)
{
    int f[64 * 3], g[64 * 3], shape[1] = {mt_size};

    for (int k = 1; k <= 3; k++) {
        int nf = mt_factorisations(mt_size, k, 64, f);
        for (int i = 0; i < nf; i++) {
            check_unflatten(1, shape, 0, k, f + i * k, 1);
            if (k == 2)
                check_unflatten(1, shape, 0, k, f + i * k, 0);
        }
    }
    /* Each dim of every 2-D shape, into every pair of factors. */
    int nf = mt_factorisations(mt_size, 2, 64, f);
    for (int i = 0; i < nf; i++)
        for (int d = 0; d < 2; d++) {
            int ng = mt_factorisations(f[2 * i + d], 2, 64, g);
            for (int j = 0; j < ng; j++)
                check_unflatten(2, f + 2 * i, d, 2, g + 2 * j, 1);
        }
}

/* Unflatten a slice (not the root): the groups split the root dim it holds. */
MT_TEST(unflatten_slice)
{
    int f[64 * 2], g[64 * 2], nf = mt_factorisations(mt_size, 2, 64, f);
    const char *uv[2] = {"u", "v"};

    for (int i = 0; i < nf; i++) {
        int *s = f + 2 * i, ng = mt_factorisations(s[1], 2, 64, g);
        for (int j = 0; j < ng; j++) {
            mt_model_t m;
            mt_axis_t ax[2] = {mt_axis_digit(1, 0), mt_axis_digit(1, 1)};
            dmesh_t p[3];
            mt_model_init(&m, 2, s, NULL);
            mt_model_split(&m, 1, 2, g + 2 * j);
            p[0] = init_named(MPI_COMM_WORLD, 2, s, D3);
            p[1] = slice1(p[0], "d1");
            p[2] = DMESH_NULL;
            MT_OK(dmesh_unflatten(p[1], 0, 2, g + 2 * j, uv, MPI_INFO_NULL, &p[2]));
            mt_check_mesh(p[2], MPI_COMM_WORLD, &m, 2, ax, uv);
            free_all(3, p);
        }
    }
}

/* dmesh_abort: afterwards dmesh_get_comm gives MPI_COMM_NULL and the meshes
 * of the universe can be freed. */
MT_TEST(abort_then_free)
{
    int shape[2] = {1, mt_size};
    dmesh_t m[3];
    MPI_Comm c = MPI_COMM_WORLD;

    m[0] = init_named(MPI_COMM_WORLD, 2, shape, D3);
    m[1] = slice1(m[0], "d1");
    m[2] = flatten(m[0], NULL);
    MT_OK(dmesh_abort(m[1]));
    for (int i = 0; i < 3; i++) {
        c = MPI_COMM_WORLD;
        MT_OK(dmesh_get_comm(m[i], 0, &c));
        MT_CHECK(c == MPI_COMM_NULL);
    }
    free_all(3, m);
    MT_RC(dmesh_abort(DMESH_NULL), DMESH_ERR_ARG);
    /* The communicator can carry new meshes. */
    m[0] = init_named(MPI_COMM_WORLD, 2, shape, D3);
    MT_CHECK(comm_of(m[0], 1) != MPI_COMM_NULL);
    free_all(1, m);
}

/* Unflattening a flattened root into the root's shape gives the root again,
 * with its communicators. */
MT_TEST(unflatten_flattened_root)
{
    int f[64 * 3];

    for (int k = 2; k <= 3; k++) {
        int nf = mt_factorisations(mt_size, k, 64, f);
        for (int i = 0; i < nf; i++) {
            int *s = f + i * k;
            dmesh_t m[3];
            dmesh_cache_info_t c0;
            m[0] = init_named(MPI_COMM_WORLD, k, s, D3);
            m[1] = flatten(m[0], NULL);
            c0 = mt_cache(m[0]);
            m[2] = DMESH_NULL;
            MT_OK(dmesh_unflatten(m[1], 0, k, s, D3, MPI_INFO_NULL, &m[2]));
            MT_EQ(mt_cache(m[0]).comms_mpi, c0.comms_mpi);
            MT_EQ(equal(m[2], m[0]), 1);
            for (int d = 0; d < k; d++)
                MT_CHECK(comm_of(m[2], d) == comm_of(m[0], d));
            free_all(3, m);
        }
    }
}

MT_TEST(concatenate_general)
{
    int f[64 * 3];

    for (int k = 2; k <= 3; k++) {
        int nf = mt_factorisations(mt_size, k, 64, f);
        for (int i = 0; i < nf; i++) {
            int *s = f + i * k;
            mt_model_t m;
            mt_axis_t ax[3];
            dmesh_t p[9];
            dmesh_cache_info_t c0;
            for (int j = 0; j < 9; j++)
                p[j] = DMESH_NULL;
            root_axes(&m, ax, k, s, NULL);
            p[0] = init_named(MPI_COMM_WORLD, k, s, D3);
            c0 = mt_cache(p[0]);
            if (k == 2) {
                p[1] = slice1(p[0], "d0");
                p[2] = slice1(p[0], "d1");
                MT_OK(dmesh_concatenate(2, (dmesh_t[]){p[1], p[2]}, &p[3]));
                MT_EQ(equal(p[3], p[0]), 1);
                mt_check_mesh(p[3], MPI_COMM_WORLD, &m, 2, ax, D3);
                MT_OK(dmesh_concatenate(1, &p[1], &p[4]));
                MT_EQ(equal(p[4], p[1]), 1);
            } else {
                p[1] = slice2(p[0], "d0", "d1");
                p[2] = slice1(p[0], "d2");
                MT_OK(dmesh_concatenate(2, (dmesh_t[]){p[1], p[2]}, &p[3]));
                MT_EQ(equal(p[3], p[0]), 1);
                p[4] = slice1(p[0], "d0");
                MT_OK(dmesh_concatenate(2, (dmesh_t[]){p[4], p[2]}, &p[5]));
                p[6] = slice2(p[0], "d0", "d2");
                MT_EQ(equal(p[5], p[6]), 1);
                mt_axis_t ax02[2] = {ax[0], ax[2]};
                const char *n02[2] = {"d0", "d2"};
                mt_check_mesh(p[5], MPI_COMM_WORLD, &m, 2, ax02, n02);
                p[8] = slice1(p[0], "d1");
                MT_OK(dmesh_concatenate(3, (dmesh_t[]){p[4], p[8], p[2]}, &p[7]));
                MT_EQ(equal(p[7], p[0]), 1);
            }
            MT_EQ(mt_cache(p[0]).comms_mpi, c0.comms_mpi);
            free_all(9, p);
        }
    }
}

MT_TEST(equality)
{
    int shape[1] = {mt_size}, ranks[MT_MAX_RANKS], rev[MT_MAX_RANKS], s2[2] = {1, mt_size},
        s2t[2] = {mt_size, 1};
    const char *w = "w", *v = "v";
    dmesh_t m[9];

    for (int i = 0; i < 9; i++)
        m[i] = DMESH_NULL;
    for (int i = 0; i < mt_size; i++) {
        ranks[i] = i;
        rev[i] = mt_size - 1 - i;
    }
    m[0] = init_named(MPI_COMM_WORLD, 1, shape, &w);
    m[1] = init_named(MPI_COMM_WORLD, 1, shape, &w);
    m[2] = init_named(MPI_COMM_WORLD, 1, shape, &v);
    m[3] = init_named(MPI_COMM_WORLD, 1, shape, NULL);
    MT_OK(dmesh_create(MPI_COMM_WORLD, "cpu", 1, shape, ranks, &w, MPI_INFO_NULL, &m[4]));
    MT_EQ(equal(m[0], m[0]), 1);
    MT_EQ(equal(m[0], m[1]), 1); /* separate universes built the same way */
    MT_EQ(equal(m[0], m[2]), 0); /* names */
    MT_EQ(equal(m[0], m[3]), 0); /* named and unnamed */
    MT_EQ(equal(m[0], m[4]), 1); /* create with the identity is init */
    m[5] = init_named(MPI_COMM_WORLD, 2, s2, D3);
    m[6] = init_named(MPI_COMM_WORLD, 2, s2t, D3);
    MT_EQ(equal(m[5], m[6]), mt_size == 1);
    if (mt_size >= 2) {
        MT_OK(dmesh_create(MPI_COMM_WORLD, "cpu", 1, shape, rev, &w, MPI_INFO_NULL, &m[7]));
        MT_EQ(equal(m[0], m[7]), 0); /* rank map */
        shape[0] = mt_size - 1;
        m[8] = init_named(MPI_COMM_WORLD, 1, shape, &w);
        MT_EQ(equal(m[0], m[8]), 0); /* shape */
    }
    free_all(9, m);
}

static void check_to_string(dmesh_t mesh)
{
    size_t n = 0, n2 = 0, n3 = 0;
    char *full, small[8];

    MT_OK(dmesh_to_string(mesh, NULL, 0, &n));
    MT_CHECK(n > 0);
    full = malloc(n + 8);
    memset(full, 'X', n + 8);
    MT_OK(dmesh_to_string(mesh, full, n + 1, &n2));
    MT_EQ(n2, n);
    MT_EQ(full[n], '\0');
    MT_EQ(strlen(full), n);
    MT_EQ(full[n + 1], 'X');
    /* Truncation: len - 1 characters and a NUL, needed unchanged. */
    memset(small, 'X', sizeof(small));
    MT_OK(dmesh_to_string(mesh, small, 4, &n3));
    MT_EQ(n3, n);
    MT_EQ(strlen(small), n < 3 ? n : 3);
    MT_CHECK(strncmp(small, full, strlen(small)) == 0);
    MT_EQ(small[4], 'X');
    memset(small, 'X', sizeof(small));
    MT_OK(dmesh_to_string(mesh, small, 1, NULL));
    MT_EQ(small[0], '\0');
    MT_EQ(small[1], 'X');
    /* A buffer of exactly n bytes loses the last character. */
    memset(full, 'X', n + 8);
    MT_OK(dmesh_to_string(mesh, full, n, NULL));
    MT_EQ(strlen(full), n - 1);
    free(full);
}

MT_TEST(to_string_rules)
{
    int shape[2] = {mt_size, 1}, part[1] = {mt_size > 1 ? mt_size - 1 : 1};
    dmesh_t m[3];

    m[0] = init_named(MPI_COMM_WORLD, 2, shape, D3);
    m[1] = init_named(MPI_COMM_WORLD, 1, part, NULL);
    m[2] = slice1(m[0], "d1");
    for (int i = 0; i < 3; i++)
        check_to_string(m[i]);
    free_all(3, m);
}

static void *thread_stack(void *arg)
{
    dmesh_t mesh = (dmesh_t)arg, cur = (dmesh_t)arg, popped = DMESH_NULL;
    long bad = 0;

    /* A new thread starts with an empty stack. */
    bad += dmesh_get_current(&cur) != DMESH_SUCCESS || cur != DMESH_NULL;
    bad += dmesh_push(mesh) != DMESH_SUCCESS;
    bad += dmesh_get_current(&cur) != DMESH_SUCCESS || cur != mesh;
    bad += dmesh_pop(&popped) != DMESH_SUCCESS || popped != mesh;
    bad += dmesh_pop(&popped) != DMESH_ERR_ARG;
    return (void *)bad;
}

MT_TEST(current_mesh_stack)
{
    int shape[1] = {mt_size};
    const char *w = "w";
    dmesh_t a, b, cur = DMESH_NULL, popped = DMESH_NULL;
    pthread_t th;
    void *bad = NULL;

    a = init_named(MPI_COMM_WORLD, 1, shape, &w);
    b = slice1(a, "w");
    MT_OK(dmesh_get_current(&cur));
    MT_CHECK(cur == DMESH_NULL);
    MT_OK(dmesh_push(a));
    MT_OK(dmesh_push(b));
    MT_OK(dmesh_get_current(&cur));
    MT_CHECK(cur == b);
    /* Another thread has its own stack and does not see this one. */
    MT_EQ(pthread_create(&th, NULL, thread_stack, b), 0);
    MT_EQ(pthread_join(th, &bad), 0);
    MT_EQ((long)bad, 0);
    MT_OK(dmesh_get_current(&cur));
    MT_CHECK(cur == b);
    MT_OK(dmesh_pop(&popped));
    MT_CHECK(popped == b);
    MT_OK(dmesh_get_current(&cur));
    MT_CHECK(cur == a);
    MT_OK(dmesh_pop(NULL));
    MT_OK(dmesh_get_current(&cur));
    MT_CHECK(cur == DMESH_NULL);
    popped = a;
    MT_RC(dmesh_pop(&popped), DMESH_ERR_ARG);
    MT_CHECK(popped == DMESH_NULL); /* an output handle: its null on failure */
    /* At most 64 deep. */
    for (int i = 0; i < 64; i++)
        MT_OK(dmesh_push(i % 2 ? a : b));
    MT_RC(dmesh_push(a), DMESH_ERR_ARG);
    for (int i = 63; i >= 0; i--) {
        MT_OK(dmesh_pop(&popped));
        MT_CHECK(popped == (i % 2 ? a : b));
    }
    MT_RC(dmesh_pop(NULL), DMESH_ERR_ARG);
    dmesh_t all[2] = {b, a};
    free_all(2, all);
}

struct query_job {
    dmesh_t mesh;
    int ndims, ranks[MT_MAX_RANKS], nranks, groups[3][MT_MAX_RANKS], coord[DMESH_MAX_DIMS];
    char text[512];
    long bad;
};

/* Queries from several threads at once give the main thread's answers;
 * each thread's failures leave its own dmesh_last_error(). */
static void *query_thread(void *arg)
{
    struct query_job *job = arg;
    int r[MT_MAX_RANKS], n, coord[DMESH_MAX_DIMS], member, eq, v;
    char text[512], want[64];
    const char *detail;

    for (int it = 0; it < 300; it++) {
        job->bad += dmesh_get_ranks(job->mesh, MT_MAX_RANKS, r, &n) != DMESH_SUCCESS ||
                    n != job->nranks || !mt_same_ints(r, job->ranks, n);
        for (int d = 0; d < job->ndims; d++)
            job->bad += dmesh_get_group_ranks(job->mesh, d, MT_MAX_RANKS, r, &n) != 0 ||
                        !mt_same_ints(r, job->groups[d], n);
        job->bad += dmesh_get_coordinate(job->mesh, DMESH_MAX_DIMS, coord, &member) != 0 ||
                    !mt_same_ints(coord, job->coord, job->ndims);
        job->bad += dmesh_to_string(job->mesh, text, sizeof(text), NULL) != 0 ||
                    strcmp(text, job->text) != 0;
        job->bad += dmesh_equal(job->mesh, job->mesh, &eq) != 0 || eq != 1;
        /* A failure of this thread: its own detail message. */
        snprintf(want, sizeof(want), "thread-%p-%d", (void *)job, it);
        job->bad += dmesh_get_dim_index(job->mesh, want, &v) != DMESH_ERR_NAME;
        detail = dmesh_last_error();
        job->bad += detail == NULL || strstr(detail, want) == NULL;
    }
    return NULL;
}

MT_TEST(queries_from_threads)
{
    int shape[3] = {1, 1, mt_size}, n, v, member;
    struct query_job jobs[4];
    pthread_t th[4];
    dmesh_t mesh = init_named(MPI_COMM_WORLD, 3, shape, D3);
    const char *mine;

    for (int t = 0; t < 4; t++) {
        struct query_job *job = &jobs[t];
        memset(job, 0, sizeof(*job));
        job->mesh = mesh;
        job->ndims = 3;
        MT_OK(dmesh_get_ranks(mesh, MT_MAX_RANKS, job->ranks, &job->nranks));
        for (int d = 0; d < 3; d++)
            MT_OK(dmesh_get_group_ranks(mesh, d, MT_MAX_RANKS, job->groups[d], &n));
        MT_OK(dmesh_get_coordinate(mesh, DMESH_MAX_DIMS, job->coord, &member));
        MT_OK(dmesh_to_string(mesh, job->text, sizeof(job->text), NULL));
    }
    MT_RC(dmesh_get_dim_index(mesh, "main-thread-name", &v), DMESH_ERR_NAME);
    for (int t = 0; t < 4; t++)
        MT_EQ(pthread_create(&th[t], NULL, query_thread, &jobs[t]), 0);
    for (int t = 0; t < 4; t++) {
        MT_EQ(pthread_join(th[t], NULL), 0);
        MT_EQ(jobs[t].bad, 0);
    }
    mine = dmesh_last_error();
    MT_CHECK(mine != NULL && strstr(mine, "main-thread-name") != NULL);
    free_all(1, &mesh);
}

/* Build the dim communicators of a mesh of shape over ranks by hand
 * (MPI_Comm_split) and make the mesh from them. */
static void check_from_comms(int ndims, const int shape[], const int ranks[])
{
    MPI_Comm comms[DMESH_MAX_DIMS];
    mt_model_t m;
    mt_axis_t ax[DMESH_MAX_DIMS];
    dmesh_t mesh = DMESH_NULL;
    int idx, coord[DMESH_MAX_DIMS];

    root_axes(&m, ax, ndims, shape, ranks);
    idx = mt_model_find(&m, mt_rank);
    for (int d = ndims - 1, rest = idx; d >= 0; d--) {
        coord[d] = rest % shape[d];
        rest /= shape[d];
    }
    for (int d = 0; d < ndims; d++) {
        int colour = 0;
        for (int e = 0; e < ndims; e++)
            if (e != d)
                colour = colour * shape[e] + coord[e];
        MPI_Comm_split(MPI_COMM_WORLD, idx < 0 ? MPI_UNDEFINED : colour, idx < 0 ? 0 : coord[d],
                       &comms[d]);
    }
    MT_OK(dmesh_from_comms(MPI_COMM_WORLD, "cpu", ndims, comms, shape, ranks, D3, &mesh));
    /* dmesh keeps its own duplicates. */
    for (int d = 0; d < ndims; d++)
        if (comms[d] != MPI_COMM_NULL)
            MPI_Comm_free(&comms[d]);
    mt_check_mesh(mesh, MPI_COMM_WORLD, &m, ndims, ax, D3);
    free_all(1, &mesh);
}

MT_TEST(from_comms_general)
{
    int id[MT_MAX_RANKS], rev[MT_MAX_RANKS], f[64 * 3], shape[1] = {mt_size}, nf;
    MPI_Comm comm;
    const char *w = "w";
    dmesh_t mesh = DMESH_NULL;
    mt_model_t m;
    mt_axis_t ax[1];

    for (int i = 0; i < mt_size; i++) {
        id[i] = i;
        rev[i] = mt_size - 1 - i;
    }
    check_from_comms(1, shape, id);
    check_from_comms(1, shape, rev);
    for (int k = 2; k <= 3; k++) {
        nf = mt_factorisations(mt_size, k, 64, f);
        for (int i = 0; i < nf; i++) {
            check_from_comms(k, f + i * k, id);
            check_from_comms(k, f + i * k, rev);
        }
    }
    if (mt_size >= 2) {
        shape[0] = mt_size - 1;
        check_from_comms(1, shape, rev); /* rank 0 passes MPI_COMM_NULL */
        shape[0] = mt_size;
    }
    /* One dim and no rank list: the mesh is the group of the communicator. */
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MT_OK(dmesh_from_comms(MPI_COMM_WORLD, "cpu", 1, &comm, shape, NULL, &w, &mesh));
    MPI_Comm_free(&comm);
    root_axes(&m, ax, 1, shape, NULL);
    mt_check_mesh(mesh, MPI_COMM_WORLD, &m, 1, ax, &w);
    free_all(1, &mesh);
}

MT_TEST(non_member)
{
    int shape[1] = {mt_size - 1}, s22[2] = {2, 2}, lr = -3, n = -3, coord[2] = {-3, -3};
    int is_member = -1, got[MT_MAX_RANKS], size = -1;
    const char *w = "w";
    dmesh_t m[6];
    MPI_Comm c = MPI_COMM_WORLD;
    mt_model_t model;
    mt_axis_t ax[2];

    if (mt_size < 2)
        return;
    for (int i = 0; i < 6; i++)
        m[i] = DMESH_NULL;
    m[0] = init_named(MPI_COMM_WORLD, 1, shape, &w);
    MT_CHECK(m[0] != DMESH_NULL);
    MT_OK(dmesh_get_coordinate(m[0], 1, coord, &is_member));
    MT_EQ(is_member, mt_rank < mt_size - 1);
    MT_OK(dmesh_get_size(m[0], &size));
    MT_EQ(size, mt_size - 1);
    if (mt_rank == mt_size - 1) {
        MT_EQ(coord[0], MPI_UNDEFINED);
        MT_EQ(coord[1], -3); /* only ndims entries are written */
        MT_OK(dmesh_get_comm(m[0], 0, &c));
        MT_CHECK(c == MPI_COMM_NULL);
        MT_RC(dmesh_get_local_rank(m[0], 0, &lr), DMESH_ERR_NOT_MEMBER);
        MT_EQ(lr, -3);
        MT_RC(dmesh_get_group_ranks(m[0], 0, MT_MAX_RANKS, got, &n), DMESH_ERR_NOT_MEMBER);
        MT_EQ(n, -3);
        /* One copy: the non-member still gets the mesh tensor. */
        MT_OK(dmesh_get_ranks(m[0], MT_MAX_RANKS, got, &n));
        MT_EQ(n, mt_size - 1);
        for (int i = 0; i < n && i < MT_MAX_RANKS; i++)
            MT_EQ(got[i], i);
    }
    /* Derived meshes of a non-member: collective calls still include it. */
    root_axes(&model, ax, 1, shape, NULL);
    m[1] = slice1(m[0], "w");
    mt_check_mesh(m[1], MPI_COMM_WORLD, &model, 1, ax, &w);
    m[2] = flatten(m[0], "flat");
    const char *flat = "flat";
    mt_check_mesh(m[2], MPI_COMM_WORLD, &model, 1, ax, &flat);
    {
        int sizes[2] = {1, mt_size - 1};
        const char *ab[2] = {"a", "b"};
        mt_model_t mu;
        mt_axis_t au[2] = {mt_axis_digit(0, 0), mt_axis_digit(0, 1)};
        mt_model_init(&mu, 1, shape, NULL);
        mt_model_split(&mu, 0, 2, sizes);
        MT_OK(dmesh_unflatten(m[0], 0, 2, sizes, ab, MPI_INFO_NULL, &m[3]));
        mt_check_mesh(m[3], MPI_COMM_WORLD, &mu, 2, au, ab);
    }
    if (mt_size >= 5) {
        /* Two copies of a slice, and ranks in neither. */
        mt_model_t m22;
        mt_axis_t ax22[2];
        root_axes(&m22, ax22, 2, s22, NULL);
        m[4] = init_named(MPI_COMM_WORLD, 2, s22, D3);
        m[5] = slice1(m[4], "d1");
        mt_check_mesh(m[5], MPI_COMM_WORLD, &m22, 1, &ax22[1], &D3[1]);
        if (mt_rank >= 4)
            MT_RC(dmesh_get_ranks(m[5], MT_MAX_RANKS, got, &n), DMESH_ERR_NOT_MEMBER);
    }
    free_all(6, m);
}

/* Communicator creations by the library, counted through the MPI profiling
 * interface (the program's definitions take the library's calls first). */
static long creations;

int MPI_Comm_split(MPI_Comm comm, int colour, int key, MPI_Comm *out)
{
    creations++;
    return PMPI_Comm_split(comm, colour, key, out);
}

int MPI_Comm_create_group(MPI_Comm comm, MPI_Group group, int tag, MPI_Comm *out)
{
    creations++;
    return PMPI_Comm_create_group(comm, group, tag, out);
}

/* Allreduces by anyone (the agreement is one), counted the same way. */
static long allreduces;

int MPI_Allreduce(const void *in, void *out, int count, MPI_Datatype type, MPI_Op op, MPI_Comm comm)
{
    allreduces++;
    return PMPI_Allreduce(in, out, count, type, op, comm);
}

/* With the check off, a flatten whose communicator is cached communicates
 * nothing; a new one makes one communicator, agreeing on the reservation
 * and on the creation: two allreduces when launched plainly; under
 * --with-ft ulfm one, the other agreement being one MPIX_Comm_agree
 * (dmesh_agree_outcome), which this count does not see. Both launches
 * pass. */
MT_TEST(cached_flatten_is_local_without_check)
{
    int shape[2] = {2, mt_size / 2};
    dmesh_t m = DMESH_NULL, f1 = DMESH_NULL, f2 = DMESH_NULL;
    MPI_Info info;
    long a0, c0;

    if (mt_size < 4 || mt_size % 2 != 0) /* a 2 x 1 flattened is its dim 0: cached */
        return;
    MPI_Info_create(&info);
    MPI_Info_set(info, "dmesh_check", "false");
    MT_OK(dmesh_init(MPI_COMM_WORLD, "cpu", 2, shape, D3, info, &m));
    a0 = allreduces;
    c0 = creations;
    MT_OK(dmesh_flatten(m, "all", info, &f1));
    MT_EQ(creations - c0, 1);
    MT_EQ(allreduces - a0, test_launched_ft() ? 1 : 2);
    a0 = allreduces;
    c0 = creations;
    MT_OK(dmesh_flatten(m, "all", info, &f2));
    MT_EQ(creations - c0, 0);
    MT_EQ(allreduces - a0, 0);
    MPI_Info_free(&info);
    dmesh_free(&f2);
    dmesh_free(&f1);
    dmesh_free(&m);
}

/* Dims of size 1 share one cache entry (the empty axis): it is made once,
 * whichever creation strategy, and every dim works. */
MT_TEST(size1_dims_made_once)
{
    int shape[4] = {1, mt_size, 1, 1}, one = 1, total;
    const char *strategy[2] = {"group", "split"}, *names[4] = {"d0", "d1", "d2", "d3"};
    dmesh_t m = DMESH_NULL;

    for (int k = 0; k < 2; k++) {
        MPI_Info info;
        long before;
        MPI_Info_create(&info);
        MPI_Info_set(info, "dmesh_comm_create", strategy[k]);
        before = creations;
        MT_OK(dmesh_init(MPI_COMM_WORLD, "cpu", 4, shape, names, info, &m));
        MPI_Info_free(&info);
        /* the world along "d1" (when it has more than one rank), and the empty axis */
        MT_EQ(creations - before, mt_size > 1 ? 2 : 1);
        for (int d = 0; m != DMESH_NULL && d < 4; d++) {
            MPI_Comm c = MPI_COMM_NULL;
            MT_OK(dmesh_get_comm(m, d, &c));
            MT_CHECK(c != MPI_COMM_NULL);
            total = 0;
            if (c != MPI_COMM_NULL)
                MPI_Allreduce(&one, &total, 1, MPI_INT, MPI_SUM, c);
            MT_EQ(total, shape[d]);
        }
        dmesh_free(&m);
    }
}

MT_TEST(cache_counts)
{
    int shape[2] = {2, mt_size / 2}, sizes[2];
    dmesh_t m[8];
    dmesh_cache_info_t c0, c1, c2;
    const char *un[2] = {"x", "y"};

    if (mt_size < 4 || mt_size % 2 != 0)
        return;
    for (int i = 0; i < 8; i++)
        m[i] = DMESH_NULL;
    m[0] = init_named(MPI_COMM_WORLD, 2, shape, D3);
    c0 = mt_cache(m[0]);
    MT_CHECK(c0.comms_mpi >= 2);
    MT_EQ(c0.comms_nccl, 0);
    m[1] = slice1(m[0], "d0");
    m[2] = slice1(m[0], "d1");
    m[3] = slice2(m[0], "d0", "d1");
    MT_EQ(mt_cache(m[0]).comms_mpi, c0.comms_mpi);
    MT_OK(dmesh_concatenate(2, (dmesh_t[]){m[1], m[2]}, &m[4]));
    MT_EQ(mt_cache(m[0]).comms_mpi, c0.comms_mpi);
    m[5] = flatten(m[0], "all");
    c1 = mt_cache(m[0]);
    MT_EQ(c1.comms_mpi, c0.comms_mpi + 1);
    /* The flat dim unflattened the other way round: new layouts once. */
    sizes[0] = mt_size / 2;
    sizes[1] = 2;
    MT_OK(dmesh_unflatten(m[5], 0, 2, sizes, un, MPI_INFO_NULL, &m[6]));
    c1 = mt_cache(m[0]);
    MT_OK(dmesh_unflatten(m[5], 0, 2, sizes, un, MPI_INFO_NULL, &m[7]));
    c2 = mt_cache(m[0]);
    MT_EQ(c2.comms_mpi, c1.comms_mpi);
    MT_EQ(c2.hits - c1.hits, c2.lookups - c1.lookups);
    MT_CHECK(c2.hits >= c1.hits + 2);
    MT_EQ(equal(m[6], m[7]), 1);
    /* All meshes of the universe report the same figures. */
    c1 = mt_cache(m[7]);
    MT_EQ(c1.comms_mpi, c2.comms_mpi);
    MT_EQ(c1.lookups, c2.lookups);
    free_all(8, m);
}

/* dmesh_comm_create=group gives the groups of split. */
MT_TEST(option_comm_create_group)
{
    int f[64 * 2], nf;
    MPI_Info group = mt_info1("dmesh_comm_create", "group");
    MPI_Info split = mt_info1("dmesh_comm_create", "split");

    nf = mt_factorisations(mt_size, 2, 64, f);
    for (int i = 0; i < nf; i++) {
        int *s = f + 2 * i;
        mt_model_t m;
        mt_axis_t ax[2], fax;
        dmesh_t a = DMESH_NULL, b = DMESH_NULL, fa = DMESH_NULL, ua = DMESH_NULL;
        const char *fn = "d0_d1";
        root_axes(&m, ax, 2, s, NULL);
        MT_OK(dmesh_init(MPI_COMM_WORLD, "cpu", 2, s, D3, group, &a));
        MT_OK(dmesh_init(MPI_COMM_WORLD, "cpu", 2, s, D3, split, &b));
        mt_check_mesh(a, MPI_COMM_WORLD, &m, 2, ax, D3);
        mt_check_mesh(b, MPI_COMM_WORLD, &m, 2, ax, D3);
        MT_EQ(equal(a, b), 1);
        for (int d = 0; d < 2; d++) {
            int ga[MT_MAX_RANKS], gb[MT_MAX_RANKS];
            int na = mt_comm_members(a, d, MPI_COMM_WORLD, ga);
            int nb = mt_comm_members(b, d, MPI_COMM_WORLD, gb);
            MT_CHECK(na == nb && na > 0 && mt_same_ints(ga, gb, na));
        }
        MT_OK(dmesh_flatten(a, NULL, group, &fa));
        fax = mt_axis_join(ax[0], ax[1]);
        mt_check_mesh(fa, MPI_COMM_WORLD, &m, 1, &fax, &fn);
        MT_OK(dmesh_unflatten(fa, 0, 2, s, D3, group, &ua));
        mt_check_mesh(ua, MPI_COMM_WORLD, &m, 2, ax, D3);
        dmesh_t all[4] = {ua, fa, b, a};
        free_all(4, all);
    }
    /* A mesh smaller than the world, where some ranks are in no group. */
    if (mt_size >= 3) {
        int s[2] = {2, (mt_size - 1) / 2};
        mt_model_t m;
        mt_axis_t ax[2];
        dmesh_t a = DMESH_NULL;
        root_axes(&m, ax, 2, s, NULL);
        MT_OK(dmesh_init(MPI_COMM_WORLD, "cpu", 2, s, D3, group, &a));
        mt_check_mesh(a, MPI_COMM_WORLD, &m, 2, ax, D3);
        free_all(1, &a);
    }
    MPI_Info_free(&group);
    MPI_Info_free(&split);
}

/* Options that must be accepted on "cpu". */
MT_TEST(option_values_accepted)
{
    static const char *const kv[][2] = {
        {"dmesh_check", "false"},    {"dmesh_check", "true"},          {"dmesh_backend", "mpi"},
        {"dmesh_backend.d1", "mpi"}, {"dmesh_backend.0", "mpi"},       {"dmesh_bind", "none"},
        {"dmesh_bind", "auto"},      {"dmesh_unknown_key", "whatever"}};
    int shape[2] = {1, mt_size};
    mt_model_t m;
    mt_axis_t ax[2];

    root_axes(&m, ax, 2, shape, NULL);
    for (size_t i = 0; i < sizeof(kv) / sizeof(kv[0]); i++) {
        MPI_Info info = mt_info1(kv[i][0], kv[i][1]);
        dmesh_t a = DMESH_NULL, f = DMESH_NULL;
        int rc = MT_OK(dmesh_init(MPI_COMM_WORLD, "cpu", 2, shape, D3, info, &a));
        if (rc != DMESH_SUCCESS)
            mt_fail(__FILE__, __LINE__, "option %s=%s refused", kv[i][0], kv[i][1]);
        mt_check_mesh(a, MPI_COMM_WORLD, &m, 2, ax, D3);
        /* Per-dim keys name the dims of the call's result: none of the flat mesh's. */
        MT_OK(dmesh_flatten(a, "f", strchr(kv[i][0], '.') ? MPI_INFO_NULL : info, &f));
        dmesh_t all[2] = {f, a};
        free_all(2, all);
        MPI_Info_free(&info);
    }
    /* Two per-dim keys for different dims; per-dim keys of derived calls. */
    MPI_Info info = mt_info2("dmesh_backend.d0", "mpi", "dmesh_backend.1", "mpi");
    MPI_Info fi = mt_info1("dmesh_backend.f", "mpi");
    MPI_Info ui = mt_info2("dmesh_backend.u", "mpi", "dmesh_backend.1", "mpi");
    dmesh_t a = DMESH_NULL, f = DMESH_NULL, u = DMESH_NULL;
    MT_OK(dmesh_init(MPI_COMM_WORLD, "cpu", 2, shape, D3, info, &a));
    MT_OK(dmesh_flatten(a, "f", fi, &f));
    MT_OK(dmesh_unflatten(f, 0, 2, shape, (const char *[]){"u", "v"}, ui, &u));
    dmesh_t all[3] = {u, f, a};
    free_all(3, all);
    MPI_Info_free(&info);
    MPI_Info_free(&fi);
    MPI_Info_free(&ui);
}

/* ---- program ------------------------------------------------------------ */

static Suite *mesh_suite(void)
{
    Suite *s = suite_create("mesh");
    TCase *facts = tcase_create("facts8");
    TCase *general = tcase_create("general");

    tcase_add_test(facts, fact_create_cube);
    tcase_add_test(facts, fact_init_cube_local_ranks);
    tcase_add_test(facts, fact_slice_2x4);
    tcase_add_test(facts, fact_slice_dp_cp);
    tcase_add_test(facts, fact_flatten_dp_cp);
    tcase_add_test(facts, fact_flatten_shard_cp);
    tcase_add_test(facts, flatten_transposed_slice);
    tcase_add_test(facts, fact_unflatten_dp);
    tcase_add_test(facts, fact_unflatten_world_shared);
    tcase_add_test(facts, fact_concatenate);
    suite_add_tcase(s, facts);

    tcase_add_test(general, init_shapes);
    tcase_add_test(general, init_names_boundary);
    tcase_add_test(general, create_permuted);
    tcase_add_test(general, dims_zero_init);
    tcase_add_test(general, dims_zero_init_8);
    tcase_add_test(general, dims_zero_create);
    tcase_add_test(general, sub_communicator_ranks);
    tcase_add_test(general, slice_general);
    tcase_add_test(general, flatten_general);
    tcase_add_test(general, flatten_one_dim_to_its_name);
    tcase_add_test(general, cache_flatten_once);
    tcase_add_test(general, unflatten_general);
    tcase_add_test(general, unflatten_slice);
    tcase_add_test(general, unflatten_flattened_root);
    tcase_add_test(general, concatenate_general);
    tcase_add_test(general, equality);
    tcase_add_test(general, to_string_rules);
    tcase_add_test(general, current_mesh_stack);
    tcase_add_test(general, queries_from_threads);
    tcase_add_test(general, from_comms_general);
    tcase_add_test(general, non_member);
    tcase_add_test(general, cache_counts);
    tcase_add_test(general, size1_dims_made_once);
    tcase_add_test(general, cached_flatten_is_local_without_check);
    tcase_add_test(general, option_comm_create_group);
    tcase_add_test(general, option_values_accepted);
    tcase_add_test(general, abort_then_free);
    suite_add_tcase(s, general);
    return s;
}

int main(int argc, char **argv)
{
    int provided, failed;

    MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
    /* dmesh raises its failures on these handlers (fatal by default): here
     * they return, and the classes are checked. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &mt_size);
    failed = mt_run_suite(mesh_suite());
    MPI_Finalize();
    return failed == 0 ? 0 : 1;
}
