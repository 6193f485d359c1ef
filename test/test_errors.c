/* SPDX-License-Identifier: BSD-3-Clause */
/* Errors raised on MPI error handlers, with handlers that return: a
 * program's own handler on the communicator a creation call got, on the
 * communicator a mesh was made from (also after the program freed it), on
 * MPI_COMM_SELF for calls tied to no communicator; called exactly once per
 * failing call, with a code whose MPI_Error_string is dmesh's text and that
 * dmesh_error_class maps back; the same class on every rank of a collective
 * call; output handles their nulls. The fatal handlers and DMESH_ERRORS are
 * test/errors-fatal.sh's: they end or change the whole process. */
#include <stdio.h>
#include <string.h>

#include "dmesh_layout.h"
#include "mesh_testutil.h"

/* What the program's handler saw (one handler object for every
 * communicator; the count is per process). */
static int calls, last_code;
static MPI_Comm last_comm;

static void handler(MPI_Comm *comm, int *code, ...)
{
    calls++;
    last_code = *code;
    last_comm = *comm;
}

static MPI_Errhandler mine;

/* A duplicate of MPI_COMM_WORLD with the program's handler. */
static MPI_Comm comm_with_handler(void)
{
    MPI_Comm c;

    MPI_Comm_dup(MPI_COMM_WORLD, &c);
    MPI_Comm_set_errhandler(c, mine);
    return c;
}

/* The handler ran once since the last reset, on comm, with the code of
 * class want: MPI's string is dmesh's, dmesh_error_class maps it back. */
#define RAISED_ONCE(comm, want)                                                                    \
    do {                                                                                           \
        char s_[MPI_MAX_ERROR_STRING];                                                             \
        int n_ = 0, c_ = -1;                                                                       \
        MT_EQ(calls, 1);                                                                           \
        MT_CHECK(last_comm == (comm));                                                             \
        MT_EQ(MPI_Error_string(last_code, s_, &n_), MPI_SUCCESS);                                  \
        MT_STREQ(s_, dmesh_error_string(want));                                                    \
        MT_OK(dmesh_error_class(last_code, &c_));                                                  \
        MT_EQ(c_, (want));                                                                         \
        calls = 0;                                                                                 \
    } while (0)

static void setup(void)
{
    MPI_Comm_create_errhandler(handler, &mine);
    calls = 0;
}

static void teardown(void)
{
    MPI_Errhandler_free(&mine);
}

/* A creation call raises on the communicator it got; the same class on
 * every rank; the output is DMESH_NULL. */
MT_TEST(creation_raises_on_its_comm)
{
    MPI_Comm c = comm_with_handler();
    int shape[1] = {mt_size + 1}, bad[1] = {mt_rank == 0 ? -1 : mt_size};
    dmesh_t m = (dmesh_t)&m;

    MT_RC(dmesh_init(c, "cpu", 1, shape, NULL, MPI_INFO_NULL, &m), DMESH_ERR_SIZE);
    MT_CHECK(m == DMESH_NULL);
    RAISED_ONCE(c, DMESH_ERR_SIZE);
    /* one rank rejects its arguments: every rank raises its class, once */
    m = (dmesh_t)&m;
    MT_RC(dmesh_init(c, "cpu", 1, bad, NULL, MPI_INFO_NULL, &m), DMESH_ERR_ARG);
    MT_CHECK(m == DMESH_NULL);
    RAISED_ONCE(c, DMESH_ERR_ARG);
    MT_RC(dmesh_deserialize(c, "not a saved mesh", MPI_INFO_NULL, &m), DMESH_ERR_ARG);
    RAISED_ONCE(c, DMESH_ERR_ARG);
    MPI_Comm_free(&c);
}

/* Calls on a mesh, local and collective, raise on the communicator the
 * mesh was made from; dmesh's own calls inside a failing call do not raise
 * again (once per call). */
MT_TEST(mesh_calls_raise_on_its_comm)
{
    MPI_Comm c = comm_with_handler(), got = MPI_COMM_SELF;
    int shape[2] = {1, mt_size}, v = -1;
    const char *names[2] = {"dp", "tp"};
    dmesh_t m = DMESH_NULL, sub = (dmesh_t)&sub, flat = (dmesh_t)&flat;

    if (MT_OK(dmesh_init(c, "cpu", 2, shape, names, MPI_INFO_NULL, &m)) != DMESH_SUCCESS)
        return;
    MT_EQ(calls, 0);
    MT_RC(dmesh_get_local_rank(m, 2, &v), DMESH_ERR_ARG);
    RAISED_ONCE(c, DMESH_ERR_ARG);
    MT_RC(dmesh_get_comm(m, 5, &got), DMESH_ERR_ARG);
    MT_CHECK(got == MPI_COMM_NULL);
    RAISED_ONCE(c, DMESH_ERR_ARG);
    MT_RC(dmesh_slice(m, 1, (const char *const[]){"nope"}, &sub), DMESH_ERR_NAME);
    MT_CHECK(sub == DMESH_NULL);
    RAISED_ONCE(c, DMESH_ERR_NAME);
    MT_RC(dmesh_flatten(m, "dp", MPI_INFO_NULL, &flat), DMESH_ERR_NAME); /* collective */
    MT_CHECK(flat == DMESH_NULL);
    RAISED_ONCE(c, DMESH_ERR_NAME);
    /* a call that succeeds raises nothing */
    MT_OK(dmesh_get_local_rank(m, 1, &v));
    MT_EQ(calls, 0);
    MT_OK(dmesh_free(&m));
    MT_EQ(calls, 0);
    MPI_Comm_free(&c);
}

