/* SPDX-License-Identifier: BSD-3-Clause */
/* Dimensions by name: every _by_name call against its index form on a real
 * mesh (communicator membership through MPI_Group_translate_ranks, equal
 * results), names the mesh lacks (class and detail), and dimensions named
 * like numbers ("1", "2d") resolved by name in calls, in unflatten and in
 * options. The name forms of shrink and grow against their index forms:
 * test_ft.c and test_respawn.c (they need fault tolerance or spawning). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mesh_testutil.h"

static const char *const DCT[] = {"dp", "cp", "tp"};

/* A mesh of the whole world with ndims dims (MPI_Dims_create's shape). */
static dmesh_t world_mesh(int ndims, const char *const names[], MPI_Info info, int shape[])
{
    dmesh_t mesh = DMESH_NULL;

    for (int d = 0; d < ndims; d++)
        shape[d] = 0;
    MPI_Dims_create(mt_size, ndims, shape);
    MT_OK(dmesh_init(MPI_COMM_WORLD, "cpu", ndims, shape, names, info, &mesh));
    return mesh;
}

/* The queries of dim d by name and by index give the same results. */
static void same_queries(dmesh_t mesh, int d, const char *name, int size)
{
    int a = -1, b = -2, ra[MT_MAX_RANKS], rb[MT_MAX_RANKS], na = -1, nb = -2;
    int sa = -1, da = -1, sb = -2, db = -2, ga = -1, gb = -2, za = -1, zb = -2;
    MPI_Comm ca = MPI_COMM_NULL, cb = MPI_COMM_NULL;
    int *all_a, *all_b;

    MT_OK(dmesh_get_local_rank(mesh, d, &a));
    MT_OK(dmesh_get_local_rank_by_name(mesh, name, &b));
    MT_EQ(b, a);
    MT_OK(dmesh_get_dim_size(mesh, d, &a));
    MT_OK(dmesh_get_dim_size_by_name(mesh, name, &b));
    MT_EQ(a, size);
    MT_EQ(b, size);
    MT_OK(dmesh_get_group_ranks(mesh, d, MT_MAX_RANKS, ra, &na));
    MT_OK(dmesh_get_group_ranks_by_name(mesh, name, MT_MAX_RANKS, rb, &nb));
    MT_EQ(nb, na);
    MT_CHECK(na == size && mt_same_ints(ra, rb, na));
    /* the communicator: the same members, in the same order, as the index
     * form's and as the group ranks */
    MT_OK(dmesh_get_comm(mesh, d, &ca));
    MT_OK(dmesh_get_comm_by_name(mesh, name, &cb));
    MT_EQ(mt_members_in(cb, MPI_COMM_WORLD, rb), size);
    MT_CHECK(mt_same_ints(ra, rb, size));
    MT_EQ(mt_members_in(ca, MPI_COMM_WORLD, rb), size);
    MT_CHECK(mt_same_ints(ra, rb, size));
    for (int disp = -1; disp <= 2; disp++) {
        for (int periodic = 0; periodic <= 1; periodic++) {
            MT_OK(dmesh_shift(mesh, d, disp, periodic, &sa, &da));
            MT_OK(dmesh_shift_by_name(mesh, name, disp, periodic, &sb, &db));
            MT_EQ(sb, sa);
            MT_EQ(db, da);
        }
    }
    MT_OK(dmesh_get_all_groups(mesh, d, 0, 0, NULL, &ga, &za));
    MT_OK(dmesh_get_all_groups_by_name(mesh, name, 0, 0, NULL, &gb, &zb));
    MT_EQ(gb, ga);
    MT_EQ(zb, za);
    all_a = calloc((size_t)(ga * za) + 1, sizeof(int));
    all_b = calloc((size_t)(ga * za) + 1, sizeof(int));
    MT_OK(dmesh_get_all_groups(mesh, d, ga, za, all_a, &ga, &za));
    MT_OK(dmesh_get_all_groups_by_name(mesh, name, ga, za, all_b, &gb, &zb));
    MT_CHECK(ga * za == mt_size && mt_same_ints(all_a, all_b, ga * za));
    free(all_a);
    free(all_b);
    MT_OK(dmesh_get_dim_locality(mesh, d, &a));
    MT_OK(dmesh_get_dim_locality_by_name(mesh, name, &b));
    MT_EQ(b, a);
}

