/* SPDX-License-Identifier: BSD-3-Clause */
/* Every creation call on a communicator of the MPI-4 sessions model: the
 * program calls MPI_Session_init, makes its communicator with
 * MPI_Comm_create_from_group from the "mpi://WORLD" process set, and never
 * calls MPI_Init (so MPI_COMM_WORLD and MPI_COMM_SELF do not exist). Each
 * mesh's dimension communicators are checked with an allreduce of the
 * members' ranks against dmesh_get_group_ranks. Then the program frees its
 * communicator, which must release dmesh's private duplicate of it:
 * test/sessions.sh runs this under DMESH_DEBUG=1 and counts the line that
 * says so. Exits 77 when the MPI has no sessions. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>
#include <mpi.h>

#include "dmesh.h"

#if DMESH_HAVE_MPI_SESSIONS

static MPI_Comm comm = MPI_COMM_NULL;
static int rank, size;

#define CHECK_OK(call)                                                                             \
    do {                                                                                           \
        int rc_ = (call);                                                                          \
        ck_assert_msg(rc_ == DMESH_SUCCESS, "%s: %s (%s)", #call, dmesh_error_string(rc_),         \
                      dmesh_last_error());                                                         \
    } while (0)

/* The sum of the members' ranks of comm over dimension d of m, by an
 * allreduce on the dimension's communicator, equals the sum of its group's
 * ranks; the communicator's rank is the caller's local rank. */
static void check_dim(dmesh_t m, int d)
{
    int ranks[64], n = 0, expected = 0, sum = -1, local = -1, me = -1;
    MPI_Comm c;

    CHECK_OK(dmesh_get_comm(m, d, &c));
    if (c == MPI_COMM_NULL)
        return;
    CHECK_OK(dmesh_get_group_ranks(m, d, 64, ranks, &n));
    for (int i = 0; i < n; i++)
        expected += ranks[i];
    ck_assert_int_eq(MPI_Allreduce(&rank, &sum, 1, MPI_INT, MPI_SUM, c), MPI_SUCCESS);
    ck_assert_int_eq(sum, expected);
    CHECK_OK(dmesh_get_local_rank(m, d, &local));
    MPI_Comm_rank(c, &me);
    ck_assert_int_eq(me, local);
}

static void check_mesh(dmesh_t m)
{
    int ndims = 0;

    CHECK_OK(dmesh_get_ndims(m, &ndims));
    for (int d = 0; d < ndims; d++)
        check_dim(m, d);
}

START_TEST(creation_calls)
{
    const char *names[2] = {"dp", "tp"};
    int half = size % 2 == 0 ? 2 : 1, shape[2] = {size / half, half}, ranks[64], n = 0;
    int in_node[2] = {1, 1}, across[2] = {1, 1}, periods[2] = {1, 0},
        sizes[2] = {size / half, half};
    dmesh_t m = DMESH_NULL, flat = DMESH_NULL, un = DMESH_NULL, c = DMESH_NULL, f = DMESH_NULL,
            h = DMESH_NULL, r = DMESH_NULL;
    MPI_Comm dup = MPI_COMM_NULL, cart = MPI_COMM_NULL;
    char text[4096];
    int csum = -1, cart_rank = -1;

    CHECK_OK(dmesh_init(comm, "cpu", 2, shape, names, MPI_INFO_NULL, &m));
    check_mesh(m);
    CHECK_OK(dmesh_flatten(m, "world", MPI_INFO_NULL, &flat));
    check_mesh(flat);
    CHECK_OK(dmesh_unflatten(flat, 0, 2, sizes, names, MPI_INFO_NULL, &un));
    check_mesh(un);
    CHECK_OK(dmesh_get_cart_comm(m, periods, 0, &cart));
    ck_assert(cart != MPI_COMM_NULL);
    ck_assert_int_eq(MPI_Allreduce(&rank, &csum, 1, MPI_INT, MPI_SUM, cart), MPI_SUCCESS);
    ck_assert_int_eq(csum, size * (size - 1) / 2);
    MPI_Comm_rank(cart, &cart_rank);
    ck_assert_int_eq(cart_rank, rank);
    CHECK_OK(dmesh_serialize(m, text, sizeof(text), NULL));
    CHECK_OK(dmesh_deserialize(comm, text, MPI_INFO_NULL, &r));
    check_mesh(r);

    for (int i = 0; i < size; i++)
        ranks[i] = size - 1 - i; /* reversed */
    CHECK_OK(dmesh_create(comm, "cpu", 2, shape, ranks, names, MPI_INFO_NULL, &c));
    check_mesh(c);
    CHECK_OK(dmesh_get_group_ranks(c, 0, 64, ranks, &n));
    ck_assert_int_eq(n, shape[0]);

    ck_assert_int_eq(MPI_Comm_dup(comm, &dup), MPI_SUCCESS);
    CHECK_OK(dmesh_from_comms(comm, "cpu", 1, &dup, &size, NULL, NULL, &f));
    check_mesh(f);
    MPI_Comm_free(&dup);

    /* over the nodes as dmesh finds them: all of this launch's ranks share
     * one machine, which an MPI without shared memory between processes
     * (MPICH 5 built with the ch4:ucx device) splits into one node per
     * process; dmesh then takes the host (same processor name) */
    MPI_Comm node;
    int node_size = 0, fewest = 0, most = 0, same = 0, all_same = 0, len = 0;
    char name[MPI_MAX_PROCESSOR_NAME + 1] = "", first[MPI_MAX_PROCESSOR_NAME + 1] = "";
    ck_assert_int_eq(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node),
                     MPI_SUCCESS);
    MPI_Comm_size(node, &node_size);
    MPI_Comm_free(&node);
    MPI_Get_processor_name(name, &len);
    memcpy(first, name, sizeof(first));
    MPI_Bcast(first, (int)sizeof(first), MPI_CHAR, 0, comm);
    same = strcmp(name, first) == 0;
    MPI_Allreduce(&same, &all_same, 1, MPI_INT, MPI_MIN, comm);
    if (all_same)
        node_size = size; /* one host: one node */
    MPI_Allreduce(&node_size, &fewest, 1, MPI_INT, MPI_MIN, comm);
    MPI_Allreduce(&node_size, &most, 1, MPI_INT, MPI_MAX, comm);
    if (fewest == most) {
        in_node[1] = node_size;
        across[0] = size / node_size;
        CHECK_OK(dmesh_init_hybrid(comm, "cpu", 2, in_node, across, names, MPI_INFO_NULL, &h));
        check_mesh(h);
    } else if (rank == 0) {
        printf("skipped: dmesh_init_hybrid: nodes of %d to %d ranks (MPI_COMM_TYPE_SHARED)\n",
               fewest, most);
    }

    dmesh_free(&h);
    dmesh_free(&f);
    dmesh_free(&c);
    dmesh_free(&r);
    dmesh_free(&un);
    dmesh_free(&flat);
    dmesh_free(&m);
}
END_TEST

