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

/* The nodes of this run (mt_node_lows: one node on one machine, one per
 * host across hosts): lows[], the number of nodes, the ranks per node
 * (0: uneven), and a 2-D shape whose inner dimension is one node's ranks
 * where the nodes are even and there are several, (2, size / 2) on one
 * node, (1, size) else. */
typedef struct {
    int lows[MT_MAX_RANKS], order[MT_MAX_RANKS];
    int nodes, per, shape[2];
} nodes_t;

static void find_nodes(nodes_t *n)
{
    n->nodes = mt_node_lows(n->lows, &n->per);
    mt_node_order(n->lows, n->order);
    n->shape[0] = 1;
    if (n->nodes > 1 && n->per > 0)
        n->shape[0] = n->nodes;
    else if (n->nodes == 1 && mt_size % 2 == 0)
        n->shape[0] = 2;
    n->shape[1] = mt_size / n->shape[0];
    if (mt_rank != 0)
        return;
    printf("%d node(s), %s rank(s) per node; node order", n->nodes, n->per > 0 ? "even" : "uneven");
    for (int r = 0; r < mt_size && r < 64; r++)
        printf(" %d", n->order[r]);
    printf("\n");
}

/* The members of dim's communicator, as world ranks, are the row of the
 * mesh tensor want (row-major, shape) that holds this rank. */
static void expect_row(dmesh_t mesh, int dim, const int shape[2], const int want[])
{
    int got[MT_MAX_RANKS], row[MT_MAX_RANKS], n, at = 0, c0, c1;

    while (want[at] != mt_rank)
        at++;
    c0 = at / shape[1];
    c1 = at % shape[1];
    n = mt_comm_members(mesh, dim, MPI_COMM_WORLD, got);
    for (int k = 0; k < shape[dim]; k++)
        row[k] = dim == 1 ? want[c0 * shape[1] + k] : want[k * shape[1] + c1];
    MT_EQ(n, shape[dim]);
    MT_CHECK(n == shape[dim] && mt_same_ints(got, row, n));
}

/* dmesh finds the nodes this test works out for itself, and a node-order
 * mesh lists the ranks by (node, rank): its inner dimension holds one
 * node's ranks whatever the placement (block or cyclic across hosts). On
 * one node the node order is the rank order. */