MT_TEST(by_name_as_by_index)
{
    int shape[3];
    dmesh_t mesh = world_mesh(3, DCT, MPI_INFO_NULL, shape);

    for (int d = 0; d < 3; d++)
        same_queries(mesh, d, DCT[d], shape[d]);
    dmesh_free(&mesh);
}

/* unflatten by name makes the mesh unflatten by index makes. */
MT_TEST(unflatten_by_name)
{
    static const char *const XY[] = {"x", "y"};
    int shape[3], sizes[2] = {0, 0}, eq = 0;
    dmesh_t mesh = world_mesh(3, DCT, MPI_INFO_NULL, shape), a = DMESH_NULL, b = DMESH_NULL;

    MPI_Dims_create(shape[2], 2, sizes);
    MT_OK(dmesh_unflatten(mesh, 2, 2, sizes, XY, MPI_INFO_NULL, &a));
    MT_OK(dmesh_unflatten_by_name(mesh, "tp", 2, sizes, XY, MPI_INFO_NULL, &b));
    MT_OK(dmesh_equal(a, b, &eq));
    MT_EQ(eq, 1);
    same_queries(b, 3, "y", sizes[1]);
    dmesh_free(&b);
    dmesh_free(&a);
    dmesh_free(&mesh);
}

/* A name the mesh lacks: DMESH_ERR_NAME whose detail names the call, the
 * name and the mesh's names; NULL: DMESH_ERR_ARG; outputs untouched or
 * their nulls. */
static void expect_unknown(int line, const char *call, int rc)
{
    const char *e = dmesh_last_error();

    if (rc != DMESH_ERR_NAME || strstr(e, call) == NULL || strstr(e, "\"tq\"") == NULL ||
        strstr(e, "(dp, cp, tp)") == NULL)
        mt_fail(__FILE__, line, "%s: class %d, detail \"%s\"", call, rc, e);
}

MT_TEST(unknown_name)
{
    int shape[3], v = 42, r[MT_MAX_RANKS], n = 42, s = 42, k = 42;
    MPI_Comm comm = MPI_COMM_WORLD;
    dmesh_t mesh = world_mesh(3, DCT, MPI_INFO_NULL, shape), out = mesh;
    int one[1] = {1};
    const char *const q[] = {"q"};

    expect_unknown(__LINE__, "dmesh_get_local_rank_by_name",
                   dmesh_get_local_rank_by_name(mesh, "tq", &v));
    expect_unknown(__LINE__, "dmesh_get_dim_size_by_name",
                   dmesh_get_dim_size_by_name(mesh, "tq", &v));
    expect_unknown(__LINE__, "dmesh_get_group_ranks_by_name",
                   dmesh_get_group_ranks_by_name(mesh, "tq", MT_MAX_RANKS, r, &n));
    expect_unknown(__LINE__, "dmesh_get_comm_by_name", dmesh_get_comm_by_name(mesh, "tq", &comm));
    expect_unknown(__LINE__, "dmesh_shift_by_name", dmesh_shift_by_name(mesh, "tq", 1, 1, &s, &k));
    expect_unknown(__LINE__, "dmesh_get_all_groups_by_name",
                   dmesh_get_all_groups_by_name(mesh, "tq", 0, 0, NULL, &n, &s));
    expect_unknown(__LINE__, "dmesh_get_dim_locality_by_name",
                   dmesh_get_dim_locality_by_name(mesh, "tq", &k));
    expect_unknown(__LINE__, "dmesh_get_dim_index", dmesh_get_dim_index(mesh, "tq", &k));
    MT_EQ(v, 42);
    MT_EQ(n, 42);
    MT_EQ(s, 42);
    MT_EQ(k, 42);
    MT_CHECK(comm == MPI_COMM_NULL);
    /* collective: every rank fails alike, after agreeing */
    expect_unknown(__LINE__, "dmesh_unflatten_by_name",
                   dmesh_unflatten_by_name(mesh, "tq", 1, one, q, MPI_INFO_NULL, &out));
    MT_CHECK(out == DMESH_NULL);
    /* a name that looks like an index is a name: no dimension "1" here */
    MT_RC(dmesh_get_local_rank_by_name(mesh, "1", &v), DMESH_ERR_NAME);
    MT_RC(dmesh_get_local_rank_by_name(mesh, NULL, &v), DMESH_ERR_ARG);
    MT_RC(dmesh_get_comm_by_name(mesh, NULL, &comm), DMESH_ERR_ARG);
    MT_RC(dmesh_unflatten_by_name(mesh, NULL, 1, one, q, MPI_INFO_NULL, &out), DMESH_ERR_ARG);
    MT_RC(dmesh_get_local_rank_by_name(DMESH_NULL, "dp", &v), DMESH_ERR_ARG);
    MT_RC(dmesh_get_local_rank_by_name(mesh, "dp", NULL), DMESH_ERR_ARG);
    MT_EQ(v, 42);
    dmesh_free(&mesh);
}

