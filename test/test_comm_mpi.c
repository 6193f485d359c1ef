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
#include "error.h"
#include "mesh_testutil.h"

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

static Suite *comm_suite(void)
{
    Suite *s = suite_create("comm_mpi");
    TCase *t = tcase_create("split");

    tcase_add_test(t, colour_past_int_max);
    tcase_add_test(t, group_creation_ignores_base);
    suite_add_tcase(s, t);
    return s;
}

int main(int argc, char **argv)
{
    return mt_main(&argc, &argv, comm_suite);
}
