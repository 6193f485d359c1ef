/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI tests of the simulation-code calls: dmesh_get_rank_of,
 * dmesh_get_coordinate_of, dmesh_shift, dmesh_get_all_groups and
 * dmesh_get_cart_comm, checked against MPI's own Cartesian topology
 * functions (MPI_Cart_create / _coords / _rank / _shift) and against an
 * independent enumeration of the layout (the model of mesh_testutil), on
 * every shape that fits the world, on meshes smaller than the world and on
 * slices, with real messages on the communicators. Run under mpirun at 1, 2,
 * 4, 6 and 8 ranks (test/test_mesh_sim-np*.mpi). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mesh_testutil.h"

static const char *const D3[] = {"d0", "d1", "d2"};

/* MPI's Cartesian communicator over the first product(shape) ranks of the
 * world (MPI_COMM_NULL on the others), reorder off: its ranks are world ranks. */
static MPI_Comm world_cart(int nd, const int shape[], const int periods[])
{
    MPI_Comm cart = MPI_COMM_NULL;

    MPI_Cart_create(MPI_COMM_WORLD, nd, shape, periods, 0, &cart);
    return cart;
}

/* Every factorisation of n into nd >= 1 factors for nd = 1..3: calls
 * f(nd, shape) for each, on every rank. */
static void each_shape(int n, void (*f)(int nd, const int shape[]))
{
    int out[3 * 64];

    for (int nd = 1; nd <= 3; nd++) {
        int count = mt_factorisations(n, nd, 64, out);
        for (int i = 0; i < count; i++)
            f(nd, &out[i * nd]);
    }
}

/* Coordinates of every rank and the rank at every coordinate, against
 * MPI_Cart_coords / MPI_Cart_rank. */
static void check_coords(dmesh_t mesh, MPI_Comm cart, int nd, int n)
{
    int c[DMESH_MAX_DIMS], want[DMESH_MAX_DIMS], member = -1, r = -1;

    for (int rank = 0; rank < mt_size; rank++) {
        memset(c, 0xff, sizeof(c));
        MT_OK(dmesh_get_coordinate_of(mesh, rank, DMESH_MAX_DIMS, c, &member));
        MT_EQ(member, rank < n);
        if (rank >= n || cart == MPI_COMM_NULL)
            continue;
        MPI_Cart_coords(cart, rank, nd, want);
        MT_CHECK(mt_same_ints(c, want, nd));
        MT_OK(dmesh_get_rank_of(mesh, nd, want, &r));
        MT_EQ(r, rank);
    }
}

/* Shifts by several displacements, periodic or not, against MPI_Cart_shift;
 * then a real MPI_Sendrecv on the dimension communicator with the result. */
static void check_shifts(dmesh_t mesh, int nd, const int shape[], int periodic)
{
    int periods[DMESH_MAX_DIMS] = {0}, members[MT_MAX_RANKS], n;
    MPI_Comm cart, dc;

    for (int d = 0; d < nd; d++)
        periods[d] = periodic;
    cart = world_cart(nd, shape, periods);
    if (cart == MPI_COMM_NULL)
        return;
    for (int d = 0; d < nd; d++) {
        MT_OK(dmesh_get_comm(mesh, d, &dc));
        MT_OK(dmesh_get_group_ranks(mesh, d, MT_MAX_RANKS, members, &n));
        for (int disp = -3; disp <= 3; disp++) {
            int src = -5, dst = -5, wsrc, wdst, got = -7, sent = mt_rank;
            MT_OK(dmesh_shift(mesh, d, disp, periodic, &src, &dst));
            MPI_Cart_shift(cart, d, disp, &wsrc, &wdst);
            MT_EQ(src == MPI_PROC_NULL ? MPI_PROC_NULL : members[src], wsrc);
            MT_EQ(dst == MPI_PROC_NULL ? MPI_PROC_NULL : members[dst], wdst);
            MPI_Sendrecv(&sent, 1, MPI_INT, dst, 7, &got, 1, MPI_INT, src, 7, dc,
                         MPI_STATUS_IGNORE);
            MT_EQ(got, wsrc == MPI_PROC_NULL ? -7 : wsrc);
        }
    }
    MPI_Comm_free(&cart);
}

