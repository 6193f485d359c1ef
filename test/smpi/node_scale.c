/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * node_scale: what finding the nodes costs at scale (make check-smpi runs it
 * under SimGrid's SMPI on clusters of 8-core hosts; it runs under any MPI).
 *
 * After a first mesh (the library's one-time set-up, out of the figures),
 * each step starts from a barrier on a communicator of its own (a duplicate
 * of MPI_COMM_WORLD: dmesh finds the nodes once per communicator), and its
 * time is the slowest rank's:
 *   split     MPI_Comm_split_type(MPI_COMM_TYPE_SHARED) alone;
 *   auto      dmesh_init_hybrid of (nodes, ranks per node) with the default
 *             dmesh_node=auto: the shared split checked against host
 *             identity (with hundreds of hosts the check's first table
 *             finds hosts that share a bucket and the exact check runs);
 *   warm      dmesh_init_hybrid again on the same communicator (the nodes
 *             known: no node finding);
 *   shared    dmesh_init_hybrid with dmesh_node=shared (the split alone).
 * Memory: the heap that the step left allocated (malloc's, with its mapped
 * chunks), over the whole process, divided by the ranks: under SMPI every
 * simulated rank lives in one process, so this is the memory per rank of
 * the step's objects (the MPI's communicators included), as SMPI keeps them.
 * Checked: the inner dimension of each hybrid mesh holds exactly the ranks of
 * the caller's shared-memory split (MPI_Group_compare), and an allreduce over
 * it sums their world ranks.
 * Rank 0 prints "node_scale: N ranks: ok, ..." with the times and memory,
 * or the failures; the exit status is 1 on any failure.
 */
/* smpicc defines malloc, calloc, realloc and free as macros of its own,
 * which <malloc.h>'s declarations cannot follow; this file allocates
 * nothing itself */
#undef malloc
#undef calloc
#undef realloc
#undef free
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>
#include <dmesh.h>

#define PER_NODE 8

static int world_rank, world_size;
static long failures;

#ifdef NODE_SCALE_EXSCAN
/* SMPI's MPI_Exscan is linear: every rank receives from every lower rank,
 * n^2 / 2 messages, which neither Open MPI (recursive doubling since 4.0)
 * nor MPICH does, and which would make the simulated time, and the
 * simulation, grow with the square of the ranks. dmesh's node check numbers
 * the splits with one MPI_Exscan of a long long sum: here it takes recursive
 * doubling (log2 n rounds of MPI_Sendrecv), the library linked statically
 * calling this definition (built so by make check-smpi's rule,
 * NODE_SCALE_EXSCAN; MPI_Exscan is a weak symbol in SMPI's library). Any
 * other use goes to SMPI's. */
int MPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype type, MPI_Op op,
               MPI_Comm comm)
{
    long long mine, below = 0, partial, got;
    int rank, size, have = 0;
    if (count != 1 || type != MPI_LONG_LONG || op != MPI_SUM)
        return PMPI_Exscan(sendbuf, recvbuf, count, type, op, comm);
    MPI_Comm_rank(comm, &rank);
    MPI_Comm_size(comm, &size);
    mine = *(const long long *)sendbuf;
    partial = mine;
    for (int d = 1; d < size; d *= 2) {
        int to = rank + d < size ? rank + d : MPI_PROC_NULL;
        int from = rank - d >= 0 ? rank - d : MPI_PROC_NULL;
        got = 0;
        MPI_Sendrecv(&partial, 1, MPI_LONG_LONG, to, 77, &got, 1, MPI_LONG_LONG, from, 77, comm,
                     MPI_STATUS_IGNORE);
        if (from != MPI_PROC_NULL) {
            below += got;
            partial += got;
            have = 1;
        }
    }
    if (have)
        *(long long *)recvbuf = below;
    return MPI_SUCCESS;
}
#endif

static void expect(int cond, const char *what)
{
    if (!cond && failures++ < 5)
        fprintf(stderr, "node_scale: rank %d: %s\n", world_rank, what);
}

/* Bytes the process's heap holds (SMPI: all simulated ranks). */
static double heap_bytes(void)
{
    struct mallinfo2 m = mallinfo2();
    return (double)m.uordblks + (double)m.hblkhd;
}

typedef struct {
    double secs; /* slowest rank's */
    double bytes_per_rank;
} step_t;

/* Time one step from a barrier on comm; the heap is read on rank 0 after a
 * barrier on each side, when no rank is inside an MPI call of the step. */
static double step_begin(MPI_Comm comm, double *heap)
{
    MPI_Barrier(comm);
    *heap = world_rank == 0 ? heap_bytes() : 0;
    MPI_Barrier(comm);
    return MPI_Wtime();
}

static step_t step_end(MPI_Comm comm, double t0, double heap0)
{
    step_t s;
    double mine = MPI_Wtime() - t0;
    MPI_Allreduce(&mine, &s.secs, 1, MPI_DOUBLE, MPI_MAX, comm);
    MPI_Barrier(comm);
    s.bytes_per_rank = world_rank == 0 ? (heap_bytes() - heap0) / world_size : 0;
    return s;
}

