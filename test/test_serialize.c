/* SPDX-License-Identifier: BSD-3-Clause */
/* MPI tests of dmesh_serialize / dmesh_deserialize: round trips of root,
 * derived and partial meshes (equal meshes, the same text again, real
 * communicators with the same members and a working allreduce, flattened
 * names registered again), snprintf rules, malformed texts (DMESH_ERR_ARG
 * with line, column and byte offset, the same class on every rank), a
 * communicator too small, and different texts on different ranks. Run under
 * mpirun at 1, 2, 4, 6 and 8 ranks (test/test_serialize-np*.mpi). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mesh_testutil.h"

static const char *const D3[] = {"dp", "cp", "tp"};

static char *save(dmesh_t mesh)
{
    size_t needed = 0, again = 0;
    char *text;

    MT_OK(dmesh_serialize(mesh, NULL, 0, &needed));
    text = malloc(needed + 1);
    MT_OK(dmesh_serialize(mesh, text, needed + 1, &again));
    MT_EQ(again, needed);
    MT_EQ(strlen(text), needed);
    return text;
}

/* The restored mesh has the same communicators' members as the original,
 * and an allreduce over each gives the sum of those members. */
static void same_comms(dmesh_t a, dmesh_t b)
{
    int nd = 0, ma[MT_MAX_RANKS], mb[MT_MAX_RANKS], na, nb, sum, want;
    MPI_Comm c;

    MT_OK(dmesh_get_ndims(a, &nd));
    for (int d = 0; d < nd; d++) {
        na = mt_comm_members(a, d, MPI_COMM_WORLD, ma);
        nb = mt_comm_members(b, d, MPI_COMM_WORLD, mb);
        MT_EQ(na, nb);
        if (na <= 0 || na != nb)
            continue;
        MT_CHECK(mt_same_ints(ma, mb, na));
        MT_OK(dmesh_get_comm(b, d, &c));
        MPI_Allreduce(&mt_rank, &sum, 1, MPI_INT, MPI_SUM, c);
        want = 0;
        for (int i = 0; i < na; i++)
            want += mb[i];
        MT_EQ(sum, want);
    }
}

/* Save, restore on the world, compare; returns the restored mesh. */
static dmesh_t round_trip(dmesh_t mesh)
{
    dmesh_t back = DMESH_NULL;
    char *text = save(mesh), *again;
    int eq = 0;

    MT_OK(dmesh_deserialize(MPI_COMM_WORLD, text, MPI_INFO_NULL, &back));
    if (back == DMESH_NULL) {
        free(text);
        return back;
    }
    MT_OK(dmesh_equal(mesh, back, &eq));
    MT_EQ(eq, 1);
    again = save(back);
    MT_STREQ(again, text);
    same_comms(mesh, back);
    free(again);
    free(text);
    return back;
}

MT_TEST(round_trip_roots)
{
    int out[3 * 64];

    for (int nd = 1; nd <= 3; nd++) {
        int count = mt_factorisations(mt_size, nd, 64, out);
        for (int i = 0; i < count && i < 6; i++) {
            dmesh_t mesh = DMESH_NULL, back;
            MT_OK(dmesh_init(MPI_COMM_WORLD, "cpu", nd, &out[i * nd], i % 2 ? D3 : NULL,
                             MPI_INFO_NULL, &mesh));
            back = round_trip(mesh);
            MT_OK(dmesh_free(&back));
            MT_OK(dmesh_free(&mesh));
        }
    }
}