static void root_shape(int nd, const int shape[])
{
    int zeros[DMESH_MAX_DIMS] = {0}, n = 1;
    dmesh_t mesh = DMESH_NULL;
    MPI_Comm cart;

    for (int d = 0; d < nd; d++)
        n *= shape[d];
    MT_OK(dmesh_init(MPI_COMM_WORLD, "cpu", nd, shape, NULL, MPI_INFO_NULL, &mesh));
    cart = world_cart(nd, shape, zeros);
    check_coords(mesh, cart, nd, n);
    if (cart != MPI_COMM_NULL)
        MPI_Comm_free(&cart);
    check_shifts(mesh, nd, shape, 0);
    check_shifts(mesh, nd, shape, 1);
    MT_OK(dmesh_free(&mesh));
}

MT_TEST(coordinates_and_shifts_as_mpi_cart)
{
    each_shape(mt_size, root_shape);
}

/* Meshes on fewer ranks than the world: the others are no members, see the
 * only copy and get NOT_MEMBER from dmesh_shift. */
MT_TEST(smaller_than_world)
{
    for (int n = 1; n < mt_size; n++) {
        int shape[2] = {n, 1}, c[2] = {n - 1, 0}, zeros[2] = {0, 0}, r = -1, s, t;
        dmesh_t mesh = DMESH_NULL;
        MPI_Comm cart;
        MT_OK(dmesh_init(MPI_COMM_WORLD, "cpu", 2, shape, NULL, MPI_INFO_NULL, &mesh));
        cart = world_cart(2, shape, zeros);
        check_coords(mesh, cart, 2, n);
        MT_OK(dmesh_get_rank_of(mesh, 2, c, &r));
        MT_EQ(r, n - 1);
        MT_RC(dmesh_shift(mesh, 0, 1, 1, &s, &t),
              mt_rank < n ? DMESH_SUCCESS : DMESH_ERR_NOT_MEMBER);
        if (cart != MPI_COMM_NULL)
            MPI_Comm_free(&cart);
        MT_OK(dmesh_free(&mesh));
    }
}

/* A permuted rank map (the world reversed), against the enumeration of
 * the row-major rank list. */
MT_TEST(rank_map_reversed)
{
    int ranks[MT_MAX_RANKS], shape[2] = {mt_size % 2 == 0 ? 2 : 1, 0}, c[2], member, r;
    dmesh_t mesh = DMESH_NULL;

    shape[1] = mt_size / shape[0];
    for (int i = 0; i < mt_size; i++)
        ranks[i] = mt_size - 1 - i;
    MT_OK(dmesh_create(MPI_COMM_WORLD, "cpu", 2, shape, ranks, D3, MPI_INFO_NULL, &mesh));
    for (int i = 0; i < mt_size; i++) {
        int want[2] = {i / shape[1], i % shape[1]};
        MT_OK(dmesh_get_coordinate_of(mesh, ranks[i], 2, c, &member));
        MT_EQ(member, 1);
        MT_CHECK(mt_same_ints(c, want, 2));
        MT_OK(dmesh_get_rank_of(mesh, 2, want, &r));
        MT_EQ(r, ranks[i]);
    }
    MT_OK(dmesh_free(&mesh));
}

/* Groups of every dim of a mesh, against the model's enumeration: each
 * group is the model's group of its first member, every rank of the map is
 * in exactly one group, and the caller's group is dmesh_get_group_ranks. */
