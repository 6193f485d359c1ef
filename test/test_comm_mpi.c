/* SPDX-License-Identifier: BSD-3-Clause */
/* The communicator module (lib/comm_mpi.c) on its own: a split colour is
 * the group index plus a colour base (the groups of a mesh whose rank map
 * differs between ranks are told apart by it), and a base that pushes the
 * colour past INT_MAX on some ranks only (a dmesh_from_comms mesh without
 * ranks at about 50,000 ranks and more) must fail on those ranks inside the
 * split: the others are in MPI_Comm_split and would wait for them. */
#include "config.h"

#include <limits.h>

#include "comm_mpi.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "mesh_testutil.h"
#include "node.h"
#include "options.h"

/* Members in comm of the caller's communicator c, as world ranks, summed. */
static int sum_of_members(MPI_Comm c)
{
    int mine = mt_rank, sum = -1;

    MPI_Allreduce(&mine, &sum, 1, MPI_INT, MPI_SUM, c);
    return sum;
}

/* One axis of the whole world; the odd ranks' base overflows. The even
 * ranks get their communicator (colour 0: the even ranks together), the
 * odd ones DMESH_ERR_SIZE and none; every rank returns. */
MT_TEST(colour_past_int_max)
{
    dmesh_layout_t l;
    MPI_Comm c = MPI_COMM_NULL;
    long long base = mt_rank % 2 ? (long long)INT_MAX + 1 : 0;
    int rc, odd, want = 0;

    MT_OK(dmesh_layout_row_major(1, &mt_size, &l));
    rc = dmesh_comm_mpi_create(MPI_COMM_WORLD, &l.axes[0], mt_size, mt_rank, base, &c);
    odd = mt_rank % 2;
    MT_EQ(rc, odd ? DMESH_ERR_SIZE : DMESH_SUCCESS);
    MT_EQ(c == MPI_COMM_NULL, odd);
    for (int r = 0; r < mt_size; r += 2)
        want += r;
    if (c != MPI_COMM_NULL) {
        MT_EQ(sum_of_members(c), want);
        MPI_Comm_free(&c);
    }
    /* every rank came back from the split */
    MPI_Barrier(MPI_COMM_WORLD);
}

/* Group creation has no colours: the same base is no error there. */
MT_TEST(group_creation_ignores_base)
{
    dmesh_layout_t l;
    dmesh_prepared_axis_t p;
    MPI_Group g = MPI_GROUP_NULL;
    MPI_Comm c = MPI_COMM_NULL;
    long long base = (long long)INT_MAX + 1;
    int want = 0;

    MT_OK(dmesh_layout_row_major(1, &mt_size, &l));
    MT_OK(dmesh_axis_prepare(&l.axes[0], mt_size, &p));
    MT_OK(dmesh_comm_mpi_group_prepare(MPI_COMM_WORLD, &l.axes[0], mt_size, NULL, mt_rank, &g));
    MT_OK(dmesh_comm_mpi_create_prepared(MPI_COMM_WORLD, &p, mt_rank, base, 1, g, &c));
    for (int r = 0; r < mt_size; r++)
        want += r;
    MT_EQ(c != MPI_COMM_NULL, 1);
    if (c != MPI_COMM_NULL) {
        MT_EQ(sum_of_members(c), want);
        MPI_Comm_free(&c);
    }
    if (g != MPI_GROUP_NULL)
        MPI_Group_free(&g);
}

/* ---- dmesh_order=node ---------------------------------------------------- */

/* The node order of a placement given as each rank's node (lows: the
 * lowest rank of its node): ranks by (node, rank), nodes by lowest rank. */
static void expect_order(int size, const int lows[], int n, const int want[])
{
    int map[16];

    MT_OK(dmesh_node_order(size, lows, n, map));
    for (int i = 0; i < n; i++)
        MT_EQ(map[i], want[i]);
}

