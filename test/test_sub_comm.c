/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI tests of dmesh_get_sub_comm and of processes outside a mesh.
 *
 * dmesh_get_sub_comm is checked against MPI_Cart_sub for every remain_dims
 * pattern of every 3-D and 4-D shape of the world and of a mesh one rank
 * smaller (its last rank outside), over the identity and a reversed rank
 * map: the same members in the same order (MPI_Group_translate_ranks to the
 * world) and the same allreduce result. Then the communicator it shares
 * with dmesh_flatten (one handle, whichever call comes first, nothing
 * created by the second), the extremes (every flag 0: the caller alone;
 * every flag 1: the whole mesh), unnamed and derived meshes, the agreement
 * on its arguments; the coordinates of a process outside a mesh
 * (MPI_UNDEFINED); and dmesh_free on processes outside a mesh while the
 * members still use their communicators: local (the members wait for the
 * outsiders' message, sent after their free, before they free theirs),
 * with no communicator left behind anywhere (test/comm_count.c). Run at
 * 1, 2, 4, 6 and 8 ranks (test/test_sub_comm-np*.mpi). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "comm_count.h"
#include "mesh_testutil.h"

static const char *const D3[] = {"dp", "cp", "tp"};

/* The members of comm as ranks of MPI_COMM_WORLD, in comm's rank order;
 * -1 for MPI_COMM_NULL. */
static int world_members(MPI_Comm comm, int out[])
{
    return mt_members_in(comm, MPI_COMM_WORLD, out);
}

/* got is want: both MPI_COMM_NULL, or the same members in the same order,
 * the caller at the same rank, and the same sum of world ranks squared (a
 * real allreduce on each). */
static void check_same_comm(MPI_Comm got, MPI_Comm want, const char *what, int mask)
{
    int mg[MT_MAX_RANKS], mw[MT_MAX_RANKS], ng = world_members(got, mg),
                                            nw = world_members(want, mw);
    long long x = (long long)mt_rank * mt_rank, sg = -1, sw = -2;
    int rg = -1, rw = -2;

    if (ng != nw || (ng > 0 && !mt_same_ints(mg, mw, ng))) {
        mt_fail(__FILE__, __LINE__, "%s, remain mask %#x: %d members, expected %d (or order)", what,
                mask, ng, nw);
        return;
    }
    if (ng < 0)
        return;
    MPI_Comm_rank(got, &rg);
    MPI_Comm_rank(want, &rw);
    MT_EQ(rg, rw);
    MPI_Allreduce(&x, &sg, 1, MPI_LONG_LONG, MPI_SUM, got);
    MPI_Allreduce(&x, &sw, 1, MPI_LONG_LONG, MPI_SUM, want);
    MT_EQ(sg, sw);
}

/* remain_dims of pattern mask: bit nd-1-d keeps dimension d. */
static void pattern(int nd, int mask, int remain[])
{
    for (int d = 0; d < nd; d++)
        remain[d] = (mask >> (nd - 1 - d)) & 1;
}

/* MPI's view of a mesh of shape over ranks[0..n): the world's ranks in
 * rank-map order, made Cartesian (reorder off); MPI_COMM_NULL outside. */
static MPI_Comm reference_cart(int nd, const int shape[], int n, const int ranks[])
{
    int periods[DMESH_MAX_DIMS] = {0}, index = MPI_UNDEFINED;
    MPI_Comm ordered, cart = MPI_COMM_NULL;

    for (int i = 0; i < n; i++)
        if (ranks[i] == mt_rank)
            index = i;
    MPI_Comm_split(MPI_COMM_WORLD, index == MPI_UNDEFINED ? MPI_UNDEFINED : 0, index, &ordered);
    if (ordered != MPI_COMM_NULL) {
        MPI_Cart_create(ordered, nd, shape, periods, 0, &cart);
        MPI_Comm_free(&ordered);
    }
    return cart;
}

/* Every remain_dims pattern of one mesh against MPI_Cart_sub; a second
 * call gives the same handle and creates nothing. */
static void compare_shape(int nd, const int shape[], int n, int reversed)
{
    int ranks[MT_MAX_RANKS] = {0}, remain[DMESH_MAX_DIMS];
    dmesh_t mesh = DMESH_NULL;
    MPI_Comm cart, sub, want, again;
    dmesh_cache_info_t before;

    for (int i = 0; i < n; i++)
        ranks[i] = reversed ? n - 1 - i : i;
    if (MT_OK(dmesh_create(MPI_COMM_WORLD, "cpu", nd, shape, ranks, NULL, MPI_INFO_NULL, &mesh)) !=
        DMESH_SUCCESS)
        return;
    cart = reference_cart(nd, shape, n, ranks);
    for (int mask = 0; mask < 1 << nd; mask++) {
        pattern(nd, mask, remain);
        sub = MPI_COMM_WORLD;
        MT_OK(dmesh_get_sub_comm(mesh, remain, &sub));
        want = MPI_COMM_NULL;
        if (cart != MPI_COMM_NULL)
            MPI_Cart_sub(cart, remain, &want);
        /* every flag false: MPI_Cart_sub's result is the caller alone (MPI
         * 4.0, 7.5.7); MPICH 4.0 gives MPI_COMM_NULL there instead */
        if (mask == 0 && cart != MPI_COMM_NULL && want == MPI_COMM_NULL)
            MPI_Comm_dup(MPI_COMM_SELF, &want);
        check_same_comm(sub, want, "dmesh_get_sub_comm against MPI_Cart_sub", mask);
        if (want != MPI_COMM_NULL)
            MPI_Comm_free(&want);
        before = mt_cache(mesh);
        again = MPI_COMM_WORLD;
        MT_OK(dmesh_get_sub_comm(mesh, remain, &again));
        MT_CHECK(again == sub);
        MT_EQ(mt_cache(mesh).comms_mpi, before.comms_mpi);
    }
    if (cart != MPI_COMM_NULL)
        MPI_Comm_free(&cart);
    MT_OK(dmesh_free(&mesh));
}

/* Every nd-factor shape of n, over the identity and (odd shapes) the
 * reversed rank map. */
static void compare_all(int nd, int n)
{
    int out[4 * 64], count = mt_factorisations(n, nd, 64, out);

    for (int i = 0; i < count; i++)
        compare_shape(nd, &out[i * nd], n, i % 2);
}

MT_TEST(against_cart_sub_3d)
{
    compare_all(3, mt_size);
    if (mt_size > 1)
        compare_all(3, mt_size - 1);
}

MT_TEST(against_cart_sub_4d)
{
    compare_all(4, mt_size);
    if (mt_size > 1)
        compare_all(4, mt_size - 1);
}

/* The slice of root's kept dims flattened: its communicator. */
static MPI_Comm flattened(dmesh_t root, const int remain[], dmesh_t *flat)
{
    const char *names[3];
    dmesh_t slice = DMESH_NULL;
    MPI_Comm c = MPI_COMM_WORLD;
    int n = 0;

    for (int d = 0; d < 3; d++)
        if (remain[d])
            names[n++] = D3[d];
    MT_OK(dmesh_slice(root, n, names, &slice));
    MT_OK(dmesh_flatten(slice, NULL, MPI_INFO_NULL, flat));
    MT_OK(dmesh_get_comm(*flat, 0, &c));
    MT_OK(dmesh_free(&slice));
    return c;
}

/* One handle with dmesh_flatten's, whichever comes first; the second call
 * creates no communicator (it is a cache hit). */
static void shared_pattern(int mask, int sub_first)
{
    int shape[3] = {0, 0, 0}, remain[3];
    dmesh_t root = DMESH_NULL, flat = DMESH_NULL;
    dmesh_cache_info_t before;
    MPI_Comm sub = MPI_COMM_WORLD, fc = MPI_COMM_NULL;

    pattern(3, mask, remain);
    MT_OK(dmesh_init(MPI_COMM_WORLD, "cpu", 3, shape, D3, MPI_INFO_NULL, &root));
    if (sub_first)
        MT_OK(dmesh_get_sub_comm(root, remain, &sub));
    else
        fc = flattened(root, remain, &flat);
    before = mt_cache(root);
    if (sub_first)
        fc = flattened(root, remain, &flat);
    else
        MT_OK(dmesh_get_sub_comm(root, remain, &sub));
    MT_CHECK(sub == fc);
    MT_EQ(mt_cache(root).comms_mpi, before.comms_mpi);
    if (!sub_first) /* (flatten of one dim to its own name looks nothing up) */
        MT_CHECK(mt_cache(root).hits > before.hits);
    MT_OK(dmesh_free(&flat));
    MT_OK(dmesh_free(&root));
}

MT_TEST(shared_with_flatten)
{
    for (int mask = 1; mask < 8; mask++) {
        shared_pattern(mask, 1);
        shared_pattern(mask, 0);
    }
}

/* Every flag 0: the caller alone; every flag 1: the mesh tensor's order;
 * one flag: dmesh_get_comm's communicator. On an unnamed mesh and on a
 * slice of a named one. */
MT_TEST(extremes_and_derived)
{
    int shape[3] = {0, 0, 0}, none[3] = {0, 0, 0}, all[3] = {1, 1, 1}, one[3];
    int got[MT_MAX_RANKS], want[MT_MAX_RANKS], n, nw;
    dmesh_t mesh = DMESH_NULL, root = DMESH_NULL, slice = DMESH_NULL;
    const char *dt[2] = {"dp", "tp"};
    MPI_Comm c = MPI_COMM_WORLD, dc = MPI_COMM_NULL;

    MT_OK(dmesh_init(MPI_COMM_WORLD, "cpu", 3, shape, NULL, MPI_INFO_NULL, &mesh));
    MT_OK(dmesh_get_sub_comm(mesh, none, &c));
    n = world_members(c, got);
    MT_EQ(n, 1);
    MT_EQ(got[0], mt_rank);
    MT_OK(dmesh_get_sub_comm(mesh, all, &c));
    n = world_members(c, got);
    MT_OK(dmesh_get_ranks(mesh, MT_MAX_RANKS, want, &nw));
    MT_EQ(n, nw);
    MT_CHECK(n == nw && mt_same_ints(got, want, n));
    for (int d = 0; d < 3; d++) {
        for (int k = 0; k < 3; k++)
            one[k] = k == d;
        MT_OK(dmesh_get_sub_comm(mesh, one, &c));
        MT_OK(dmesh_get_comm(mesh, d, &dc));
        MT_CHECK(c == dc);
    }
    MT_OK(dmesh_free(&mesh));

    /* a slice (dp, tp): keeping its dim 0 is the root's dp */
    MT_OK(dmesh_init(MPI_COMM_WORLD, "cpu", 3, shape, D3, MPI_INFO_NULL, &root));
    MT_OK(dmesh_slice(root, 2, dt, &slice));
    one[0] = 1;
    one[1] = 0;
    MT_OK(dmesh_get_sub_comm(slice, one, &c));
    MT_OK(dmesh_get_comm(root, 0, &dc));
    MT_CHECK(c == dc);
    one[0] = 1;
    one[1] = 1;
    MT_OK(dmesh_get_sub_comm(slice, one, &c));
    n = world_members(c, got);
    MT_OK(dmesh_get_ranks(slice, MT_MAX_RANKS, want, &nw));
    MT_CHECK(n == nw && mt_same_ints(got, want, n));
    MT_OK(dmesh_free(&slice));
    MT_OK(dmesh_free(&root));
}

/* Argument errors, agreed by every rank; the output untouched. */
MT_TEST(errors)
{
    int shape[2] = {0, 0}, remain[2] = {1, 0}, rc;
    dmesh_t mesh = DMESH_NULL;
    MPI_Comm c = MPI_COMM_WORLD;

    MT_RC(dmesh_get_sub_comm(DMESH_NULL, remain, &c), DMESH_ERR_ARG);
    MT_OK(dmesh_init(MPI_COMM_WORLD, "cpu", 2, shape, NULL, MPI_INFO_NULL, &mesh));
    MT_RC(dmesh_get_sub_comm(mesh, NULL, &c), DMESH_ERR_ARG);
    MT_CHECK(c == MPI_COMM_NULL); /* an output handle: its null on failure */
    c = MPI_COMM_WORLD;
    MT_RC(dmesh_get_sub_comm(mesh, remain, NULL), DMESH_ERR_ARG);
    /* one rank's bad argument fails the call everywhere */
    rc = dmesh_get_sub_comm(mesh, mt_rank == 0 ? NULL : remain, &c);
    MT_CHECK(rc != DMESH_SUCCESS);
    MT_SAME(MPI_COMM_WORLD, rc);
    MT_CHECK(c == MPI_COMM_NULL);
    if (mt_size > 1) {
        remain[1] = mt_rank == 0;
        c = MPI_COMM_WORLD;
        MT_RC(dmesh_get_sub_comm(mesh, remain, &c), DMESH_ERR_MISMATCH);
        MT_CHECK(c == MPI_COMM_NULL);
    }
    /* and the call works afterwards */
    remain[1] = 1;
    MT_OK(dmesh_get_sub_comm(mesh, remain, &c));
    MT_EQ(world_members(c, (int[MT_MAX_RANKS]){0}), mt_size);
    MT_OK(dmesh_free(&mesh));
}

/* Outside a mesh of size - 1 ranks: every coordinate MPI_UNDEFINED, from
 * dmesh_get_coordinate and dmesh_get_coordinate_of, only ndims written. */
MT_TEST(outside_coordinates)
{
    int shape[2] = {1, mt_size - 1}, c[3], member = -1;
    dmesh_t mesh = DMESH_NULL;

    if (mt_size < 2)
        return;
    MT_OK(dmesh_init(MPI_COMM_WORLD, "cpu", 2, shape, NULL, MPI_INFO_NULL, &mesh));
    c[0] = c[1] = c[2] = -7;
    MT_OK(dmesh_get_coordinate(mesh, 3, c, &member));
    MT_EQ(member, mt_rank < mt_size - 1);
    MT_EQ(c[0], member ? 0 : MPI_UNDEFINED);
    MT_EQ(c[1], member ? mt_rank : MPI_UNDEFINED);
    MT_EQ(c[2], -7);
    c[0] = c[1] = c[2] = -7;
    MT_OK(dmesh_get_coordinate_of(mesh, mt_size - 1, 3, c, &member));
    MT_EQ(member, 0);
    MT_EQ(c[0], MPI_UNDEFINED);
    MT_EQ(c[1], MPI_UNDEFINED);
    MT_EQ(c[2], -7);
    MT_OK(dmesh_free(&mesh));
}

/* Processes outside a mesh free it right after the last collective call,
 * and tell rank 0; the members use their communicators only after that
 * message, then free theirs: an outsider's dmesh_free must be local (were
 * it collective, the outsiders would wait for members that wait for them).
 * Nobody keeps a communicator afterwards. */
MT_TEST(free_outside_early)
{
    int n = mt_size >= 4 ? mt_size / 2 : mt_size - 1, shape[2] = {n % 2 ? 1 : 2, 0};
    int remain[2] = {1, 1}, periods[2] = {0, 1}, member, c[2], token = 1, sum = -1;
    int sizes[2] = {1, 0};
    const char *dt[2] = {"dp", "tp"}, *ab[2] = {"a", "b"};
    dmesh_t warm = DMESH_NULL, mesh = DMESH_NULL, flat = DMESH_NULL, un = DMESH_NULL;
    MPI_Comm sub = MPI_COMM_NULL, cart = MPI_COMM_NULL, dc;
    long base;

    if (mt_size < 2)
        return;
    shape[1] = n / shape[0];
    sizes[1] = shape[1];
    /* the private duplicate of the world stays for the program's life */
    MT_OK(dmesh_init(MPI_COMM_WORLD, "cpu", 1, &n, NULL, MPI_INFO_NULL, &warm));
    MT_OK(dmesh_free(&warm));
    base = comm_count_live();
    MT_OK(dmesh_init(MPI_COMM_WORLD, "cpu", 2, shape, dt, MPI_INFO_NULL, &mesh));
    MT_OK(dmesh_flatten(mesh, NULL, MPI_INFO_NULL, &flat));
    MT_OK(dmesh_unflatten(mesh, 1, 2, sizes, ab, MPI_INFO_NULL, &un));
    remain[0] = 0;
    MT_OK(dmesh_get_sub_comm(mesh, remain, &sub));
    MT_OK(dmesh_get_cart_comm(mesh, periods, 0, &cart));
    MT_OK(dmesh_get_coordinate(mesh, 2, c, &member));
    MT_EQ(member, mt_rank < n);
    if (member) /* the count sees dmesh's communicators */
        MT_CHECK(comm_count_live() > base);
    if (!member) {
        MT_CHECK(sub == MPI_COMM_NULL && cart == MPI_COMM_NULL);
        MT_OK(dmesh_free(&un));
        MT_OK(dmesh_free(&mesh));
        MT_OK(dmesh_free(&flat));
        MT_EQ(comm_count_live(), base);
        MPI_Send(&token, 1, MPI_INT, 0, 35, MPI_COMM_WORLD);
    } else {
        if (mt_rank == 0)
            for (int i = n; i < mt_size; i++)
                MPI_Recv(&token, 1, MPI_INT, MPI_ANY_SOURCE, 35, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        MT_OK(dmesh_get_comm(flat, 0, &dc));
        MPI_Barrier(dc); /* the members wait for rank 0's messages */
        MPI_Allreduce(&token, &sum, 1, MPI_INT, MPI_SUM, sub);
        MT_EQ(sum, shape[1]);
        MPI_Allreduce(&token, &sum, 1, MPI_INT, MPI_SUM, cart);
        MT_EQ(sum, n);
        MT_OK(dmesh_get_comm(un, 2, &dc));
        MPI_Allreduce(&token, &sum, 1, MPI_INT, MPI_SUM, dc);
        MT_EQ(sum, shape[1]);
        MT_OK(dmesh_free(&flat));
        MT_OK(dmesh_free(&mesh));
        MT_OK(dmesh_free(&un));
        MT_EQ(comm_count_live(), base);
    }
    MPI_Barrier(MPI_COMM_WORLD);
}

static Suite *make_suite(void)
{
    Suite *s = suite_create("sub_comm");
    TCase *tc = tcase_create("sub_comm");

    tcase_set_timeout(tc, 0);
    tcase_add_test(tc, against_cart_sub_3d);
    tcase_add_test(tc, against_cart_sub_4d);
    tcase_add_test(tc, shared_with_flatten);
    tcase_add_test(tc, extremes_and_derived);
    tcase_add_test(tc, errors);
    tcase_add_test(tc, outside_coordinates);
    tcase_add_test(tc, free_outside_early);
    suite_add_tcase(s, tc);
    return s;
}

int main(int argc, char **argv)
{
    return mt_main(&argc, &argv, make_suite);
}