MT_TEST(round_trip_rank_map_and_partial)
{
    int ranks[MT_MAX_RANKS], n = mt_size > 1 ? mt_size - 1 : 1, shape[1] = {n}, member = -1, c[1];
    dmesh_t mesh = DMESH_NULL, back;

    for (int i = 0; i < n; i++)
        ranks[i] = mt_size - 1 - i;
    MT_OK(dmesh_create(MPI_COMM_WORLD, "cpu", 1, shape, ranks, NULL, MPI_INFO_NULL, &mesh));
    back = round_trip(mesh);
    if (back != DMESH_NULL) {
        MT_OK(dmesh_get_coordinate(back, 1, c, &member));
        MT_EQ(member, mt_rank > 0 || mt_size == 1);
    }
    MT_OK(dmesh_free(&back));
    MT_OK(dmesh_free(&mesh));
}

/* Derived meshes: a slice, a flattened slice (its name registered on the
 * root, which the restored root can slice by), an unflattened mesh. */
MT_TEST(round_trip_derived)
{
    int shape[3] = {mt_size % 2 ? 1 : 2, 1, 0}, sizes[2] = {1, 0};
    const char *dt[2] = {"dp", "tp"}, *flatname = "dp_tp", *un[2] = {"a", "b"};
    dmesh_t mesh = DMESH_NULL, sub = DMESH_NULL, flat = DMESH_NULL, unf = DMESH_NULL;
    dmesh_t b_root, b_sub, b_flat, b_unf, s1 = DMESH_NULL, s2 = DMESH_NULL;
    int eq = 0, ranks[2][MT_MAX_RANKS], n1 = 0, n2 = 0;

    shape[2] = mt_size / shape[0];
    sizes[1] = shape[2];
    MT_OK(dmesh_init(MPI_COMM_WORLD, "cpu", 3, shape, D3, MPI_INFO_NULL, &mesh));
    MT_OK(dmesh_slice(mesh, 2, dt, &sub));
    MT_OK(dmesh_flatten(sub, NULL, MPI_INFO_NULL, &flat));
    MT_OK(dmesh_unflatten(mesh, 2, 2, sizes, un, MPI_INFO_NULL, &unf));
    b_sub = round_trip(sub);
    b_flat = round_trip(flat);
    b_unf = round_trip(unf);
    b_root = round_trip(mesh);
    /* the restored root knows dp_tp: slicing it gives the flattened groups */
    MT_OK(dmesh_slice(mesh, 1, &flatname, &s1));
    MT_OK(dmesh_slice(b_root, 1, &flatname, &s2));
    MT_OK(dmesh_equal(s1, s2, &eq));
    MT_EQ(eq, 1);
    MT_OK(dmesh_get_group_ranks(s1, 0, MT_MAX_RANKS, ranks[0], &n1));
    MT_OK(dmesh_get_group_ranks(s2, 0, MT_MAX_RANKS, ranks[1], &n2));
    MT_EQ(n1, n2);
    MT_CHECK(mt_same_ints(ranks[0], ranks[1], n1));
    same_comms(s1, s2);
    /* a restored slice is no root: it cannot slice by registered names */
    dmesh_free(&s2);
    MT_RC(dmesh_slice(b_sub, 1, &flatname, &s2), DMESH_ERR_NAME);
    dmesh_free(&s1);
    dmesh_free(&s2);
    dmesh_free(&b_root);
    dmesh_free(&b_sub);
    dmesh_free(&b_flat);
    dmesh_free(&b_unf);
    dmesh_free(&unf);
    dmesh_free(&flat);
    dmesh_free(&sub);
    MT_OK(dmesh_free(&mesh));
}

MT_TEST(snprintf_rules)
{
    int shape[1] = {mt_size};
    dmesh_t mesh = DMESH_NULL;
    char small[10], *full;
    size_t needed = 0, n2 = 0;

    MT_OK(dmesh_init(MPI_COMM_WORLD, "cpu", 1, shape, NULL, MPI_INFO_NULL, &mesh));
    full = save(mesh);
    MT_OK(dmesh_serialize(mesh, small, sizeof(small), &needed));
    MT_EQ(needed, strlen(full));
    MT_EQ(strlen(small), sizeof(small) - 1);
    MT_CHECK(strncmp(small, full, sizeof(small) - 1) == 0);
    MT_OK(dmesh_serialize(mesh, NULL, 0, NULL));
    MT_RC(dmesh_serialize(mesh, NULL, 5, &n2), DMESH_ERR_ARG);
    MT_RC(dmesh_serialize(DMESH_NULL, small, sizeof(small), &n2), DMESH_ERR_ARG);
    free(full);
    MT_OK(dmesh_free(&mesh));
}