static void check_all_groups(dmesh_t mesh, const mt_model_t *m, int nd, const mt_axis_t ax[])
{
    static int groups[MT_MAX_RANKS * 2], want[MT_MAX_RANKS], mine[MT_MAX_RANKS];
    int ng = -1, gs = -1, ng2, gs2, nmine, seen[MT_MAX_RANKS];

    for (int d = 0; d < nd; d++) {
        MT_OK(dmesh_get_all_groups(mesh, d, 0, 0, NULL, &ng, &gs));
        MT_EQ(ng * gs, m->nranks);
        MT_RC(dmesh_get_all_groups(mesh, d, ng, gs - 1, groups, &ng2, &gs2), DMESH_ERR_ARG);
        MT_RC(dmesh_get_all_groups(mesh, d, ng - 1, gs, groups, &ng2, &gs2), DMESH_ERR_ARG);
        /* rows longer than a group: the stride is maxranks */
        MT_OK(dmesh_get_all_groups(mesh, d, ng, gs + 1, groups, &ng2, &gs2));
        MT_EQ(ng2, ng);
        MT_EQ(gs2, gs);
        memset(seen, 0, sizeof(seen));
        for (int g = 0; g < ng; g++) {
            const int *row = &groups[g * (gs + 1)];
            int idx = mt_model_find(m, row[0]);
            MT_CHECK(idx >= 0);
            if (idx < 0)
                continue;
            MT_EQ(mt_model_group(m, idx, 1, &ax[d], want), gs);
            MT_CHECK(mt_same_ints(row, want, gs));
            for (int i = 0; i < gs; i++)
                seen[mt_model_find(m, row[i]) >= 0 ? mt_model_find(m, row[i]) : 0]++;
            if (mt_model_find(m, mt_rank) >= 0 &&
                dmesh_get_group_ranks(mesh, d, MT_MAX_RANKS, mine, &nmine) == DMESH_SUCCESS &&
                mine[0] == row[0] && nmine == gs)
                MT_CHECK(mt_same_ints(mine, row, gs));
        }
        for (int i = 0; i < m->nranks; i++)
            MT_EQ(seen[i], 1);
    }
}

static void groups_of_shape(int nd, const int shape[])
{
    mt_model_t m;
    mt_axis_t ax[3];
    dmesh_t mesh = DMESH_NULL, sub = DMESH_NULL, flat = DMESH_NULL;

    mt_model_init(&m, nd, shape, NULL);
    for (int d = 0; d < nd; d++)
        ax[d] = mt_axis_dim(&m, d);
    MT_OK(dmesh_init(MPI_COMM_WORLD, "cpu", nd, shape, D3, MPI_INFO_NULL, &mesh));
    check_all_groups(mesh, &m, nd, ax);
    if (nd == 3) { /* a slice (d0, d2) and its flattening */
        const char *names[2] = {"d0", "d2"};
        mt_axis_t sa[2] = {ax[0], ax[2]}, fa = mt_axis_join(ax[0], ax[2]);
        MT_OK(dmesh_slice(mesh, 2, names, &sub));
        check_all_groups(sub, &m, 2, sa);
        MT_OK(dmesh_flatten(sub, NULL, MPI_INFO_NULL, &flat));
        check_all_groups(flat, &m, 1, &fa);
    }
    dmesh_free(&flat);
    dmesh_free(&sub);
    MT_OK(dmesh_free(&mesh));
}

MT_TEST(all_groups_as_enumeration)
{
    each_shape(mt_size, groups_of_shape);
    if (mt_size > 2) /* a mesh on part of the world, with a rank map */
    {
        int shape[2] = {2, (mt_size - 1) / 2}, ranks[MT_MAX_RANKS];
        mt_model_t m;
        mt_axis_t ax[2];
        dmesh_t mesh = DMESH_NULL;
        for (int i = 0; i < shape[0] * shape[1]; i++)
            ranks[i] = mt_size - 1 - i;
        mt_model_init(&m, 2, shape, ranks);
        ax[0] = mt_axis_dim(&m, 0);
        ax[1] = mt_axis_dim(&m, 1);
        MT_OK(dmesh_create(MPI_COMM_WORLD, "cpu", 2, shape, ranks, NULL, MPI_INFO_NULL, &mesh));
        check_all_groups(mesh, &m, 2, ax);
        MT_OK(dmesh_free(&mesh));
    }
}

/* Slices of a 3-D mesh: coordinates are the root's projected on the
 * slice's dims; the rank at a coordinate lies in the caller's copy. */
