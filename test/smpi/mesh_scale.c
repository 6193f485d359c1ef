/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mesh_scale: the mesh operations that matter at scale, checked at any
 * number of ranks (make check-smpi runs it at 1,024 and 4,096 simulated
 * ranks under SimGrid's SMPI; it runs under any MPI).
 *
 * On a (n/32, 4, 8) mesh (dp, pp, tp) over MPI_COMM_WORLD: dmesh_init, and
 * dmesh_create on the reversed rank list, dmesh_from_comms on communicators
 * split by hand, dmesh_slice, dmesh_flatten, dmesh_unflatten and
 * dmesh_concatenate of their results. Every communicator of every
 * dimension is checked against the layout: MPI_Group_translate_ranks of
 * its members to MPI_COMM_WORLD must give, in order, the ranks the layout
 * puts in the caller's group, and an allreduce of the world ranks over it
 * their sum. Then the cache: flattening again must give the registered
 * mesh and unflattening again count cache hits, neither creating a
 * communicator. Then dmesh_get_all_groups and
 * dmesh_shift against MPI_Cart_create + MPI_Cart_sub / MPI_Cart_shift.
 * Rank 0 prints "mesh_scale: N ranks: ok, C checks" or the failures; the
 * exit status is 1 on any failure.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>
#include <dmesh.h>

#define MAXF 4

/* One dimension of a mesh as mixed-radix digits of the row-major index of
 * the root mesh: factor k has size[k] values at stride[k], outermost first. */
typedef struct {
    int n;
    int size[MAXF], stride[MAXF];
} dimspec_t;

static int world_rank, world_size;
static long failures, checks;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        checks++;                                                                                  \
        if (!(cond)) {                                                                             \
            if (failures++ < 5) {                                                                  \
                fprintf(stderr, "rank %d: %s:%d: ", world_rank, __FILE__, __LINE__);               \
                fprintf(stderr, __VA_ARGS__);                                                      \
                fputc('\n', stderr);                                                               \
            }                                                                                      \
        }                                                                                          \
    } while (0)

#define OK(call)                                                                                   \
    do {                                                                                           \
        int rc_ = (call);                                                                          \
        CHECK(rc_ == DMESH_SUCCESS, "%s: %s (%s)", #call, dmesh_error_string(rc_),                 \
              dmesh_last_error());                                                                 \
    } while (0)

/* World rank of row-major index i of the root mesh: identity or reversed. */
static int map_rank(int reversed, int i)
{
    return reversed ? world_size - 1 - i : i;
}

static int root_index_of(int reversed, int rank)
{
    return reversed ? world_size - 1 - rank : rank;
}

/* The root index of member i of the caller's group along dim, and the
 * caller's own position in it. */
static int member_root_index(const dimspec_t *d, int my_root, int i)
{
    int base = my_root, idx = 0;

    for (int k = d->n - 1; k >= 0; k--) {
        base -= (my_root / d->stride[k]) % d->size[k] * d->stride[k];
        idx += i % d->size[k] * d->stride[k];
        i /= d->size[k];
    }
    return base + idx;
}

static int my_position(const dimspec_t *d, int my_root)
{
    int pos = 0;

    for (int k = 0; k < d->n; k++)
        pos = pos * d->size[k] + (my_root / d->stride[k]) % d->size[k];
    return pos;
}

static int dim_size(const dimspec_t *d)
{
    int s = 1;

    for (int k = 0; k < d->n; k++)
        s *= d->size[k];
    return s;
}

/* The world ranks of the n members of comm, in comm's rank order (world:
 * MPI_COMM_WORLD's group); malloc'd. */
static int *world_ranks_of(MPI_Comm comm, int n, MPI_Group world)
{
    int *local = malloc(2 * sizeof(int) * (size_t)n), *out = malloc(sizeof(int) * (size_t)n);
    MPI_Group group;

    for (int i = 0; i < n; i++)
        local[i] = i;
    MPI_Comm_group(comm, &group);
    MPI_Group_translate_ranks(group, n, local, world, out);
    MPI_Group_free(&group);
    free(local);
    return out;
}