/* Block, cyclic and uneven placements of 8 ranks on nodes. */
MT_TEST(node_order_placements)
{
    static const int block[8] = {0, 0, 0, 0, 4, 4, 4, 4}, block_want[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    static const int cyclic[8] = {0, 1, 0, 1, 0, 1, 0, 1},
                     cyclic_want[8] = {0, 2, 4, 6, 1, 3, 5, 7};
    /* 3 nodes: ranks 0,3,6 / 1,4 / 2,5,7 */
    static const int uneven[8] = {0, 1, 2, 0, 1, 2, 0, 2},
                     uneven_want[8] = {0, 3, 6, 1, 4, 2, 5, 7};

    expect_order(8, block, 8, block_want);
    expect_order(8, cyclic, 8, cyclic_want);
    expect_order(8, uneven, 8, uneven_want);
    expect_order(8, cyclic, 3, cyclic_want); /* the first n */
}

/* On this machine every rank shares one node: the node order is the rank
 * order, and the mesh's groups are those of the rank order. */
MT_TEST(node_order_one_node)
{
    int shape[2] = {mt_size / 2 > 0 ? 2 : 1, 0}, sum = -1, want = 0, same = 0, *lows = NULL;
    const char *names[2] = {"dp", "tp"};
    dmesh_t mesh = DMESH_NULL, plain = DMESH_NULL;
    MPI_Comm tp = MPI_COMM_NULL;
    MPI_Info info;

    if (!mt_one_node("node_order_one_node"))
        return;

    shape[1] = mt_size / shape[0];
    MT_OK(dmesh_node_lows(MPI_COMM_WORLD, DMESH_NODE_AUTO, NULL, &lows, NULL));
    for (int r = 0; lows != NULL && r < mt_size; r++)
        MT_EQ(lows[r], 0);
    free(lows);
    MPI_Info_create(&info);
    MPI_Info_set(info, "dmesh_order", "node");
    MT_OK(dmesh_init(MPI_COMM_WORLD, "cpu", 2, shape, names, info, &mesh));
    MT_OK(dmesh_init(MPI_COMM_WORLD, "cpu", 2, shape, names, MPI_INFO_NULL, &plain));
    MT_OK(dmesh_get_comm(mesh, 1, &tp));
    if (tp != MPI_COMM_NULL)
        MPI_Allreduce(&mt_rank, &sum, 1, MPI_INT, MPI_SUM, tp);
    for (int t = 0; t < shape[1]; t++)
        want += mt_rank - mt_rank % shape[1] + t;
    MT_EQ(sum, want);
    MT_OK(dmesh_equal(mesh, plain, &same));
    MT_EQ(same, 1);
    MT_OK(dmesh_free(&plain));
    MT_OK(dmesh_free(&mesh));
    MPI_Info_free(&info);
}

/* dmesh_order=node takes the ranks of dmesh_init only; a rank that asks for
 * it while the others do not gets DMESH_ERR_MISMATCH, on every rank. */
MT_TEST(node_order_errors)
{
    int shape[1] = {mt_size}, ranks[64];
    dmesh_t mesh = DMESH_NULL;
    MPI_Info info = mt_info1("dmesh_order", "node"), half = MPI_INFO_NULL;

    for (int r = 0; r < mt_size && r < 64; r++)
        ranks[r] = r;
    MT_FAILS_CREATE(MPI_COMM_WORLD,
                    dmesh_create(MPI_COMM_WORLD, "cpu", 1, shape, ranks, NULL, info, &mesh),
                    DMESH_ERR_ARG, mesh);
    if (mt_size > 1) {
        half = mt_rank == 0 ? info : MPI_INFO_NULL;
        MT_FAILS_CREATE(MPI_COMM_WORLD,
                        dmesh_init(MPI_COMM_WORLD, "cpu", 1, shape, NULL, half, &mesh),
                        DMESH_ERR_MISMATCH, mesh);
    }
    MT_OK(dmesh_init(MPI_COMM_WORLD, "cpu", 1, shape, NULL, info, &mesh));
    MT_OK(dmesh_free(&mesh));
    MPI_Info_free(&info);
}

/* ---- dmesh_init_hybrid ---------------------------------------------------- */

/* Whether every member of each group along axis a (rank map map of n)
 * shares a node (same_node) or sits on its own node (!same_node). */
static void expect_groups_by_node(const dmesh_axis_t *a, int n, const int map[], const int lows[],
                                  int same_node)
{
    int members[16], count = 0;

    for (int i = 0; i < n; i++) {
        MT_OK(dmesh_axis_group_of(a, n, map, i, 16, members, &count));
        for (int k = 1; k < count; k++)
            for (int j = 0; j < k; j++)
                MT_EQ(lows[members[k]] == lows[members[j]], same_node);
    }
}

/* 8 ranks on 2 nodes of 4 placed cyclically: in the hybrid (1x2, 2x1,
 * 2x1) mesh, tp (across 1) stays in a node, dp (in_node 1) spans both. */
MT_TEST(hybrid_layout_cyclic)
{
    static const int lows[8] = {0, 1, 0, 1, 0, 1, 0, 1};
    int in_node[3] = {1, 2, 2}, across[3] = {2, 1, 1}, map[8];
    dmesh_layout_t l;
    dmesh_axis_t tp_cp;

    MT_OK(dmesh_node_check_uniform(8, lows, 4, 2, "t", "test"));
    MT_OK(dmesh_node_order(8, lows, 8, map));
    MT_OK(dmesh_hybrid_layout(3, in_node, across, &l));
    expect_groups_by_node(&l.axes[0], 8, map, lows, 0); /* dp: across nodes */
    expect_groups_by_node(&l.axes[1], 8, map, lows, 1); /* cp: in a node */
    expect_groups_by_node(&l.axes[2], 8, map, lows, 1); /* tp: in a node */
    tp_cp.natoms = 0;
    MT_OK(dmesh_layout_concat(&(dmesh_layout_t){2, {l.axes[1], l.axes[2]}}, &tp_cp));
    expect_groups_by_node(&tp_cp, 8, map, lows, 1); /* both in-node dims together: a node */
}

/* Nodes that do not match the factors: DMESH_ERR_SIZE with the node sizes. */
MT_TEST(hybrid_uneven_nodes)
{
    static const int uneven[8] = {0, 1, 2, 0, 1, 2, 0, 2}; /* 3, 2, 3 ranks */

    MT_RC(dmesh_node_check_uniform(8, uneven, 4, 2, "dmesh_init_hybrid", "host identity"),
          DMESH_ERR_SIZE);
    MT_CHECK(strstr(dmesh_last_error(), "3 node(s) of 3, 2, 3 rank(s)") != NULL);
    MT_CHECK(strstr(dmesh_last_error(), "this rank's node: host identity") != NULL);
}

/* On this one-node machine: across all 1 is dmesh_init of the in-node
 * shape; an across factor of 2 is a SIZE error naming the node, on every
 * rank; NULL factors are ARG on every rank. */
MT_TEST(hybrid_one_node)
{
    int in_node[2] = {mt_size % 2 ? 1 : 2, 0}, across[2] = {1, 1}, shape[2], same = 0;
    int in_half[2] = {1, 0}, across2[2] = {2, 1};
    const char *names[2] = {"dp", "tp"};
    dmesh_t hybrid = DMESH_NULL, plain = DMESH_NULL, bad = DMESH_NULL;

    if (!mt_one_node("hybrid_one_node"))
        return;

    in_node[1] = mt_size / in_node[0];
    shape[0] = in_node[0];
    shape[1] = in_node[1];
    MT_OK(dmesh_init_hybrid(MPI_COMM_WORLD, "cpu", 2, in_node, across, names, MPI_INFO_NULL,
                            &hybrid));
    MT_OK(dmesh_init(MPI_COMM_WORLD, "cpu", 2, shape, names, MPI_INFO_NULL, &plain));
    MT_OK(dmesh_equal(hybrid, plain, &same));
    MT_EQ(same, 1);
    if (mt_size % 2 == 0) {
        in_half[1] = mt_size / 2;
        MT_FAILS_CREATE(MPI_COMM_WORLD,
                        dmesh_init_hybrid(MPI_COMM_WORLD, "cpu", 2, in_half, across2, names,
                                          MPI_INFO_NULL, &bad),
                        DMESH_ERR_SIZE, bad);
        MT_CHECK(strstr(dmesh_last_error(), "1 node(s) of") != NULL);
    }
    MT_FAILS_CREATE(
        MPI_COMM_WORLD,
        dmesh_init_hybrid(MPI_COMM_WORLD, "cpu", 2, in_node, NULL, names, MPI_INFO_NULL, &bad),
        DMESH_ERR_ARG, bad);
    MT_OK(dmesh_free(&plain));
    MT_OK(dmesh_free(&hybrid));
}

/* Entries 0 of dmesh_init_hybrid, on this one-node machine: zeros of
 * in_node give the ranks per node (size / product(across)), zeros of
 * across the number of nodes (size / product(in_node)), as MPI_Dims_create
 * fills them; zeros in both are ARG, a given product that does not divide
 * the size is SIZE naming the lists, on every rank; the arrays stay as
 * given. */
MT_TEST(hybrid_zeros)
{
    int in0[2] = {0, 0}, one[2] = {1, 1}, want[2] = {0, 0}, got[2] = {0, 0};
    int in_full[2] = {1, mt_size}, acr0[2] = {0, 0}, in3[2] = {3, 0}, half[1] = {0}, two[1] = {2};
    const char *names[2] = {"dp", "tp"};
    dmesh_t hybrid = DMESH_NULL, plain = DMESH_NULL, bad = DMESH_NULL;
    int same = 0;
    char detail[160];

    if (!mt_one_node("hybrid_zeros"))
        return;

    MPI_Dims_create(mt_size, 2, want);
    MT_OK(dmesh_init_hybrid(MPI_COMM_WORLD, "cpu", 2, in0, one, names, MPI_INFO_NULL, &hybrid));
    MT_OK(dmesh_init(MPI_COMM_WORLD, "cpu", 2, want, names, MPI_INFO_NULL, &plain));
    MT_OK(dmesh_get_shape(hybrid, 2, got));
    MT_EQ(got[0], want[0]);
    MT_EQ(got[1], want[1]);
    MT_OK(dmesh_equal(hybrid, plain, &same));
    MT_EQ(same, 1);
    MT_EQ(in0[0] + in0[1], 0);
    MT_OK(dmesh_free(&hybrid));
    MT_OK(dmesh_free(&plain));

    /* across (0, 0) with the whole node given: one node, across (1, 1). */
    MT_OK(
        dmesh_init_hybrid(MPI_COMM_WORLD, "cpu", 2, in_full, acr0, names, MPI_INFO_NULL, &hybrid));
    MT_OK(dmesh_init_hybrid(MPI_COMM_WORLD, "cpu", 2, in_full, one, names, MPI_INFO_NULL, &plain));
    MT_OK(dmesh_equal(hybrid, plain, &same));
    MT_EQ(same, 1);
    MT_EQ(acr0[0] + acr0[1], 0);
    MT_OK(dmesh_free(&hybrid));
    MT_OK(dmesh_free(&plain));

    /* in_node (0) over 2 nodes is filled with size / 2: then the one node
     * holds twice that, as the node check says. */
    if (mt_size % 2 == 0) {
        MT_FAILS_CREATE(
            MPI_COMM_WORLD,
            dmesh_init_hybrid(MPI_COMM_WORLD, "cpu", 1, half, two, names, MPI_INFO_NULL, &bad),
            DMESH_ERR_SIZE, bad);
        MT_CHECK(strstr(dmesh_last_error(), "1 node(s) of") != NULL);
    }
    MT_FAILS_CREATE(
        MPI_COMM_WORLD,
        dmesh_init_hybrid(MPI_COMM_WORLD, "cpu", 2, in0, acr0, names, MPI_INFO_NULL, &bad),
        DMESH_ERR_ARG, bad);
    MT_CHECK(strstr(dmesh_last_error(), "both have entries 0") != NULL);
    if (mt_size % 3 != 0) {
        MT_FAILS_CREATE(
            MPI_COMM_WORLD,
            dmesh_init_hybrid(MPI_COMM_WORLD, "cpu", 2, in3, one, names, MPI_INFO_NULL, &bad),
            DMESH_ERR_SIZE, bad);
        snprintf(detail, sizeof(detail),
                 "in_node (3, 0) and across (1, 1) cannot fill a communicator of %d ranks: %d is "
                 "not a multiple of 3",
                 mt_size, mt_size);
        MT_CHECK(strstr(dmesh_last_error(), detail) != NULL);
    }
    /* A rank passing 0 where the others pass what it stands for. */
    if (mt_size >= 2)
        MT_FAILS_CREATE(MPI_COMM_WORLD,
                        dmesh_init_hybrid(MPI_COMM_WORLD, "cpu", 2, in_full,
                                          mt_rank == 0 ? acr0 : one, names, MPI_INFO_NULL, &bad),
                        DMESH_ERR_MISMATCH, bad);
}

/* ---- dmesh_get_dim_locality --------------------------------------------- */

/* 8 ranks on 2 nodes placed cyclically, a (2, 4) mesh: in rank order tp
 * (4 consecutive ranks) mixes the nodes and dp (r, r + 4) stays in one; in
 * node order tp stays in a node and dp spans both. */
MT_TEST(locality_cyclic)
{
    static const int lows[8] = {0, 1, 0, 1, 0, 1, 0, 1};
    int shape[2] = {2, 4}, map[8], kind = 0;
    dmesh_layout_t l;

    MT_OK(dmesh_layout_row_major(2, shape, &l));
    MT_OK(dmesh_node_locality(&l.axes[1], 8, NULL, lows, &kind));
    MT_EQ(kind, DMESH_LOCALITY_MIXED);
    MT_OK(dmesh_node_locality(&l.axes[0], 8, NULL, lows, &kind));
    MT_EQ(kind, DMESH_LOCALITY_NODE);
    MT_OK(dmesh_node_order(8, lows, 8, map));
    MT_OK(dmesh_node_locality(&l.axes[1], 8, map, lows, &kind));
    MT_EQ(kind, DMESH_LOCALITY_NODE);
    MT_OK(dmesh_node_locality(&l.axes[0], 8, map, lows, &kind));
    MT_EQ(kind, DMESH_LOCALITY_ACROSS);
}

/* On this one node every dimension is NODE: found at the first call (a
 * collective one) on a rank-order mesh, kept from creation on a node-order
 * one; a NULL kind on one rank still lets the others through. */
MT_TEST(locality_one_node)
{
    int shape[2] = {mt_size % 2 ? 1 : 2, 0}, kind = 0;
    dmesh_t mesh = DMESH_NULL, by_node = DMESH_NULL;
    MPI_Info info = mt_info1("dmesh_order", "node");

    if (!mt_one_node("locality_one_node"))
        return;

    shape[1] = mt_size / shape[0];
    MT_OK(dmesh_init(MPI_COMM_WORLD, "cpu", 2, shape, NULL, MPI_INFO_NULL, &mesh));
    MT_RC(dmesh_get_dim_locality(mesh, 0, mt_rank == 0 ? NULL : &kind),
          mt_rank == 0 ? DMESH_ERR_ARG : DMESH_SUCCESS);
    for (int d = 0; d < 2; d++) {
        kind = 0;
        MT_OK(dmesh_get_dim_locality(mesh, d, &kind));
        MT_EQ(kind, DMESH_LOCALITY_NODE);
    }
    MT_OK(dmesh_init(MPI_COMM_WORLD, "cpu", 2, shape, NULL, info, &by_node));
    if (mt_rank == 0) { /* local: kept from the creation */
        MT_OK(dmesh_get_dim_locality(by_node, 1, &kind));
        MT_EQ(kind, DMESH_LOCALITY_NODE);
    }
    MT_RC(dmesh_get_dim_locality(by_node, 2, &kind), DMESH_ERR_ARG);
    MT_OK(dmesh_free(&by_node));
    /* a bad dim on rank 0 alone, at the first (collective) call of a new
     * universe: rank 0 fails, the others get their answer, nobody waits */
    MT_OK(dmesh_init(MPI_COMM_WORLD, "cpu", 2, shape, NULL, MPI_INFO_NULL, &by_node));
    MT_RC(dmesh_get_dim_locality(by_node, mt_rank == 0 ? 2 : 1, &kind),
          mt_rank == 0 ? DMESH_ERR_ARG : DMESH_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD);                      /* no rank is still inside the call */
    MT_OK(dmesh_get_dim_locality(by_node, 1, &kind)); /* local now, on every rank */
    MT_EQ(kind, DMESH_LOCALITY_NODE);
    MT_OK(dmesh_free(&by_node));
    MT_OK(dmesh_free(&mesh));
    MPI_Info_free(&info);
}

static Suite *comm_suite(void)
{
    Suite *s = suite_create("comm_mpi");
    TCase *t = tcase_create("split");

    tcase_add_test(t, colour_past_int_max);
    tcase_add_test(t, group_creation_ignores_base);
    tcase_add_test(t, node_order_placements);
    tcase_add_test(t, node_order_one_node);
    tcase_add_test(t, node_order_errors);
    tcase_add_test(t, hybrid_layout_cyclic);
    tcase_add_test(t, hybrid_uneven_nodes);
    tcase_add_test(t, hybrid_one_node);
    tcase_add_test(t, hybrid_zeros);
    tcase_add_test(t, locality_cyclic);
    tcase_add_test(t, locality_one_node);
    suite_add_tcase(s, t);
    return s;
}

int main(int argc, char **argv)
{
    return mt_main(&argc, &argv, comm_suite);
}