MT_TEST(slices_against_root_cart)
{
    int out[3 * 64], count = mt_factorisations(mt_size, 3, 64, out), zeros[3] = {0, 0, 0};

    for (int i = 0; i < count; i++) {
        const int *shape = &out[3 * i];
        const char *names[2] = {"d0", "d2"};
        int c[2], rc[3], mc[3], member, r;
        dmesh_t mesh = DMESH_NULL, sub = DMESH_NULL;
        MPI_Comm cart = world_cart(3, shape, zeros);
        MT_OK(dmesh_init(MPI_COMM_WORLD, "cpu", 3, shape, D3, MPI_INFO_NULL, &mesh));
        MT_OK(dmesh_slice(mesh, 2, names, &sub));
        MPI_Cart_coords(cart, mt_rank, 3, mc);
        for (int rank = 0; rank < mt_size; rank++) {
            MPI_Cart_coords(cart, rank, 3, rc);
            MT_OK(dmesh_get_coordinate_of(sub, rank, 2, c, &member));
            MT_EQ(member, 1);
            MT_EQ(c[0], rc[0]);
            MT_EQ(c[1], rc[2]);
            /* the same coordinate in the caller's copy: the caller's d1 */
            rc[1] = mc[1];
            MPI_Cart_rank(cart, rc, &r);
            int got = -1;
            MT_OK(dmesh_get_rank_of(sub, 2, c, &got));
            MT_EQ(got, r);
        }
        MT_OK(dmesh_free(&sub));
        MT_OK(dmesh_free(&mesh));
        MPI_Comm_free(&cart);
    }
}

/* A slice of a mesh smaller than the world has several copies: a
 * non-member cannot name a rank by coordinate. */
MT_TEST(slice_non_member)
{
    int shape[2] = {2, (mt_size - 1) / 2}, c[1] = {0}, r;
    const char *name = "d1";
    dmesh_t mesh = DMESH_NULL, sub = DMESH_NULL;

    if (mt_size < 5)
        return;
    MT_OK(dmesh_init(MPI_COMM_WORLD, "cpu", 2, shape, D3, MPI_INFO_NULL, &mesh));
    MT_OK(dmesh_slice(mesh, 1, &name, &sub));
    MT_RC(dmesh_get_rank_of(sub, 1, c, &r),
          mt_rank < shape[0] * shape[1] ? DMESH_SUCCESS : DMESH_ERR_NOT_MEMBER);
    if (mt_rank < shape[0] * shape[1])
        MT_EQ(r, (mt_rank / shape[1]) * shape[1]);
    MT_OK(dmesh_free(&sub));
    MT_OK(dmesh_free(&mesh));
}

MT_TEST(argument_errors)
{
    int shape[1] = {mt_size}, c[2] = {0, 0}, r, member, s, t, ng, gs;
    dmesh_t mesh = DMESH_NULL;

    MT_OK(dmesh_init(MPI_COMM_WORLD, "cpu", 1, shape, NULL, MPI_INFO_NULL, &mesh));
    MT_RC(dmesh_get_rank_of(mesh, 2, c, &r), DMESH_ERR_ARG);
    c[0] = mt_size;
    MT_RC(dmesh_get_rank_of(mesh, 1, c, &r), DMESH_ERR_ARG);
    c[0] = -1;
    MT_RC(dmesh_get_rank_of(mesh, 1, c, &r), DMESH_ERR_ARG);
    MT_RC(dmesh_get_rank_of(mesh, 1, NULL, &r), DMESH_ERR_ARG);
    MT_RC(dmesh_get_coordinate_of(mesh, mt_size, 1, c, &member), DMESH_ERR_ARG);
    MT_RC(dmesh_get_coordinate_of(mesh, -1, 1, c, &member), DMESH_ERR_ARG);
    MT_RC(dmesh_get_coordinate_of(mesh, 0, 0, c, &member), DMESH_ERR_ARG);
    MT_RC(dmesh_shift(mesh, 1, 1, 0, &s, &t), DMESH_ERR_ARG);
    MT_RC(dmesh_shift(mesh, 0, 1, 0, NULL, &t), DMESH_ERR_ARG);
    MT_RC(dmesh_get_all_groups(mesh, 1, 0, 0, NULL, &ng, &gs), DMESH_ERR_ARG);
    MT_RC(dmesh_get_all_groups(mesh, 0, 1, mt_size, NULL, &ng, &gs), DMESH_ERR_ARG);
    MT_RC(dmesh_get_rank_of(DMESH_NULL, 1, c, &r), DMESH_ERR_ARG);
    MT_OK(dmesh_free(&mesh));
}