/* A malformed text fails with ARG on every rank, naming the position. */
static void expect_malformed(const char *text, const char *where)
{
    dmesh_t m = DMESH_NULL;

    MT_FAILS_CREATE(MPI_COMM_WORLD, dmesh_deserialize(MPI_COMM_WORLD, text, MPI_INFO_NULL, &m),
                    DMESH_ERR_ARG, m);
    if (where != NULL && strstr(dmesh_last_error(), where) == NULL)
        mt_fail(__FILE__, __LINE__, "\"%s\" not in \"%s\"", where, dmesh_last_error());
}

MT_TEST(malformed_texts)
{
    static const char ok[] = "dmesh-mesh 1\ndevice cpu\nranks 1 identity\nroot - 1:0\n"
                             "dim - 1:0 mpi\nis-root 1\nend\n";
    dmesh_t m = DMESH_NULL;
    int eq;

    MT_OK(dmesh_deserialize(MPI_COMM_WORLD, ok, MPI_INFO_NULL, &m));
    MT_OK(dmesh_equal(m, m, &eq));
    dmesh_free(&m);
    expect_malformed("", "line 1, column 1 (byte 0)");
    expect_malformed("dmesh-mesh 2\n", "line 1, column 1 (byte 0): version 2");
    expect_malformed("dmesh-mesh 1\ndevice gpu\n", "line 2, column 8 (byte 20)");
    expect_malformed("dmesh-mesh 1\ndevice cpu\nranks 2 : 0 0\n", "line 3");
    expect_malformed("dmesh-mesh 1\ndevice cpu\nranks 2 : 0\n", "line 3, column 12");
    expect_malformed("dmesh-mesh 1\ndevice cpu\nranks 1 identity\nroot - 1:0\n"
                     "dim - (2,2):(1,1) mpi\nis-root 0\nend\n",
                     "line 5, column 7");
    expect_malformed("dmesh-mesh 1\ndevice cpu\nranks 1 identity\nroot \"a\" 1:0\n"
                     "dim \"a\" 1:0 gloo\nis-root 1\nend\n",
                     "line 5, column 13");
    expect_malformed("dmesh-mesh 1\ndevice cpu\nranks 1 identity\nroot - 1:0\n"
                     "dim - 1:0 mpi\nis-root 1\nend\nmore",
                     "line 8, column 1 (byte 80)");
    expect_malformed("dmesh-mesh 1\ndevice cpu\nranks 1 identity\nroot - 1:0\n"
                     "dim - 1:0 mpi\nis-root 1\n",
                     "line 7, column 1 (byte 76): expected end");
    expect_malformed(NULL, NULL);
}

/* Ranks beyond the communicator: SIZE on every rank. */
MT_TEST(communicator_too_small)
{
    char text[128];
    dmesh_t m = DMESH_NULL;

    snprintf(text, sizeof(text),
             "dmesh-mesh 1\ndevice cpu\nranks %d identity\nroot - %d:1\n"
             "dim - %d:1 mpi\nis-root 1\nend\n",
             mt_size + 1, mt_size + 1, mt_size + 1);
    MT_FAILS_CREATE(MPI_COMM_WORLD, dmesh_deserialize(MPI_COMM_WORLD, text, MPI_INFO_NULL, &m),
                    DMESH_ERR_SIZE, m);
}