/* An unnamed mesh has no names to find; the detail says so. */
MT_TEST(unnamed_mesh)
{
    int shape[2], v = 42;
    dmesh_t mesh = world_mesh(2, NULL, MPI_INFO_NULL, shape);

    MT_RC(dmesh_get_local_rank_by_name(mesh, "0", &v), DMESH_ERR_NAME);
    MT_CHECK(strstr(dmesh_last_error(), "2 unnamed dimensions") != NULL);
    MT_EQ(v, 42);
    dmesh_free(&mesh);
}

/* Dimensions called "1" and "2d": found by name, in calls and options. */
static const char *const NUM[] = {"1", "2d"};

MT_TEST(numeric_names_in_calls)
{
    int shape[2];
    dmesh_t mesh = world_mesh(2, NUM, MPI_INFO_NULL, shape);

    same_queries(mesh, 0, "1", shape[0]);
    same_queries(mesh, 1, "2d", shape[1]);
    dmesh_free(&mesh);
}

/* unflatten by name "1" splits dim 0, as unflatten of index 0 does, and
 * not dim 1, which unflatten of index 1 splits; "2d" splits dim 1. */
MT_TEST(numeric_names_in_unflatten)
{
    static const char *const AB[] = {"a", "b"};
    int shape[2], eq = -1;
    dmesh_t mesh = world_mesh(2, NUM, MPI_INFO_NULL, shape);

    for (int d = 0; d < 2; d++) {
        int sizes[2] = {shape[d], 1}, other[2] = {shape[1 - d], 1};
        dmesh_t a = DMESH_NULL, b = DMESH_NULL, c = DMESH_NULL;

        MT_OK(dmesh_unflatten(mesh, d, 2, sizes, AB, MPI_INFO_NULL, &a));
        MT_OK(dmesh_unflatten_by_name(mesh, NUM[d], 2, sizes, AB, MPI_INFO_NULL, &b));
        MT_OK(dmesh_unflatten(mesh, 1 - d, 2, other, AB, MPI_INFO_NULL, &c));
        MT_OK(dmesh_equal(a, b, &eq));
        MT_EQ(eq, 1);
        MT_OK(dmesh_equal(b, c, &eq));
        MT_EQ(eq, 0);
        /* the split dim is "a" at d; the other keeps its name and size */
        same_queries(b, d, "a", shape[d]);
        same_queries(b, d == 0 ? 2 : 0, NUM[1 - d], shape[1 - d]);
        dmesh_free(&c);
        dmesh_free(&b);
        dmesh_free(&a);
    }
    dmesh_free(&mesh);
}