/* A too small maxdims (or no coords) is an error whether or not the rank
 * asked about is a member: a mesh of the first rank only, asked about
 * rank 0 (a member) and about the last rank (not one). */
MT_TEST(coordinate_of_arguments_alike)
{
    int shape[1] = {1}, c[1] = {-5}, member = -1;
    dmesh_t mesh = DMESH_NULL;

    if (mt_size < 2)
        return;
    MT_OK(dmesh_init(MPI_COMM_WORLD, "cpu", 1, shape, NULL, MPI_INFO_NULL, &mesh));
    for (int who = 0; who < 2; who++) {
        int rank = who ? mt_size - 1 : 0;
        MT_RC(dmesh_get_coordinate_of(mesh, rank, 0, c, &member), DMESH_ERR_ARG);
        MT_RC(dmesh_get_coordinate_of(mesh, rank, 1, NULL, &member), DMESH_ERR_ARG);
        MT_EQ(member, -1); /* untouched by a failing call */
        MT_OK(dmesh_get_coordinate_of(mesh, rank, 1, c, &member));
        MT_EQ(member, !who);
        MT_EQ(c[0], who ? MPI_UNDEFINED : 0); /* a non-member's coords: MPI_UNDEFINED */
        member = -1;
        c[0] = -5;
    }
    MT_OK(dmesh_free(&mesh));
}

/* ---- Cartesian communicator --------------------------------------------- */

/* The Cartesian communicator of mesh: topology, shape, periods, the
 * caller's coordinate, members (cart rank k is the rank at k's coordinate),
 * and MPI_Neighbor_allgather against dmesh_shift. */
static void check_cart(dmesh_t mesh, const int periods[], MPI_Comm cart)
{
    int nd, shape[DMESH_MAX_DIMS], dims[DMESH_MAX_DIMS], per[DMESH_MAX_DIMS], cc[DMESH_MAX_DIMS];
    int mc[DMESH_MAX_DIMS], member, topo, size, crank, r, k, nbr[2 * DMESH_MAX_DIMS];
    int want[2 * DMESH_MAX_DIMS], members[MT_MAX_RANKS], n, src, dst;
    MPI_Group cg, wg;

    MT_OK(dmesh_get_ndims(mesh, &nd));
    MT_OK(dmesh_get_shape(mesh, nd, shape));
    MT_OK(dmesh_get_coordinate(mesh, nd, mc, &member));
    MT_EQ(cart == MPI_COMM_NULL, !member);
    if (cart == MPI_COMM_NULL)
        return;
    MPI_Topo_test(cart, &topo);
    MT_EQ(topo, MPI_CART);
    MPI_Cart_get(cart, nd, dims, per, cc);
    MT_CHECK(mt_same_ints(dims, shape, nd));
    for (int d = 0; d < nd; d++)
        MT_EQ(per[d], periods[d] != 0);
    MT_CHECK(mt_same_ints(cc, mc, nd));
    MPI_Comm_size(cart, &size);
    MPI_Comm_rank(cart, &crank);
    MPI_Comm_group(cart, &cg);
    MPI_Comm_group(MPI_COMM_WORLD, &wg);
    for (k = 0; k < size; k++) {
        MPI_Cart_coords(cart, k, nd, cc);
        MT_OK(dmesh_get_rank_of(mesh, nd, cc, &r));
        int wr = -1;
        MPI_Group_translate_ranks(cg, 1, &k, wg, &wr);
        MT_EQ(wr, r);
    }
    MPI_Group_free(&cg);
    MPI_Group_free(&wg);
    for (int i = 0; i < 2 * nd; i++)
        nbr[i] = want[i] = -9;
    MPI_Neighbor_allgather(&mt_rank, 1, MPI_INT, nbr, 1, MPI_INT, cart);
    for (int d = 0; d < nd; d++) {
        MT_OK(dmesh_shift(mesh, d, 1, periods[d], &src, &dst));
        MT_OK(dmesh_get_group_ranks(mesh, d, MT_MAX_RANKS, members, &n));
        want[2 * d] = src == MPI_PROC_NULL ? -9 : members[src];
        want[2 * d + 1] = dst == MPI_PROC_NULL ? -9 : members[dst];
    }
    MT_CHECK(mt_same_ints(nbr, want, 2 * nd));
}