/* Every dimension of mesh against its specification. */
static void check_mesh(const char *what, dmesh_t mesh, int ndims, const dimspec_t *dims,
                       int reversed)
{
    int my_root = root_index_of(reversed, world_rank), nd = -1;
    MPI_Group world_group;

    OK(dmesh_get_ndims(mesh, &nd));
    CHECK(nd == ndims, "%s: %d dimensions, expected %d", what, nd, ndims);
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    for (int d = 0; d < ndims && nd == ndims; d++) {
        int n = dim_size(&dims[d]), size = -1, rank = -1;
        long sum = -1, expected_sum = 0, mine = world_rank;
        MPI_Comm comm = MPI_COMM_NULL;
        int *translated;

        OK(dmesh_get_comm(mesh, d, &comm));
        if (comm == MPI_COMM_NULL) {
            CHECK(0, "%s: dim %d: no communicator", what, d);
            continue;
        }
        MPI_Comm_size(comm, &size);
        MPI_Comm_rank(comm, &rank);
        CHECK(size == n, "%s: dim %d: %d members, expected %d", what, d, size, n);
        CHECK(rank == my_position(&dims[d], my_root), "%s: dim %d: rank %d, expected %d", what, d,
              rank, my_position(&dims[d], my_root));
        if (size != n)
            continue;
        translated = world_ranks_of(comm, n, world_group);
        for (int i = 0; i < n; i++) {
            int want = map_rank(reversed, member_root_index(&dims[d], my_root, i));

            expected_sum += want;
            CHECK(translated[i] == want, "%s: dim %d: member %d is world rank %d, expected %d",
                  what, d, i, translated[i], want);
        }
        free(translated);
        MPI_Allreduce(&mine, &sum, 1, MPI_LONG, MPI_SUM, comm);
        CHECK(sum == expected_sum, "%s: dim %d: allreduce %ld, expected %ld", what, d, sum,
              expected_sum);
    }
    MPI_Group_free(&world_group);
}

/* Cartesian comparisons: dmesh_get_all_groups and dmesh_shift against
 * MPI_Cart_sub and MPI_Cart_shift of a Cartesian communicator of the same
 * shape (identity layout, no reordering). */
static void check_cart(dmesh_t mesh, int ndims, const int shape[])
{
    int periods[MAXF] = {1, 1, 1, 1};
    MPI_Comm cart;
    MPI_Group cart_group, world_group;

    if (MPI_Cart_create(MPI_COMM_WORLD, ndims, shape, periods, 0, &cart) != MPI_SUCCESS) {
        CHECK(0, "MPI_Cart_create failed");
        return;
    }
    MPI_Comm_group(cart, &cart_group);
    MPI_Comm_group(MPI_COMM_WORLD, &world_group);
    for (int d = 0; d < ndims; d++) {
        int remain[MAXF] = {0}, n = shape[d], ngroups = 0, size = 0, found = -1;
        int *all, *mine;
        MPI_Comm sub, dim_comm;

        remain[d] = 1;
        MPI_Cart_sub(cart, remain, &sub);
        mine = world_ranks_of(sub, n, world_group);
        MPI_Comm_free(&sub);
        /* The groups of the layout: the caller's row must be Cart_sub's. */
        OK(dmesh_get_all_groups(mesh, d, 0, 0, NULL, &ngroups, &size));
        CHECK(size == n && (long)ngroups * n == world_size,
              "dmesh_get_all_groups: dim %d: %d groups of %d", d, ngroups, size);
        if (size == n && (long)ngroups * n == world_size) {
            all = malloc(sizeof(int) * (size_t)ngroups * n);
            OK(dmesh_get_all_groups(mesh, d, ngroups, n, all, &ngroups, &size));
            for (int g = 0; g < ngroups && found < 0; g++)
                if (memcmp(all + (size_t)g * n, mine, sizeof(int) * n) == 0)
                    found = g;
            CHECK(found >= 0, "dmesh_get_all_groups: dim %d: MPI_Cart_sub's group missing", d);
            free(all);
        }
        /* Neighbours at +-1 and +2, periodic and not, as world ranks. */
        OK(dmesh_get_comm(mesh, d, &dim_comm));
        for (int periodic = 0; periodic < 2; periodic++) {
            MPI_Comm c = cart;

            if (!periodic) {
                int np[MAXF] = {0};

                MPI_Cart_create(MPI_COMM_WORLD, ndims, shape, np, 0, &c);
            }
            for (int disp = -1; disp <= 2; disp += 3) {
                int src, dst, csrc, cdst, in[2], out[2], wc[2], wd[2];
                MPI_Group dim_group;

                OK(dmesh_shift(mesh, d, disp, periodic, &src, &dst));
                MPI_Cart_shift(c, d, disp, &csrc, &cdst);
                in[0] = src;
                in[1] = dst;
                MPI_Comm_group(dim_comm, &dim_group);
                for (int k = 0; k < 2; k++)
                    out[k] = in[k] == MPI_PROC_NULL ? MPI_PROC_NULL : -2;
                for (int k = 0; k < 2; k++)
                    if (in[k] != MPI_PROC_NULL)
                        MPI_Group_translate_ranks(dim_group, 1, &in[k], world_group, &out[k]);
                MPI_Group_free(&dim_group);
                wc[0] = csrc;
                wc[1] = cdst;
                for (int k = 0; k < 2; k++) {
                    wd[k] = wc[k];
                    if (wc[k] != MPI_PROC_NULL)
                        MPI_Group_translate_ranks(cart_group, 1, &wc[k], world_group, &wd[k]);
                }
                CHECK(out[0] == wd[0] && out[1] == wd[1],
                      "dmesh_shift dim %d disp %d periodic %d: (%d, %d), MPI_Cart_shift (%d, %d)",
                      d, disp, periodic, out[0], out[1], wd[0], wd[1]);
            }
            if (!periodic)
                MPI_Comm_free(&c);
        }
        free(mine);
    }
    MPI_Group_free(&cart_group);
    MPI_Group_free(&world_group);
    MPI_Comm_free(&cart);
}