static MPI_Info info2(const char *k1, const char *v1, const char *k2, const char *v2)
{
    MPI_Info info;

    MPI_Info_create(&info);
    MPI_Info_set(info, k1, v1);
    if (k2 != NULL)
        MPI_Info_set(info, k2, v2);
    return info;
}

/* dmesh_backend.<dim>: "1" is the dimension called "1" (dim 0), so that
 * naming dim 0 again by its index is the error of both forms for one dim;
 * were "1" read as an index it would name dim 1, and no error. */
MT_TEST(numeric_names_in_options)
{
    int shape[2];
    dmesh_t mesh = DMESH_NULL;
    MPI_Info info = info2("dmesh_backend.1", "mpi", "dmesh_backend.0", "mpi");

    for (int d = 0; d < 2; d++)
        shape[d] = 0;
    MPI_Dims_create(mt_size, 2, shape);
    MT_RC(dmesh_init(MPI_COMM_WORLD, "cpu", 2, shape, NUM, info, &mesh), DMESH_ERR_ARG);
    MT_CHECK(strstr(dmesh_last_error(), "dimension 0 is named both") != NULL);
    MPI_Info_free(&info);
    /* by name "1" and by index 1: two dimensions, accepted */
    info = info2("dmesh_backend.1", "mpi", "dmesh_backend.2d", "mpi");
    mesh = world_mesh(2, NUM, info, shape);
    MT_CHECK(mesh != DMESH_NULL);
    dmesh_free(&mesh);
    MPI_Info_free(&info);
    /* a value that is neither: DMESH_ERR_ARG naming it and the names */
    info = info2("dmesh_backend.tq", "mpi", NULL, NULL);
    MT_RC(dmesh_init(MPI_COMM_WORLD, "cpu", 2, shape, NUM, info, &mesh), DMESH_ERR_ARG);
    MT_CHECK(strstr(dmesh_last_error(), "\"tq\"") != NULL &&
             strstr(dmesh_last_error(), "(1, 2d)") != NULL);
    MPI_Info_free(&info);
}

/* The partner of dmesh_copies_dim's dimension: the next index along it,
 * which dmesh_shift_by_name gives independently. */
static void copies_along(dmesh_t mesh, const char *value, const char *name)
{
    MPI_Info info = info2("dmesh_copies_dim", value, NULL, NULL);
    dmesh_copies_t c = DMESH_COPIES_NULL;
    int src = -1, dest = -1, group[MT_MAX_RANKS], n = -1, p[4] = {-1, -1, -1, -1}, np = -1;

    MT_OK(dmesh_copies_open(mesh, value, info, &c));
    MT_OK(dmesh_shift_by_name(mesh, name, 1, 1, &src, &dest));
    MT_OK(dmesh_get_group_ranks_by_name(mesh, name, MT_MAX_RANKS, group, &n));
    MT_OK(dmesh_copies_get_partners(c, 4, p, &np));
    if (n > 1) {
        MT_EQ(np, 1);
        MT_EQ(p[0], group[dest]);
    }
    dmesh_copies_free(&c);
    MPI_Info_free(&info);
}

MT_TEST(numeric_names_in_copies)
{
    int shape[2];
    dmesh_t mesh = world_mesh(2, NUM, MPI_INFO_NULL, shape), two;
    MPI_Info info = info2("dmesh_copies_dim", "tq", NULL, NULL);
    dmesh_copies_t c = DMESH_COPIES_NULL;

    copies_along(mesh, "1", "1");   /* by name: dim 0 */
    copies_along(mesh, "2d", "2d"); /* by name (a leading digit) */
    MT_RC(dmesh_copies_open(mesh, "bad", info, &c), DMESH_ERR_ARG);
    MT_CHECK(c == DMESH_COPIES_NULL && strstr(dmesh_last_error(), "\"tq\"") != NULL &&
             strstr(dmesh_last_error(), "(1, 2d)") != NULL);
    MPI_Info_free(&info);
    /* on a mesh without a dimension "1", "1" is index 1 */
    two = world_mesh(2, DCT, MPI_INFO_NULL, shape);
    copies_along(two, "1", "cp");
    dmesh_free(&two);
    dmesh_free(&mesh);
}