static void cart_of_shape(int nd, const int shape[])
{
    int periods[3] = {1, 0, 1}, other[3] = {0, 0, 0};
    dmesh_t mesh = DMESH_NULL, again = DMESH_NULL;
    MPI_Comm cart = MPI_COMM_NULL, cart2 = MPI_COMM_NULL, cart3 = MPI_COMM_NULL;
    dmesh_cache_info_t before, after;

    MT_OK(dmesh_init(MPI_COMM_WORLD, "cpu", nd, shape, D3, MPI_INFO_NULL, &mesh));
    MT_OK(dmesh_get_cart_comm(mesh, periods, 0, &cart));
    check_cart(mesh, periods, cart);
    /* cached: same arguments on an equal mesh create nothing */
    before = mt_cache(mesh);
    MT_OK(dmesh_slice(mesh, nd, D3, &again));
    MT_OK(dmesh_get_cart_comm(again, periods, 0, &cart2));
    after = mt_cache(mesh);
    MT_CHECK(cart2 == cart);
    MT_EQ(after.comms_mpi, before.comms_mpi);
    /* other periods: another communicator */
    MT_OK(dmesh_get_cart_comm(mesh, other, 0, &cart3));
    MT_CHECK(cart3 != cart);
    check_cart(mesh, other, cart3);
    MT_EQ(mt_cache(mesh).comms_mpi, before.comms_mpi + 1);
    MT_OK(dmesh_free(&again));
    MT_OK(dmesh_free(&mesh));
}

MT_TEST(cart_comm_shapes)
{
    each_shape(mt_size, cart_of_shape);
}

/* Slices (several copies) and meshes smaller than the world. */
MT_TEST(cart_comm_slices_and_non_members)
{
    int out[3 * 64], count = mt_factorisations(mt_size, 3, 64, out), periods[2] = {1, 1};

    for (int i = 0; i < count; i++) {
        const char *sn[2] = {"d0", "d2"};
        dmesh_t mesh = DMESH_NULL, sub = DMESH_NULL;
        MPI_Comm cart = MPI_COMM_NULL;
        MT_OK(dmesh_init(MPI_COMM_WORLD, "cpu", 3, &out[3 * i], D3, MPI_INFO_NULL, &mesh));
        MT_OK(dmesh_slice(mesh, 2, sn, &sub));
        MT_OK(dmesh_get_cart_comm(sub, periods, 0, &cart));
        check_cart(sub, periods, cart);
        MT_OK(dmesh_free(&sub));
        MT_OK(dmesh_free(&mesh));
    }
    for (int n = 1; n < mt_size; n++) {
        int shape[1] = {n};
        dmesh_t mesh = DMESH_NULL;
        MPI_Comm cart = MPI_COMM_NULL;
        MT_OK(dmesh_init(MPI_COMM_WORLD, "cpu", 1, shape, NULL, MPI_INFO_NULL, &mesh));
        MT_OK(dmesh_get_cart_comm(mesh, periods, 0, &cart));
        check_cart(mesh, periods, cart);
        MT_OK(dmesh_free(&mesh));
    }
}

/* reorder: MPI may renumber; the communicator still holds exactly the
 * mesh's ranks with the mesh's shape, and differs from the reorder-0 one. */