MT_TEST(node_order_nodes)
{
    static nodes_t n;
    int same = 0, ident = 1, *lows = NULL, got[MT_MAX_RANKS], ngot = 0;
    const char *names[2] = {"dp", "tp"};
    dmesh_t mesh = DMESH_NULL, plain = DMESH_NULL;
    MPI_Info info;

    find_nodes(&n);
    MT_OK(dmesh_node_lows(MPI_COMM_WORLD, DMESH_NODE_AUTO, NULL, &lows, NULL));
    if (getenv("DMESH_NODE") == NULL)
        for (int r = 0; lows != NULL && r < mt_size; r++)
            MT_EQ(lows[r], n.lows[r]);
    free(lows);
    MPI_Info_create(&info);
    MPI_Info_set(info, "dmesh_order", "node");
    MT_OK(dmesh_init(MPI_COMM_WORLD, "cpu", 2, n.shape, names, info, &mesh));
    MT_OK(dmesh_init(MPI_COMM_WORLD, "cpu", 2, n.shape, names, MPI_INFO_NULL, &plain));
    MT_OK(dmesh_get_ranks(mesh, MT_MAX_RANKS, got, &ngot));
    MT_EQ(ngot, mt_size);
    MT_CHECK(ngot == mt_size && mt_same_ints(got, n.order, ngot));
    expect_row(mesh, 1, n.shape, n.order);
    expect_row(mesh, 0, n.shape, n.order);
    if (n.nodes > 1 && n.per > 0) { /* tp: this rank's node, whole */
        MT_OK(dmesh_get_group_ranks(mesh, 1, MT_MAX_RANKS, got, &ngot));
        for (int k = 0; k < ngot; k++)
            MT_EQ(n.lows[got[k]], n.lows[mt_rank]);
        MT_EQ(ngot, n.per);
    }
    for (int r = 0; r < mt_size; r++)
        ident &= n.order[r] == r;
    MT_OK(dmesh_equal(mesh, plain, &same));
    MT_EQ(same, ident);
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

/* "N node(s) of A, B, ... rank(s)": the node sizes in the order of their
 * lowest ranks, as the detail of DMESH_ERR_SIZE gives them. */
static void node_sizes_text(const nodes_t *n, char *buf, size_t len)
{
    size_t at = (size_t)snprintf(buf, len, "%d node(s) of ", n->nodes);

    for (int low = 0; low < mt_size && at < len; low++) {
        int count = 0;
        if (n->lows[low] != low)
            continue;
        for (int r = 0; r < mt_size; r++)
            count += n->lows[r] == low;
        at += (size_t)snprintf(buf + at, len - at, "%s%d", low ? ", " : "", count);
    }
}

/* Even nodes: in_node (i, P / i) and across (nodes, 1) list the ranks by
 * (node, rank): tp (across 1) holds ranks of one node only, dp spans the
 * nodes, the mesh tensor is the node order, the mesh is the node-order
 * dmesh_init of its shape, and on one node the rank-order one. Twice as
 * many nodes as there are is SIZE naming the nodes; so are uneven nodes
 * (5 + 3 ranks on two hosts), whatever the factors. NULL factors are ARG;
 * every failure on every rank. */
MT_TEST(hybrid_nodes)
{
    static nodes_t n;
    int in_node[2], across[2], shape[2], same = 0, got[MT_MAX_RANKS], ngot = 0;
    int in0[1] = {0}, across2[1];
    const char *names[2] = {"dp", "tp"};
    char sizes[256];
    dmesh_t hybrid = DMESH_NULL, plain = DMESH_NULL, bad = DMESH_NULL;
    MPI_Info by_node = mt_info1("dmesh_order", "node");

    find_nodes(&n);
    node_sizes_text(&n, sizes, sizeof(sizes));
    across2[0] = 2 * n.nodes;
    if (n.per == 0) { /* uneven: in_node 0 is filled with size / nodes */
        across2[0] = mt_size % n.nodes == 0 ? n.nodes : 1;
        MT_FAILS_CREATE(
            MPI_COMM_WORLD,
            dmesh_init_hybrid(MPI_COMM_WORLD, "cpu", 1, in0, across2, names, MPI_INFO_NULL, &bad),
            DMESH_ERR_SIZE, bad);
        MT_CHECK(strstr(dmesh_last_error(), sizes) != NULL);
        if (mt_rank == 0)
            printf("uneven nodes refused: %s\n", dmesh_last_error());
        MPI_Info_free(&by_node);
        return;
    }
    in_node[0] = n.per % 2 ? 1 : 2;
    in_node[1] = n.per / in_node[0];
    across[0] = n.nodes;
    across[1] = 1;
    shape[0] = in_node[0] * across[0];
    shape[1] = in_node[1];
    MT_OK(dmesh_init_hybrid(MPI_COMM_WORLD, "cpu", 2, in_node, across, names, MPI_INFO_NULL,
                            &hybrid));
    MT_OK(dmesh_get_ranks(hybrid, MT_MAX_RANKS, got, &ngot));
    MT_CHECK(ngot == mt_size && mt_same_ints(got, n.order, ngot));
    expect_row(hybrid, 1, shape, n.order);
    expect_row(hybrid, 0, shape, n.order);
    MT_OK(dmesh_get_group_ranks(hybrid, 1, MT_MAX_RANKS, got, &ngot));
    for (int k = 0; k < ngot; k++) /* tp: inside this rank's node */
        MT_EQ(n.lows[got[k]], n.lows[mt_rank]);
    MT_OK(dmesh_init(MPI_COMM_WORLD, "cpu", 2, shape, names, n.nodes > 1 ? by_node : MPI_INFO_NULL,
                     &plain));
    MT_OK(dmesh_equal(hybrid, plain, &same));
    MT_EQ(same, 1);
    if (mt_size % across2[0] == 0) {
        MT_FAILS_CREATE(
            MPI_COMM_WORLD,
            dmesh_init_hybrid(MPI_COMM_WORLD, "cpu", 1, in0, across2, names, MPI_INFO_NULL, &bad),
            DMESH_ERR_SIZE, bad);
        MT_CHECK(strstr(dmesh_last_error(), sizes) != NULL);
    }
    MT_FAILS_CREATE(
        MPI_COMM_WORLD,
        dmesh_init_hybrid(MPI_COMM_WORLD, "cpu", 2, in_node, NULL, names, MPI_INFO_NULL, &bad),
        DMESH_ERR_ARG, bad);
    MT_OK(dmesh_free(&plain));
    MT_OK(dmesh_free(&hybrid));
    MPI_Info_free(&by_node);
}

/* Entries 0 of dmesh_init_hybrid: zeros of in_node give the ranks per
 * node (size / product(across)), zeros of across the number of nodes
 * (size / product(in_node)), as MPI_Dims_create fills them, and the mesh is
 * the one with those factors given (on one node, the rank-order dmesh_init
 * of the in-node shape); zeros in both are ARG, a given product that does
 * not divide the size is SIZE naming the lists, on every rank; the arrays
 * stay as given. The filled factors must then fit the nodes found (even
 * nodes only: uneven ones are hybrid_nodes'). */
MT_TEST(hybrid_zeros)
{
    static nodes_t n;
    int in0[2] = {0, 0}, want[2] = {0, 0}, got[2] = {0, 0}, nodes_f[2] = {0, 0};
    int in_per[2] = {1, 0}, acr0[2] = {0, 0}, in3[2] = {3, 0}, one[2] = {1, 1};
    int half[1] = {0}, twice[1];
    const char *names[2] = {"dp", "tp"};
    dmesh_t hybrid = DMESH_NULL, plain = DMESH_NULL, bad = DMESH_NULL;
    int same = 0;
    char detail[160], sizes[256];

    find_nodes(&n);
    node_sizes_text(&n, sizes, sizeof(sizes));
    in_per[1] = n.per > 0 ? n.per : mt_size;
    MPI_Dims_create(n.nodes, 2, nodes_f);
    if (n.per > 0) {
        int across[2] = {n.nodes, 1};
        MPI_Dims_create(n.per, 2, want);
        MT_OK(dmesh_init_hybrid(MPI_COMM_WORLD, "cpu", 2, in0, across, names, MPI_INFO_NULL,
                                &hybrid));
        MT_OK(dmesh_init_hybrid(MPI_COMM_WORLD, "cpu", 2, want, across, names, MPI_INFO_NULL,
                                &plain));
        MT_OK(dmesh_get_shape(hybrid, 2, got));
        MT_EQ(got[0], want[0] * n.nodes);
        MT_EQ(got[1], want[1]);
        MT_OK(dmesh_equal(hybrid, plain, &same));
        MT_EQ(same, 1);
        MT_EQ(in0[0] + in0[1], 0);
        MT_OK(dmesh_free(&hybrid));
        MT_OK(dmesh_free(&plain));
        if (n.nodes == 1) {
            MT_OK(dmesh_init(MPI_COMM_WORLD, "cpu", 2, want, names, MPI_INFO_NULL, &plain));
            MT_OK(dmesh_init_hybrid(MPI_COMM_WORLD, "cpu", 2, in0, one, names, MPI_INFO_NULL,
                                    &hybrid));
            MT_OK(dmesh_equal(hybrid, plain, &same));
            MT_EQ(same, 1);
            MT_OK(dmesh_free(&hybrid));
            MT_OK(dmesh_free(&plain));
        }

        /* across (0, 0) with a node's ranks given: the number of nodes */
        MT_OK(dmesh_init_hybrid(MPI_COMM_WORLD, "cpu", 2, in_per, acr0, names, MPI_INFO_NULL,
                                &hybrid));
        MT_OK(dmesh_init_hybrid(MPI_COMM_WORLD, "cpu", 2, in_per, nodes_f, names, MPI_INFO_NULL,
                                &plain));
        MT_OK(dmesh_equal(hybrid, plain, &same));
        MT_EQ(same, 1);
        MT_EQ(acr0[0] + acr0[1], 0);
        MT_OK(dmesh_free(&hybrid));
        MT_OK(dmesh_free(&plain));

        /* in_node (0) over twice the nodes is filled with size / that:
         * then each node holds twice that, as the node check says. */
        twice[0] = 2 * n.nodes;
        if (mt_size % twice[0] == 0) {
            MT_FAILS_CREATE(MPI_COMM_WORLD,
                            dmesh_init_hybrid(MPI_COMM_WORLD, "cpu", 1, half, twice, names,
                                              MPI_INFO_NULL, &bad),
                            DMESH_ERR_SIZE, bad);
            MT_CHECK(strstr(dmesh_last_error(), sizes) != NULL);
        }
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
    if (mt_size >= 2 && n.per > 0)
        MT_FAILS_CREATE(MPI_COMM_WORLD,
                        dmesh_init_hybrid(MPI_COMM_WORLD, "cpu", 2, in_per,
                                          mt_rank == 0 ? acr0 : nodes_f, names, MPI_INFO_NULL,
                                          &bad),
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

/* The locality of dim of a mesh of shape (2-D) whose tensor is map, from
 * the nodes (lows): NODE when each group lies in one node, ACROSS when each
 * has at most one rank per node, else MIXED. */
static int locality_of(const int lows[], const int map[], const int shape[2], int dim)
{
    int node = 1, across = 1, groups = shape[1 - dim];

    for (int g = 0; g < groups; g++)
        for (int i = 0; i < shape[dim]; i++)
            for (int k = 0; k < i; k++) {
                int a = dim == 1 ? g * shape[1] + i : i * shape[1] + g;
                int b = dim == 1 ? g * shape[1] + k : k * shape[1] + g;
                int same = lows[map[a]] == lows[map[b]];
                node &= same;
                across &= !same;
            }
    return node ? DMESH_LOCALITY_NODE : across ? DMESH_LOCALITY_ACROSS : DMESH_LOCALITY_MIXED;
}

/* Each dimension's locality is the one the nodes give it (on one node
 * every dimension is NODE): found at the first call (a collective one) on
 * a rank-order mesh, kept from creation on a node-order one; a NULL kind on
 * one rank still lets the others through. */
MT_TEST(locality_nodes)
{
    static nodes_t n;
    static int ident[MT_MAX_RANKS];
    int kind = 0;
    dmesh_t mesh = DMESH_NULL, by_node = DMESH_NULL;
    MPI_Info info = mt_info1("dmesh_order", "node");

    find_nodes(&n);
    for (int r = 0; r < mt_size; r++)
        ident[r] = r;
    MT_OK(dmesh_init(MPI_COMM_WORLD, "cpu", 2, n.shape, NULL, MPI_INFO_NULL, &mesh));
    MT_RC(dmesh_get_dim_locality(mesh, 0, mt_rank == 0 ? NULL : &kind),
          mt_rank == 0 ? DMESH_ERR_ARG : DMESH_SUCCESS);
    for (int d = 0; d < 2; d++) {
        kind = 0;
        MT_OK(dmesh_get_dim_locality(mesh, d, &kind));
        MT_EQ(kind, locality_of(n.lows, ident, n.shape, d));
    }
    MT_OK(dmesh_init(MPI_COMM_WORLD, "cpu", 2, n.shape, NULL, info, &by_node));
    if (mt_rank == 0) { /* local: kept from the creation */
        MT_OK(dmesh_get_dim_locality(by_node, 1, &kind));
        MT_EQ(kind, locality_of(n.lows, n.order, n.shape, 1));
        MT_OK(dmesh_get_dim_locality(by_node, 0, &kind));
        MT_EQ(kind, locality_of(n.lows, n.order, n.shape, 0));
    }
    MT_RC(dmesh_get_dim_locality(by_node, 2, &kind), DMESH_ERR_ARG);
    MT_OK(dmesh_free(&by_node));
    /* a bad dim on rank 0 alone, at the first (collective) call of a new
     * universe: rank 0 fails, the others get their answer, nobody waits */
    MT_OK(dmesh_init(MPI_COMM_WORLD, "cpu", 2, n.shape, NULL, MPI_INFO_NULL, &by_node));
    MT_RC(dmesh_get_dim_locality(by_node, mt_rank == 0 ? 2 : 1, &kind),
          mt_rank == 0 ? DMESH_ERR_ARG : DMESH_SUCCESS);
    MPI_Barrier(MPI_COMM_WORLD);                      /* no rank is still inside the call */
    MT_OK(dmesh_get_dim_locality(by_node, 1, &kind)); /* local now, on every rank */
    MT_EQ(kind, locality_of(n.lows, ident, n.shape, 1));
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
    tcase_add_test(t, node_order_nodes);
    tcase_add_test(t, node_order_errors);
    tcase_add_test(t, hybrid_layout_cyclic);
    tcase_add_test(t, hybrid_uneven_nodes);
    tcase_add_test(t, hybrid_nodes);
    tcase_add_test(t, hybrid_zeros);
    tcase_add_test(t, locality_cyclic);
    tcase_add_test(t, locality_nodes);
    suite_add_tcase(s, t);
    return s;
}

int main(int argc, char **argv)
{
    return mt_main(&argc, &argv, comm_suite);
}