/* Tied to no communicator: a DMESH_NULL mesh, the stack, the layout
 * functions raise on MPI_COMM_SELF. */
MT_TEST(no_comm_raises_on_self)
{
    dmesh_axis_t a = {1, {{4, 1}}};
    dmesh_t top = (dmesh_t)&top;
    int n = 0;

    MPI_Comm_set_errhandler(MPI_COMM_SELF, mine);
    MT_RC(dmesh_get_ndims(DMESH_NULL, &n), DMESH_ERR_ARG);
    RAISED_ONCE(MPI_COMM_SELF, DMESH_ERR_ARG);
    MT_RC(dmesh_pop(&top), DMESH_ERR_ARG); /* empty stack */
    MT_CHECK(top == DMESH_NULL);
    RAISED_ONCE(MPI_COMM_SELF, DMESH_ERR_ARG);
    MT_RC(dmesh_axis_index(&a, 4, &n), DMESH_ERR_ARG);
    RAISED_ONCE(MPI_COMM_SELF, DMESH_ERR_ARG);
    MT_OK(dmesh_axis_numel(&a, &n));
    MT_EQ(n, 4);
    MT_EQ(calls, 0);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
}

/* The program freed the communicator: the handler it had when the mesh
 * was made still decides (on dmesh's duplicate of it). */
MT_TEST(freed_comm_keeps_its_handler)
{
    MPI_Comm c = comm_with_handler();
    int shape[1] = {mt_size}, v = -1;
    dmesh_t m = DMESH_NULL;

    if (MT_OK(dmesh_init(c, "cpu", 1, shape, NULL, MPI_INFO_NULL, &m)) != DMESH_SUCCESS) {
        MPI_Comm_free(&c);
        return;
    }
    MPI_Comm_free(&c);
    MT_RC(dmesh_get_local_rank(m, 3, &v), DMESH_ERR_ARG);
    MT_EQ(calls, 1);
    MT_CHECK(last_comm != MPI_COMM_NULL && last_comm != MPI_COMM_SELF);
    calls = 0;
    MT_OK(dmesh_free(&m));
    MT_EQ(calls, 0);
}

/* The handler returns: the class comes back; codes that are not dmesh's
 * map to nothing. */
MT_TEST(error_class)
{
    int cls = -7;

    MT_RC(dmesh_error_class(MPI_ERR_COMM, &cls), DMESH_ERR_ARG);
    MT_EQ(cls, -7);
    MT_RC(dmesh_error_class(0, NULL), DMESH_ERR_ARG);
    MT_EQ(calls, 0); /* dmesh_error_class never raises */
}

/* The table of the user guide's Errors section, row by row: what a call
 * returns (a DMESH_ERR_* class: a small number that MPI's first classes
 * share, read with dmesh_error_string, never MPI_Error_string) and what a
 * handler receives (an MPI code that dmesh registered: MPI_Error_string and
 * MPI_Error_class's string give dmesh's text, dmesh_error_class the
 * class). */
MT_TEST(return_value_and_handler_code)
{
    MPI_Comm c = comm_with_handler();
    char s[MPI_MAX_ERROR_STRING], cs[MPI_MAX_ERROR_STRING];
    int shape[1] = {mt_size + 1}, n = 0, rc, mpi_class = -1, cls = -1;
    dmesh_t m = DMESH_NULL;

    rc = dmesh_init(c, "cpu", 1, shape, NULL, MPI_INFO_NULL, &m);
    /* the return value: the class */
    MT_EQ(rc, DMESH_ERR_SIZE);
    MT_CHECK(strncmp(dmesh_error_string(rc), "DMESH_ERR_SIZE", 14) == 0);
    MT_EQ(MPI_Error_string(rc, s, &n), MPI_SUCCESS); /* an MPI class of the same number */
    MT_CHECK(strcmp(s, dmesh_error_string(rc)) != 0);
    MT_RC(dmesh_error_class(rc, &cls), DMESH_ERR_ARG); /* not a code dmesh raised */
    /* what the handler received: a code */
    MT_EQ(calls, 1);
    MT_CHECK(last_code != DMESH_ERR_SIZE);
    MT_EQ(MPI_Error_string(last_code, s, &n), MPI_SUCCESS);
    MT_STREQ(s, dmesh_error_string(DMESH_ERR_SIZE));
    MT_EQ(MPI_Error_class(last_code, &mpi_class), MPI_SUCCESS);
    MT_CHECK(mpi_class != DMESH_ERR_SIZE);
    MT_EQ(MPI_Error_string(mpi_class, cs, &n), MPI_SUCCESS);
    MT_STREQ(cs, dmesh_error_string(DMESH_ERR_SIZE));
    MT_OK(dmesh_error_class(last_code, &cls));
    MT_EQ(cls, DMESH_ERR_SIZE);
    calls = 0;
    MPI_Comm_free(&c);
}

static Suite *suite(void)
{
    Suite *s = suite_create("errors");
    TCase *t = tcase_create("handlers");

    tcase_add_checked_fixture(t, setup, teardown);
    tcase_add_test(t, creation_raises_on_its_comm);
    tcase_add_test(t, mesh_calls_raise_on_its_comm);
    tcase_add_test(t, no_comm_raises_on_self);
    tcase_add_test(t, freed_comm_keeps_its_handler);
    tcase_add_test(t, error_class);
    tcase_add_test(t, return_value_and_handler_code);
    suite_add_tcase(s, t);
    return s;
}

int main(int argc, char **argv)
{
    return mt_main(&argc, &argv, suite);
}