MT_TEST(cart_comm_reorder)
{
    int shape[2] = {mt_size % 2 == 0 ? 2 : 1, 0}, periods[2] = {0, 1}, dims[2], per[2], cc[2];
    int sum = 0, total = 0;
    dmesh_t mesh = DMESH_NULL;
    MPI_Comm cart = MPI_COMM_NULL, plain = MPI_COMM_NULL;

    shape[1] = mt_size / shape[0];
    MT_OK(dmesh_init(MPI_COMM_WORLD, "cpu", 2, shape, NULL, MPI_INFO_NULL, &mesh));
    MT_OK(dmesh_get_cart_comm(mesh, periods, 1, &cart));
    MT_OK(dmesh_get_cart_comm(mesh, periods, 0, &plain));
    MT_CHECK(cart != plain && cart != MPI_COMM_NULL);
    if (cart != MPI_COMM_NULL) {
        MPI_Cart_get(cart, 2, dims, per, cc);
        MT_CHECK(mt_same_ints(dims, shape, 2));
        MPI_Allreduce(&mt_rank, &sum, 1, MPI_INT, MPI_SUM, cart);
        for (int r = 0; r < mt_size; r++)
            total += r;
        MT_EQ(sum, total);
    }
    MT_OK(dmesh_free(&mesh));
}

/* A mesh of dmesh_from_comms without ranks (a rank map private to each
 * half of the world): the Cartesian communicator of each half, and every
 * group seen from inside a half is that half. */
MT_TEST(cart_comm_from_comms_halves)
{
    int half = mt_rank < mt_size / 2, periods[1] = {1}, shape[1], ng, gs, groups[MT_MAX_RANKS];
    int base = half ? 0 : mt_size / 2;
    MPI_Comm part, dims[1];
    dmesh_t mesh = DMESH_NULL;
    MPI_Comm cart = MPI_COMM_NULL;

    MPI_Comm_split(MPI_COMM_WORLD, half, mt_rank, &part);
    MPI_Comm_size(part, &shape[0]);
    dims[0] = part;
    MT_OK(dmesh_from_comms(MPI_COMM_WORLD, "cpu", 1, dims, shape, NULL, NULL, &mesh));
    MT_OK(dmesh_get_cart_comm(mesh, periods, 0, &cart));
    check_cart(mesh, periods, cart);
    MT_OK(dmesh_get_all_groups(mesh, 0, 1, MT_MAX_RANKS, groups, &ng, &gs));
    MT_EQ(ng, 1);
    MT_EQ(gs, shape[0]);
    for (int i = 0; i < gs; i++)
        MT_EQ(groups[i], base + i);
    MT_OK(dmesh_free(&mesh));
    MPI_Comm_free(&part);
}

/* Different periods on different ranks: every rank gets MISMATCH. */
MT_TEST(cart_comm_mismatch)
{
    int shape[1] = {mt_size}, periods[1] = {mt_rank == 0}, rc;
    dmesh_t mesh = DMESH_NULL;
    MPI_Comm cart = MPI_COMM_NULL;

    MT_OK(dmesh_init(MPI_COMM_WORLD, "cpu", 1, shape, NULL, MPI_INFO_NULL, &mesh));
    rc = MT_RC(dmesh_get_cart_comm(mesh, periods, 0, &cart),
               mt_size > 1 ? DMESH_ERR_MISMATCH : DMESH_SUCCESS);
    MT_SAME(MPI_COMM_WORLD, rc);
    MT_RC(dmesh_get_cart_comm(mesh, NULL, 0, &cart), DMESH_ERR_ARG);
    MT_OK(dmesh_free(&mesh));
}

static Suite *sim_suite(void)
{
    Suite *s = suite_create("mesh_sim");
    TCase *t = tcase_create("sim");

    tcase_set_timeout(t, 0);
    tcase_add_test(t, coordinates_and_shifts_as_mpi_cart);
    tcase_add_test(t, smaller_than_world);
    tcase_add_test(t, rank_map_reversed);
    tcase_add_test(t, all_groups_as_enumeration);
    tcase_add_test(t, slices_against_root_cart);
    tcase_add_test(t, slice_non_member);
    tcase_add_test(t, argument_errors);
    tcase_add_test(t, coordinate_of_arguments_alike);
    tcase_add_test(t, cart_comm_shapes);
    tcase_add_test(t, cart_comm_slices_and_non_members);
    tcase_add_test(t, cart_comm_reorder);
    tcase_add_test(t, cart_comm_mismatch);
    tcase_add_test(t, cart_comm_from_comms_halves);
    suite_add_tcase(s, t);
    return s;
}

int main(int argc, char **argv)
{
    return mt_main(&argc, &argv, sim_suite);
}
