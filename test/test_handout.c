/* SPDX-License-Identifier: BSD-3-Clause */
/* Communicators handed to the program, as MPI's own constructors hand
 * them out:
 *   - each (per dimension, flattened, unflattened, Cartesian) carries the
 *     error handler of the communicator the mesh was made from, as
 *     MPI_Comm_split's result inherits its parent's: MPI_ERRORS_ARE_FATAL
 *     by default, MPI_ERRORS_RETURN or a handler of the program's when the
 *     program set one (that handler is called for an error raised on the
 *     dimension's communicator);
 *   - a borrowed handle that the program frees anyway is noticed: dmesh does
 *     not free it again (dmesh_free, MPI_Finalize go on), and the next call
 *     that needs it fails with DMESH_ERR_ARG on every rank, naming
 *     MPI_Comm_free, while the mesh's other communicators keep working. */
#include "config.h"

#include <string.h>

#include "mesh_testutil.h"

static int handler_calls, handler_code;

static void count_errors(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    handler_calls++;
    handler_code = *code;
}

/* c carries the error handler want (a predefined one, or the program's). */
static void expect_handler(MPI_Comm c, MPI_Errhandler want, const char *what)
{
    MPI_Errhandler eh = MPI_ERRHANDLER_NULL;

    if (c == MPI_COMM_NULL)
        return;
    MT_EQ(MPI_Comm_get_errhandler(c, &eh), MPI_SUCCESS);
    if (eh != want)
        mt_fail(__FILE__, __LINE__, "%s: not the error handler of the mesh's communicator", what);
    MPI_Errhandler_free(&eh);
}

/* Every communicator that a 2-D mesh on comm hands out carries want. */
static void expect_all(MPI_Comm comm, MPI_Errhandler want)
{
    const char *names[2] = {"dp", "tp"};
    int shape[2] = {mt_size / 2 > 0 ? mt_size / 2 : 1, mt_size > 1 ? 2 : 1};
    int periods[2] = {1, 0}, sizes[2] = {shape[1], shape[0]};
    dmesh_t m = DMESH_NULL, flat = DMESH_NULL, un = DMESH_NULL;
    MPI_Comm c = MPI_COMM_NULL;

    if (MT_OK(dmesh_init(comm, "cpu", 2, shape, names, MPI_INFO_NULL, &m)) != DMESH_SUCCESS)
        return;
    for (int d = 0; d < 2; d++) {
        MT_OK(dmesh_get_comm(m, d, &c));
        expect_handler(c, want, "dimension communicator");
    }
    MT_OK(dmesh_flatten(m, NULL, MPI_INFO_NULL, &flat));
    MT_OK(dmesh_get_comm(flat, 0, &c));
    expect_handler(c, want, "flattened communicator");
    MT_OK(dmesh_unflatten(flat, 0, 2, sizes, (const char *const[]){"a", "b"}, MPI_INFO_NULL, &un));
    MT_OK(dmesh_get_comm(un, 1, &c));
    expect_handler(c, want, "unflattened communicator");
    MT_OK(dmesh_get_cart_comm(m, periods, 0, &c));
    expect_handler(c, want, "Cartesian communicator");
    dmesh_free(&un);
    dmesh_free(&flat);
    dmesh_free(&m);
}

MT_TEST(errhandler_default)
{
    MPI_Comm comm;

    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_ARE_FATAL); /* MPI's default */
    expect_all(comm, MPI_ERRORS_ARE_FATAL);
    MPI_Comm_free(&comm);
}

MT_TEST(errhandler_return)
{
    MPI_Comm comm;

    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    expect_all(comm, MPI_ERRORS_RETURN);
    MPI_Comm_free(&comm);
}

/* The program's own handler: the same object, and it runs for an error on
 * a dimension's communicator, and for dmesh's own errors on the mesh. */
MT_TEST(errhandler_program)
{
    MPI_Errhandler mine;
    MPI_Comm comm, c = MPI_COMM_NULL;
    dmesh_t m = DMESH_NULL, sub = DMESH_NULL;
    int shape[1] = {mt_size}, cls = -1;

    MPI_Comm_create_errhandler(count_errors, &mine);
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, mine);
    expect_all(comm, mine);
    if (MT_OK(dmesh_init(comm, "cpu", 1, shape, NULL, MPI_INFO_NULL, &m)) == DMESH_SUCCESS) {
        MT_OK(dmesh_get_comm(m, 0, &c));
        handler_calls = 0;
        MPI_Comm_call_errhandler(c, MPI_ERR_OTHER);
        MT_EQ(handler_calls, 1);
        MT_EQ(handler_code, MPI_ERR_OTHER);
        /* an error of dmesh's own reaches the program's handler too, once,
         * with a code of dmesh's, and the call returns its class */
        MT_RC(dmesh_slice(m, 1, (const char *const[]){"nope"}, &sub), DMESH_ERR_NAME);
        MT_EQ(handler_calls, 2);
        MT_OK(dmesh_error_class(handler_code, &cls));
        MT_EQ(cls, DMESH_ERR_NAME);
    }
    dmesh_free(&m);
    MPI_Comm_free(&comm);
    MPI_Errhandler_free(&mine);
}