/* Errors without MPI_Init: a failing call on the session's communicator
 * (MPI_ERRORS_RETURN) returns its class, whose MPI code, registered in this
 * model too, carries dmesh's text; a call tied to no communicator (there is
 * no MPI_COMM_SELF) returns its class and raises nothing. */
static int codes_seen, code_class = -1;
static char code_text[MPI_MAX_ERROR_STRING];

static void record(MPI_Comm *c, int *code, ...)
{
    int n = 0;

    (void)c;
    codes_seen++;
    MPI_Error_string(*code, code_text, &n);
    dmesh_error_class(*code, &code_class);
}

START_TEST(errors_without_init)
{
    int shape[1] = {size + 1}, nd = 0;
    dmesh_t m = DMESH_NULL;
    MPI_Errhandler eh;

    ck_assert_int_eq(dmesh_init(comm, "cpu", 1, shape, NULL, MPI_INFO_NULL, &m), DMESH_ERR_SIZE);
    ck_assert(m == DMESH_NULL);
    ck_assert_int_eq(dmesh_get_ndims(DMESH_NULL, &nd), DMESH_ERR_ARG);
    ck_assert_int_eq(MPI_Comm_create_errhandler(record, &eh), MPI_SUCCESS);
    ck_assert_int_eq(MPI_Comm_set_errhandler(comm, eh), MPI_SUCCESS);
    ck_assert_int_eq(dmesh_init(comm, "cpu", 1, shape, NULL, MPI_INFO_NULL, &m), DMESH_ERR_SIZE);
    ck_assert_int_eq(codes_seen, 1);
    ck_assert_int_eq(code_class, DMESH_ERR_SIZE);
    ck_assert_str_eq(code_text, dmesh_error_string(DMESH_ERR_SIZE));
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    MPI_Errhandler_free(&eh);
}
END_TEST

static Suite *sessions_suite(void)
{
    Suite *s = suite_create("sessions");
    TCase *t = tcase_create("sessions");

    tcase_set_timeout(t, 120);
    tcase_add_test(t, creation_calls);
    tcase_add_test(t, errors_without_init);
    suite_add_tcase(s, t);
    return s;
}

int main(void)
{
    MPI_Session session = MPI_SESSION_NULL;
    MPI_Group group = MPI_GROUP_NULL;
    SRunner *sr;
    int failed, all = 0, initialized = 1;

    if (MPI_Session_init(MPI_INFO_NULL, MPI_ERRORS_RETURN, &session) != MPI_SUCCESS ||
        MPI_Group_from_session_pset(session, "mpi://WORLD", &group) != MPI_SUCCESS ||
        MPI_Comm_create_from_group(group, "org.dmesh.test.sessions", MPI_INFO_NULL,
                                   MPI_ERRORS_RETURN, &comm) != MPI_SUCCESS) {
        fprintf(stderr, "test_sessions: could not make a communicator from a session\n");
        return 1;
    }
    MPI_Group_free(&group);
    MPI_Initialized(&initialized);
    if (initialized) {
        fprintf(stderr, "test_sessions: MPI_Initialized is true without MPI_Init\n");
        return 1;
    }
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    if (size > 64) {
        fprintf(stderr, "test_sessions: at most 64 ranks\n");
        return 1;
    }
    sr = srunner_create(sessions_suite());
    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    MPI_Allreduce(&failed, &all, 1, MPI_INT, MPI_MAX, comm);
    /* releases dmesh's private duplicate (sessions.sh counts the line) */
    MPI_Comm_free(&comm);
    if (MPI_Session_finalize(&session) != MPI_SUCCESS) {
        fprintf(stderr, "test_sessions: MPI_Session_finalize failed\n");
        return 1;
    }
    return all == 0 ? 0 : 1;
}

#else

int main(void)
{
    printf("skipped: this MPI has no sessions (MPI_Session_init)\n");
    return 77;
}

#endif
