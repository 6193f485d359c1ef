/* SPDX-License-Identifier: BSD-3-Clause */
/* dmesh_respawn as programs are run (doc/user-guide.md, "Coming back
 * whole"): with command NULL the new process starts as the launcher started
 * its parents, through their wrapper, with their arguments byte for byte;
 * the options the parents read from their environment reach it; and the
 * error handlers carry over.
 *
 *   [DMESH_TEST_KILL=R] test_respawn_args [ARGS...]
 *
 * Rank R (default 1) dies after a 1-D mesh over every process is made; the
 * survivors respawn it. Then every process of the new communicator checks:
 *   - its arguments after argv[0] are rank 0's (a survivor's), byte for
 *     byte, and so is DMESH_TEST_WRAPPED (set by a wrapper: the new process
 *     must have started through it);
 *   - a new process that reads DMESH_COMM_CREATE flips it before dmesh_join
 *     (an environment that differs): the mesh must still be made, with the
 *     parents' options;
 *   - the handler the program set (on its communicator for the survivors,
 *     on MPI_COMM_WORLD for a new process) is the one that the repaired
 *     communicator and the mesh's communicator call.
 * Prints "test_respawn_args: passed on rank N" on every process whose checks
 * all held over the new communicator; 77 without fault tolerance. */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "dmesh.h"

static int failures, handled;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "test_respawn_args: check failed (%s:%d): ", __FILE__, __LINE__);      \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

static void count_errors(MPI_Comm *comm, int *code, ...)
{
    (void)comm;
    (void)code;
    handled++;
}

/* argv[1..] and DMESH_TEST_WRAPPED as one buffer: each string with its NUL. */
static char *pack_args(int argc, char **argv, int *len)
{
    const char *w = getenv("DMESH_TEST_WRAPPED");
    size_t n = strlen(w != NULL ? w : "-") + 1, at = 0;
    char *b;
    int i;

    for (i = 1; i < argc; i++)
        n += strlen(argv[i]) + 1;
    b = malloc(n);
    for (i = 1; i < argc; i++) {
        memcpy(b + at, argv[i], strlen(argv[i]) + 1);
        at += strlen(argv[i]) + 1;
    }
    memcpy(b + at, w != NULL ? w : "-", strlen(w != NULL ? w : "-") + 1);
    *len = (int)n;
    return b;
}

/* This process's arguments against rank 0's. */
static void check_args(MPI_Comm comm, int argc, char **argv)
{
    int len = 0, len0 = 0, rank;
    char *mine = pack_args(argc, argv, &len), *root;

    MPI_Comm_rank(comm, &rank);
    len0 = len;
    MPI_Bcast(&len0, 1, MPI_INT, 0, comm);
    root = malloc((size_t)len0);
    if (rank == 0)
        memcpy(root, mine, (size_t)len);
    MPI_Bcast(root, len0, MPI_CHAR, 0, comm);
    CHECK(len == len0 && memcmp(root, mine, (size_t)len) == 0,
          "rank %d: %d arguments, %d bytes (wrapped: %s); rank 0 has %d bytes", rank, argc - 1, len,
          getenv("DMESH_TEST_WRAPPED") ? "yes" : "no", len0);
    free(root);
    free(mine);
}

/* The handler the program set is the one both communicators call. */
static void check_handlers(MPI_Comm comm, dmesh_t mesh)
{
    MPI_Comm dc = MPI_COMM_NULL;
    int before = handled;

    MPI_Comm_call_errhandler(comm, MPI_ERR_OTHER);
    CHECK(handled == before + 1, "the repaired communicator does not call the program's handler");
    dmesh_get_comm(mesh, 0, &dc);
    before = handled;
    if (dc != MPI_COMM_NULL)
        MPI_Comm_call_errhandler(dc, MPI_ERR_OTHER);
    CHECK(dc != MPI_COMM_NULL && handled == before + 1,
          "the mesh's communicator does not call the program's handler");
}

int main(int argc, char **argv)
{
    MPI_Comm parent, world = MPI_COMM_NULL, comm = MPI_COMM_NULL, dc = MPI_COMM_NULL;
    MPI_Errhandler eh;
    dmesh_t mesh = DMESH_NULL, back = DMESH_NULL;
    int rc, rank = 0, size = 0, nf = 0, all = 0, kill = 1;

    MPI_Init(&argc, &argv);
    MPI_Comm_create_errhandler(count_errors, &eh);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm_get_parent(&parent);
    if (getenv("DMESH_TEST_KILL") != NULL)
        kill = atoi(getenv("DMESH_TEST_KILL"));
    if (parent == MPI_COMM_NULL) {
        MPI_Comm_dup(MPI_COMM_WORLD, &world);
        MPI_Comm_set_errhandler(world, eh);
        MPI_Comm_rank(world, &rank);
        MPI_Comm_size(world, &size);
        rc = dmesh_init(world, "cpu", 1, &size, NULL, MPI_INFO_NULL, &mesh);
        CHECK(rc == DMESH_SUCCESS, "dmesh_init: %d (%s)", rc, dmesh_last_error());
        if (rc == DMESH_SUCCESS && dmesh_get_failed(mesh, 0, NULL, &nf) == DMESH_ERR_UNSUPPORTED) {
            printf("test_respawn_args: skipped: no fault tolerance in this run\n");
            dmesh_free(&mesh);
            MPI_Comm_free(&world);
            MPI_Finalize();
            return 77;
        }
        if (rank == kill)
            raise(SIGKILL);
        dmesh_get_comm(mesh, 0, &dc);
        MPI_Barrier(dc); /* fails: a process died */
        handled = 0;
        rc = dmesh_respawn(mesh, NULL, NULL, MPI_INFO_NULL, &comm, &back);
        CHECK(rc == DMESH_SUCCESS, "dmesh_respawn: %d (%s)", rc, dmesh_last_error());
    } else {
        /* an environment that differs from the parents' */
        const char *cc = getenv("DMESH_COMM_CREATE");
        if (cc != NULL)
            setenv("DMESH_COMM_CREATE", strcmp(cc, "split") == 0 ? "group" : "split", 1);
        MPI_Comm_set_errhandler(MPI_COMM_WORLD, eh);
        rc = dmesh_join(MPI_INFO_NULL, NULL, &comm, &back);
        CHECK(rc == DMESH_SUCCESS, "dmesh_join: %d (%s)", rc, dmesh_last_error());
    }
    if (rc == DMESH_SUCCESS) {
        MPI_Comm_rank(comm, &rank);
        check_args(comm, argc, argv);
        check_handlers(comm, back);
        MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
        MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_MAX, comm);
        if (all == 0)
            printf("test_respawn_args: passed on rank %d\n", rank);
    }
    fflush(stdout);
    dmesh_free(&back);
    dmesh_free(&mesh);
    if (comm != MPI_COMM_NULL)
        MPI_Comm_free(&comm);
    if (world != MPI_COMM_NULL)
        MPI_Comm_free(&world);
    MPI_Errhandler_free(&eh);
    MPI_Finalize();
    return rc != DMESH_SUCCESS || all != 0;
}