static dimspec_t root_dim(const int shape[], int ndims, int d)
{
    dimspec_t s = {1, {shape[d]}, {1}};

    for (int e = d + 1; e < ndims; e++)
        s.stride[0] *= shape[e];
    return s;
}

int main(int argc, char **argv)
{
    const char *names[3] = {"dp", "pp", "tp"};
    int shape[3], *ranks;
    dimspec_t root[3];
    dmesh_t mesh = DMESH_NULL, rev = DMESH_NULL, fc = DMESH_NULL, sl = DMESH_NULL;
    dmesh_t flat = DMESH_NULL, flat2 = DMESH_NULL, unfl = DMESH_NULL, unfl2 = DMESH_NULL;
    dmesh_t pp = DMESH_NULL, tp = DMESH_NULL, cat = DMESH_NULL;
    MPI_Comm dim_comms[3];
    dmesh_cache_info_t i0, i1, i2;
    double t0, t_init;
    long total_failures = 0, total_checks = 0;

    MPI_Init(&argc, &argv);
    /* dmesh raises its failures on these handlers (fatal by default): here
     * they return, and the classes are checked. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    if (world_size % 32 != 0) {
        if (world_rank == 0)
            fprintf(stderr, "mesh_scale: needs a multiple of 32 ranks, not %d\n", world_size);
        MPI_Finalize();
        return 2;
    }
    shape[0] = world_size / 32;
    shape[1] = 4;
    shape[2] = 8;
    for (int d = 0; d < 3; d++)
        root[d] = root_dim(shape, 3, d);

    /* dmesh_init: identity layout. */
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    OK(dmesh_init(MPI_COMM_WORLD, "cpu", 3, shape, names, MPI_INFO_NULL, &mesh));
    t_init = MPI_Wtime() - t0;
    check_mesh("dmesh_init", mesh, 3, root, 0);

    /* dmesh_create: the reversed rank list. */
    ranks = malloc(sizeof(int) * (size_t)world_size);
    for (int i = 0; i < world_size; i++)
        ranks[i] = world_size - 1 - i;
    OK(dmesh_create(MPI_COMM_WORLD, "cpu", 3, shape, ranks, names, MPI_INFO_NULL, &rev));
    check_mesh("dmesh_create (reversed)", rev, 3, root, 1);

    /* dmesh_from_comms: one MPI_Comm_split per dimension by hand. */
    for (int d = 0; d < 3; d++) {
        int digit = world_rank / root[d].stride[0] % shape[d];

        MPI_Comm_split(MPI_COMM_WORLD, world_rank - digit * root[d].stride[0], digit,
                       &dim_comms[d]);
    }
    for (int i = 0; i < world_size; i++)
        ranks[i] = i;
    OK(dmesh_from_comms(MPI_COMM_WORLD, "cpu", 3, dim_comms, shape, ranks, names, &fc));
    for (int d = 0; d < 3; d++)
        MPI_Comm_free(&dim_comms[d]);
    check_mesh("dmesh_from_comms", fc, 3, root, 0);
    free(ranks);

    /* dmesh_slice (dp, tp), local. */
    {
        const char *dptp[2] = {"dp", "tp"};
        dimspec_t s[2] = {root[0], root[2]};

        OK(dmesh_slice(mesh, 2, dptp, &sl));
        if (sl != DMESH_NULL)
            check_mesh("dmesh_slice (dp, tp)", sl, 2, s, 0);
    }

    /* dmesh_flatten of the slice: one dimension, dp-major then tp. */
    OK(dmesh_get_cache_info(mesh, &i0));
    if (sl != DMESH_NULL) {
        dimspec_t f = {2, {shape[0], shape[2]}, {root[0].stride[0], 1}};

        OK(dmesh_flatten(sl, "dp_tp", MPI_INFO_NULL, &flat));
        if (flat != DMESH_NULL)
            check_mesh("dmesh_flatten (dp, tp)", flat, 1, &f, 0);
        OK(dmesh_get_cache_info(mesh, &i1));
        OK(dmesh_flatten(sl, "dp_tp", MPI_INFO_NULL, &flat2));
        OK(dmesh_get_cache_info(mesh, &i2));
        CHECK(i1.comms_mpi > i0.comms_mpi, "flatten created no communicator (%d, %d)", i0.comms_mpi,
              i1.comms_mpi);
        /* the registered name: the same mesh again, nothing created */
        CHECK(i2.comms_mpi == i1.comms_mpi, "flatten again: communicators %d -> %d", i1.comms_mpi,
              i2.comms_mpi);
        if (flat != DMESH_NULL && flat2 != DMESH_NULL) {
            int equal = 0;

            OK(dmesh_equal(flat, flat2, &equal));
            CHECK(equal, "flatten again: a different mesh");
        }
    }

    /* dmesh_unflatten of tp (8) into (2, 4). */
    {
        const char *sub[2] = {"tp_hi", "tp_lo"};
        const int sizes[2] = {2, 4};
        dimspec_t u[4] = {root[0], root[1], {1, {2}, {4}}, {1, {4}, {1}}};

        OK(dmesh_unflatten(mesh, 2, 2, sizes, sub, MPI_INFO_NULL, &unfl));
        if (unfl != DMESH_NULL)
            check_mesh("dmesh_unflatten (tp -> 2 x 4)", unfl, 4, u, 0);
        OK(dmesh_get_cache_info(mesh, &i1));
        OK(dmesh_unflatten(mesh, 2, 2, sizes, sub, MPI_INFO_NULL, &unfl2));
        OK(dmesh_get_cache_info(mesh, &i2));
        CHECK(i2.comms_mpi == i1.comms_mpi && i2.hits > i1.hits,
              "unflatten again: communicators %d -> %d, hits %ld -> %ld", i1.comms_mpi,
              i2.comms_mpi, i1.hits, i2.hits);
    }

    /* dmesh_concatenate of the slices pp and tp: local. */
    {
        const char *n_pp[1] = {"pp"}, *n_tp[1] = {"tp"};
        dimspec_t c[2] = {root[1], root[2]};

        OK(dmesh_slice(mesh, 1, n_pp, &pp));
        OK(dmesh_slice(mesh, 1, n_tp, &tp));
        OK(dmesh_get_cache_info(mesh, &i1));
        if (pp != DMESH_NULL && tp != DMESH_NULL) {
            dmesh_t two[2] = {pp, tp};

            OK(dmesh_concatenate(2, two, &cat));
            if (cat != DMESH_NULL)
                check_mesh("dmesh_concatenate (pp, tp)", cat, 2, c, 0);
        }
        OK(dmesh_get_cache_info(mesh, &i2));
        CHECK(i2.comms_mpi == i1.comms_mpi, "slice + concatenate created communicators");
    }

    check_cart(mesh, 3, shape);

    OK(dmesh_free(&cat));
    OK(dmesh_free(&tp));
    OK(dmesh_free(&pp));
    OK(dmesh_free(&unfl2));
    OK(dmesh_free(&unfl));
    OK(dmesh_free(&flat2));
    OK(dmesh_free(&flat));
    OK(dmesh_free(&sl));
    OK(dmesh_free(&fc));
    OK(dmesh_free(&rev));
    OK(dmesh_free(&mesh));
    CHECK(mesh == DMESH_NULL, "dmesh_free left the handle");

    MPI_Reduce(&failures, &total_failures, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Reduce(&checks, &total_checks, 1, MPI_LONG, MPI_SUM, 0, MPI_COMM_WORLD);
    MPI_Bcast(&total_failures, 1, MPI_LONG, 0, MPI_COMM_WORLD);
    if (world_rank == 0) {
        if (total_failures == 0)
            printf("mesh_scale: %d ranks: ok, %ld checks (dmesh_init: %.6f s simulated)\n",
                   world_size, total_checks, t_init);
        else
            printf("mesh_scale: %d ranks: FAILED, %ld of %ld checks\n", world_size, total_failures,
                   total_checks);
        fflush(stdout);
    }
    MPI_Finalize();
    return total_failures != 0;
}