/* The inner dimension of mesh: the ranks of shm, and an allreduce over it. */
static void check_inner(dmesh_t mesh, MPI_Comm shm)
{
    MPI_Comm inner;
    MPI_Group a, b;
    int cmp = MPI_UNEQUAL, sum = 0, want = 0;
    expect(dmesh_get_comm(mesh, 1, &inner) == DMESH_SUCCESS, "dmesh_get_comm");
    MPI_Comm_group(inner, &a);
    MPI_Comm_group(shm, &b);
    MPI_Group_compare(a, b, &cmp);
    expect(cmp == MPI_IDENT || cmp == MPI_SIMILAR, "the inner dimension is the shared split");
    MPI_Group_free(&a);
    MPI_Group_free(&b);
    MPI_Allreduce(&world_rank, &sum, 1, MPI_INT, MPI_SUM, inner);
    MPI_Allreduce(&world_rank, &want, 1, MPI_INT, MPI_SUM, shm);
    expect(sum == want, "allreduce over the inner dimension");
}

static step_t hybrid(MPI_Comm comm, MPI_Info info, MPI_Comm shm, dmesh_t *mesh)
{
    const char *names[2] = {"dp", "tp"};
    int in_node[2] = {1, PER_NODE}, across[2] = {world_size / PER_NODE, 1};
    double heap0, t0 = step_begin(comm, &heap0);
    int rc = dmesh_init_hybrid(comm, "cpu", 2, in_node, across, names, info, mesh);
    step_t s = step_end(comm, t0, heap0);
    expect(rc == DMESH_SUCCESS, "dmesh_init_hybrid");
    if (rc == DMESH_SUCCESS)
        check_inner(*mesh, shm);
    return s;
}

int main(int argc, char **argv)
{
    MPI_Comm c_first, c_split, c_auto, c_shared, shm;
    MPI_Info shared;
    dmesh_t first = DMESH_NULL, m_auto = DMESH_NULL, m_warm = DMESH_NULL, m_shared = DMESH_NULL;
    step_t split, cold, warm, by_shared;
    double heap0, t0;
    long all;

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    if (world_size % PER_NODE != 0) {
        if (world_rank == 0)
            fprintf(stderr, "node_scale: %d ranks: a multiple of %d\n", world_size, PER_NODE);
        MPI_Finalize();
        return 1;
    }
    MPI_Info_create(&shared);
    MPI_Info_set(shared, "dmesh_node", "shared");

    /* the library's first call (its error classes, its attribute key) out
     * of the figures: a 1-D mesh, which finds no nodes, kept. Each step's
     * communicators are made just before it and freed once it is checked:
     * SMPI's groups cost every rank O(job) each (doc/performance.md), so
     * what is held at once bounds the ranks a simulation can reach. */
    MPI_Comm_dup(MPI_COMM_WORLD, &c_first);
    expect(dmesh_init(c_first, "cpu", 1, &world_size, NULL, MPI_INFO_NULL, &first) == 0,
           "dmesh_init");
    MPI_Comm_dup(MPI_COMM_WORLD, &c_split);
    t0 = step_begin(c_split, &heap0);
    MPI_Comm_split_type(c_split, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &shm);
    split = step_end(c_split, t0, heap0);
    MPI_Comm_free(&c_split);
    MPI_Comm_dup(MPI_COMM_WORLD, &c_auto);
    cold = hybrid(c_auto, MPI_INFO_NULL, shm, &m_auto);
    warm = hybrid(c_auto, MPI_INFO_NULL, shm, &m_warm); /* m_auto kept: the nodes known */
    dmesh_free(&m_warm);
    dmesh_free(&m_auto);
    MPI_Comm_free(&c_auto);
    MPI_Comm_dup(MPI_COMM_WORLD, &c_shared);
    by_shared = hybrid(c_shared, shared, shm, &m_shared);
    dmesh_free(&m_shared);
    MPI_Comm_free(&c_shared);

    MPI_Allreduce(&failures, &all, 1, MPI_LONG, MPI_SUM, MPI_COMM_WORLD);
    if (world_rank == 0)
        printf("node_scale: %d ranks: %s, split %.1f us (%.0f B/rank), auto %.1f us (%.0f B/rank), "
               "warm %.1f us, shared %.1f us (%.0f B/rank), auto / shared %.2f\n",
               world_size, all ? "FAILED" : "ok", split.secs * 1e6, split.bytes_per_rank,
               cold.secs * 1e6, cold.bytes_per_rank, warm.secs * 1e6, by_shared.secs * 1e6,
               by_shared.bytes_per_rank, cold.secs / by_shared.secs);
    dmesh_free(&first);
    MPI_Info_free(&shared);
    MPI_Comm_free(&shm);
    MPI_Comm_free(&c_first);
    MPI_Finalize();
    return all ? 1 : 0;
}