/* Different (valid) texts on different ranks: MISMATCH everywhere. */
MT_TEST(different_texts)
{
    int shape[1] = {mt_size};
    const char *name = "xx";
    dmesh_t mesh = DMESH_NULL, back = DMESH_NULL;
    char *text, *at;

    if (mt_size < 2)
        return;
    MT_OK(dmesh_init(MPI_COMM_WORLD, "cpu", 1, shape, &name, MPI_INFO_NULL, &mesh));
    text = save(mesh);
    while (mt_rank == 0 && (at = strstr(text, "\"xx\"")) != NULL)
        at[1] = 'y'; /* rank 0: another, valid, name */
    MT_FAILS_CREATE(MPI_COMM_WORLD, dmesh_deserialize(MPI_COMM_WORLD, text, MPI_INFO_NULL, &back),
                    DMESH_ERR_MISMATCH, back);
    free(text);
    MT_OK(dmesh_free(&mesh));
}

/* Different options on different ranks: rank 0 asks for split creation,
 * or turns the agreement check off, the others keep the defaults. The
 * ranks would enter different creations (MPI_Comm_split against
 * MPI_Comm_create_group) or different agreements; every rank must return
 * DMESH_ERR_MISMATCH instead. */
MT_TEST(different_options)
{
    static const char *const keys[][2] = {{"dmesh_comm_create", "split"}, {"dmesh_check", "false"}};
    int shape[3] = {mt_size, 1, 1};
    dmesh_t mesh = DMESH_NULL, back = DMESH_NULL, flat = DMESH_NULL;
    MPI_Info info;
    char *text;

    if (mt_size < 2)
        return;
    MT_OK(dmesh_init(MPI_COMM_WORLD, "cpu", 3, shape, D3, MPI_INFO_NULL, &mesh));
    MT_OK(dmesh_flatten(mesh, NULL, MPI_INFO_NULL, &flat));
    text = save(mesh);
    for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
        MPI_Info_create(&info);
        if (mt_rank == 0)
            MPI_Info_set(info, keys[k][0], keys[k][1]);
        MT_FAILS_CREATE(MPI_COMM_WORLD, dmesh_deserialize(MPI_COMM_WORLD, text, info, &back),
                        DMESH_ERR_MISMATCH, back);
        MPI_Info_free(&info);
    }
    /* the communicator still works: nothing was left half made */
    MT_OK(dmesh_deserialize(MPI_COMM_WORLD, text, MPI_INFO_NULL, &back));
    same_comms(mesh, back);
    MT_OK(dmesh_free(&back));
    free(text);
    MT_OK(dmesh_free(&flat));
    MT_OK(dmesh_free(&mesh));
}

/* A mesh of dmesh_from_comms without ranks has a rank map per group. */
MT_TEST(from_comms_refused)
{
    int shape[1] = {mt_size};
    MPI_Comm dims[1] = {MPI_COMM_WORLD};
    dmesh_t mesh = DMESH_NULL;
    size_t needed;

    MT_OK(dmesh_from_comms(MPI_COMM_WORLD, "cpu", 1, dims, shape, NULL, NULL, &mesh));
    MT_RC(dmesh_serialize(mesh, NULL, 0, &needed), DMESH_ERR_ARG);
    MT_OK(dmesh_free(&mesh));
}

static Suite *serialize_suite(void)
{
    Suite *s = suite_create("serialize");
    TCase *t = tcase_create("serialize");

    tcase_set_timeout(t, 0);
    tcase_add_test(t, round_trip_roots);
    tcase_add_test(t, round_trip_rank_map_and_partial);
    tcase_add_test(t, round_trip_derived);
    tcase_add_test(t, snprintf_rules);
    tcase_add_test(t, malformed_texts);
    tcase_add_test(t, communicator_too_small);
    tcase_add_test(t, different_texts);
    tcase_add_test(t, different_options);
    tcase_add_test(t, from_comms_refused);
    suite_add_tcase(s, t);
    return s;
}

int main(int argc, char **argv)
{
    return mt_main(&argc, &argv, serialize_suite);
}