/* The collective twins that need fault tolerance or spawning: a name the
 * mesh lacks fails as a bad index does, the same class on every rank. */
MT_TEST(collective_unknown_name)
{
    int shape[3];
    dmesh_t mesh = world_mesh(3, DCT, MPI_INFO_NULL, shape), out = mesh;
    MPI_Comm comm = MPI_COMM_WORLD;
    int rc = dmesh_grow_by_name(mesh, "tq", 1, NULL, NULL, MPI_INFO_NULL, &comm, &out);

    expect_unknown(__LINE__, "dmesh_grow_by_name", rc);
    MT_SAME(MPI_COMM_WORLD, rc);
    MT_CHECK(out == DMESH_NULL && comm == MPI_COMM_NULL);
    /* without fault tolerance dmesh_shrink refuses first, by either form */
    rc = dmesh_shrink(mesh, 99, MPI_INFO_NULL, NULL, &out);
    if (rc == DMESH_ERR_UNSUPPORTED) {
        MT_RC(dmesh_shrink_by_name(mesh, "tq", MPI_INFO_NULL, NULL, &out), DMESH_ERR_UNSUPPORTED);
    } else {
        MT_EQ(rc, DMESH_ERR_ARG);
        expect_unknown(__LINE__, "dmesh_shrink_by_name",
                       dmesh_shrink_by_name(mesh, "tq", MPI_INFO_NULL, NULL, &out));
    }
    MT_CHECK(out == DMESH_NULL);
    dmesh_free(&mesh);
}

/* A name form raises on the handler of the communicator the mesh was made
 * from, as its index form does: the code maps back to the class returned. */
static int raised, raised_code;

static void record(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    raised++;
    raised_code = *code;
}

MT_TEST(raises_on_the_mesh_handler)
{
    MPI_Errhandler eh;
    MPI_Comm comm;
    dmesh_t mesh = DMESH_NULL;
    int shape[1] = {mt_size}, v = 0, cls = -1, rc;
    const char *const names[] = {"world"};

    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_create_errhandler(record, &eh);
    MPI_Comm_set_errhandler(comm, eh);
    MT_OK(dmesh_init(comm, "cpu", 1, shape, names, MPI_INFO_NULL, &mesh));
    raised = 0;
    rc = dmesh_get_local_rank_by_name(mesh, "tq", &v);
    MT_EQ(rc, DMESH_ERR_NAME);
    MT_EQ(raised, 1);
    MT_OK(dmesh_error_class(raised_code, &cls));
    MT_EQ(cls, DMESH_ERR_NAME);
    raised = 0;
    rc = dmesh_get_local_rank(mesh, 5, &v);
    MT_EQ(rc, DMESH_ERR_ARG);
    MT_EQ(raised, 1);
    raised = 0;
    MT_OK(dmesh_get_local_rank_by_name(mesh, "world", &v));
    MT_EQ(raised, 0);
    dmesh_free(&mesh);
    MPI_Errhandler_free(&eh);
    MPI_Comm_free(&comm);
}

static Suite *names_suite(void)
{
    Suite *s = suite_create("dim_names");
    TCase *t = tcase_create("names");

    tcase_add_test(t, by_name_as_by_index);
    tcase_add_test(t, unflatten_by_name);
    tcase_add_test(t, unknown_name);
    tcase_add_test(t, unnamed_mesh);
    tcase_add_test(t, numeric_names_in_calls);
    tcase_add_test(t, numeric_names_in_unflatten);
    tcase_add_test(t, numeric_names_in_options);
    tcase_add_test(t, numeric_names_in_copies);
    tcase_add_test(t, collective_unknown_name);
    tcase_add_test(t, raises_on_the_mesh_handler);
    suite_add_tcase(s, t);
    return s;
}

int main(int argc, char **argv)
{
    return mt_main(&argc, &argv, names_suite);
}