/* The detail of the last failure names the program's MPI_Comm_free. */
static void expect_freed_detail(void)
{
    if (strstr(dmesh_last_error(), "MPI_Comm_free") == NULL)
        mt_fail(__FILE__, __LINE__, "detail does not say what happened: %s", dmesh_last_error());
}

/* sum over c of the callers' world ranks equals the sum of its group's */
static void expect_sum(dmesh_t m, int d)
{
    int ranks[MT_MAX_RANKS], n = 0, want = 0, got = -1;
    MPI_Comm c = MPI_COMM_NULL;

    MT_OK(dmesh_get_comm(m, d, &c));
    MT_OK(dmesh_get_group_ranks(m, d, MT_MAX_RANKS, ranks, &n));
    for (int i = 0; i < n; i++)
        want += ranks[i];
    if (c != MPI_COMM_NULL)
        MPI_Allreduce(&mt_rank, &got, 1, MPI_INT, MPI_SUM, c);
    MT_EQ(got, want);
}

MT_TEST(freed_dimension)
{
    const char *names[2] = {"dp", "tp"};
    int shape[2] = {mt_size / 2 > 0 ? mt_size / 2 : 1, mt_size > 1 ? 2 : 1};
    dmesh_t m = DMESH_NULL, tp = DMESH_NULL, out = DMESH_NULL;
    MPI_Comm c = MPI_COMM_NULL, again = MPI_COMM_NULL;

    if (MT_OK(dmesh_init(MPI_COMM_WORLD, "cpu", 2, shape, names, MPI_INFO_NULL, &m)) != 0)
        return;
    MT_OK(dmesh_get_comm(m, 1, &c));
    MT_EQ(MPI_Comm_free(&c), MPI_SUCCESS); /* a port that kept its MPI_Comm_free */
    MT_RC(dmesh_get_comm(m, 1, &again), DMESH_ERR_ARG);
    expect_freed_detail();
    /* a call that reuses the freed communicator from the cache fails on
     * every rank; a slice is local and still works */
    MT_OK(dmesh_slice(m, 1, (const char *const[]){"tp"}, &tp));
    MT_FAILS_CREATE(MPI_COMM_WORLD, dmesh_flatten(tp, "t", MPI_INFO_NULL, &out), DMESH_ERR_ARG,
                    out);
    expect_freed_detail();
    if (mt_size > 1) /* the other dimension (one entry with tp at 1 rank) is untouched */
        expect_sum(m, 0);
    dmesh_free(&tp);
    MT_OK(dmesh_free(&m)); /* does not free it a second time */
}

MT_TEST(freed_cart)
{
    int shape[1] = {mt_size}, periods[1] = {0}, sum = -1;
    dmesh_t m = DMESH_NULL;
    MPI_Comm cart = MPI_COMM_NULL, again = MPI_COMM_NULL;
    int rc;

    if (MT_OK(dmesh_init(MPI_COMM_WORLD, "cpu", 1, shape, NULL, MPI_INFO_NULL, &m)) != 0)
        return;
    MT_OK(dmesh_get_cart_comm(m, periods, 0, &cart));
    MT_EQ(MPI_Comm_free(&cart), MPI_SUCCESS);
    rc = MT_RC(dmesh_get_cart_comm(m, periods, 0, &again), DMESH_ERR_ARG);
    MT_SAME(MPI_COMM_WORLD, rc);
    expect_freed_detail();
    /* another request makes its own communicator and works */
    periods[0] = 1;
    MT_OK(dmesh_get_cart_comm(m, periods, 0, &again));
    if (again != MPI_COMM_NULL)
        MPI_Allreduce(&mt_rank, &sum, 1, MPI_INT, MPI_SUM, again);
    MT_EQ(sum, mt_size * (mt_size - 1) / 2);
    MT_OK(dmesh_free(&m));
}

static Suite *handout_suite(void)
{
    Suite *s = suite_create("handout");
    TCase *t = tcase_create("handout");

    tcase_set_timeout(t, 120);
    tcase_add_test(t, errhandler_default);
    tcase_add_test(t, errhandler_return);
    tcase_add_test(t, errhandler_program);
    tcase_add_test(t, freed_dimension);
    tcase_add_test(t, freed_cart);
    suite_add_tcase(s, t);
    return s;
}

int main(int argc, char **argv)
{
    return mt_main(&argc, &argv, handout_suite);
}
