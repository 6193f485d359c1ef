/* SPDX-License-Identifier: BSD-3-Clause */
/* Node-aware meshes under SimGrid's SMPI, on a cluster of 8-core hosts:
 *   smpirun -platform P.xml -hostfile P.PLACEMENT -np N locality PLACEMENT
 * PLACEMENT is block (8 consecutive ranks a host), cyclic (rank r on host
 * r mod hosts) or uneven (cyclic over one host more: hosts of 7 and 8).
 * For a (N/8, 8) mesh (dp, tp) it checks where tp's groups sit
 * (dmesh_get_dim_locality) in rank order, with dmesh_order=node and with
 * dmesh_init_hybrid, checks every tp allreduce, and times a 1 MiB
 * allreduce along tp in rank order and in node order (simulated time,
 * communication only). Prints "locality: N ranks, PLACEMENT: ok" when
 * every check held on every rank. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "dmesh.h"

#define TP 8
#define COUNT (1 << 18) /* 1 MiB of floats */
#define REPS 3

static int failures;

static void expect(int cond, const char *what)
{
    if (!cond) {
        int rank;
        MPI_Comm_rank(MPI_COMM_WORLD, &rank);
        fprintf(stderr, "rank %d: FAILED: %s\n", rank, what);
        failures++;
    }
}

/* Simulated seconds of a 1 MiB allreduce along tp (max over ranks, mean of
 * REPS), and whether every sum was the sum of the group's world ranks. */
static double allreduce_tp(dmesh_t m, float *buf)
{
    MPI_Comm tp;
    int rank, ranks[TP], n = 0, want = 0;
    double t, sum = 0, worst;

    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    dmesh_get_comm(m, 1, &tp);
    dmesh_get_group_ranks(m, 1, TP, ranks, &n);
    for (int i = 0; i < n; i++)
        want += ranks[i];
    for (int k = 0; k < REPS; k++) {
        for (int i = 0; i < COUNT; i++)
            buf[i] = (float)rank;
        MPI_Barrier(MPI_COMM_WORLD);
        t = MPI_Wtime();
        MPI_Allreduce(MPI_IN_PLACE, buf, COUNT, MPI_FLOAT, MPI_SUM, tp);
        sum += MPI_Wtime() - t;
        expect(buf[0] == (float)want && buf[COUNT - 1] == (float)want, "tp allreduce sum");
    }
    sum /= REPS;
    MPI_Allreduce(&sum, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return worst;
}

int main(int argc, char **argv)
{
    const char *placement = argc > 1 ? argv[1] : "block";
    const char *names[2] = {"dp", "tp"};
    int size, rank, shape[2], in_node[2] = {1, TP}, across[2], kind = 0, rc, all;
    dmesh_t by_rank = DMESH_NULL, by_node = DMESH_NULL, hybrid = DMESH_NULL;
    double t_rank, t_node;
    MPI_Info info;
    float *buf = malloc(COUNT * sizeof(float));

    MPI_Init(&argc, &argv);
    /* dmesh raises its failures on these handlers (fatal by default): here
     * they return, and the classes are checked. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    shape[0] = size / TP;
    shape[1] = TP;
    across[0] = size / TP;
    across[1] = 1;
    MPI_Info_create(&info);
    MPI_Info_set(info, "dmesh_order", "node");

    expect(dmesh_init(MPI_COMM_WORLD, "cpu", 2, shape, names, MPI_INFO_NULL, &by_rank) == 0,
           "dmesh_init");
    expect(dmesh_get_dim_locality(by_rank, 1, &kind) == 0, "locality, rank order");
    if (strcmp(placement, "block") == 0)
        expect(kind == DMESH_LOCALITY_NODE, "block: tp in a node in rank order");
    else if (strcmp(placement, "cyclic") == 0)
        expect(kind == DMESH_LOCALITY_ACROSS, "cyclic: tp across nodes in rank order");
    else
        expect(kind != DMESH_LOCALITY_NODE, "uneven: tp not in a node in rank order");

    expect(dmesh_init(MPI_COMM_WORLD, "cpu", 2, shape, names, info, &by_node) == 0,
           "dmesh_init, dmesh_order=node");
    expect(dmesh_get_dim_locality(by_node, 1, &kind) == 0, "locality, node order");
    if (strcmp(placement, "uneven") != 0)
        expect(kind == DMESH_LOCALITY_NODE, "tp in a node in node order");

    rc =
        dmesh_init_hybrid(MPI_COMM_WORLD, "cpu", 2, in_node, across, names, MPI_INFO_NULL, &hybrid);
    if (strcmp(placement, "uneven") == 0) {
        expect(rc == DMESH_ERR_SIZE, "uneven: dmesh_init_hybrid is DMESH_ERR_SIZE");
        if (rank == 0)
            printf("locality: uneven hybrid: %s\n", dmesh_last_error());
    } else {
        expect(rc == 0, "dmesh_init_hybrid");
        expect(dmesh_get_dim_locality(hybrid, 1, &kind) == 0 && kind == DMESH_LOCALITY_NODE,
               "hybrid: tp in a node");
        expect(dmesh_get_dim_locality(hybrid, 0, &kind) == 0 && kind == DMESH_LOCALITY_ACROSS,
               "hybrid: dp across nodes");
    }

    t_rank = allreduce_tp(by_rank, buf);
    t_node = allreduce_tp(by_node, buf);
    if (rank == 0)
        printf("locality: %d ranks, %s: 1 MiB allreduce along tp: rank order %.1f us, node order "
               "%.1f us, rank/node %.2f\n",
               size, placement, t_rank * 1e6, t_node * 1e6, t_rank / t_node);

    dmesh_free(&hybrid);
    dmesh_free(&by_node);
    dmesh_free(&by_rank);
    MPI_Info_free(&info);
    MPI_Allreduce(&failures, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0 && all == 0)
        printf("locality: %d ranks, %s: ok\n", size, placement);
    free(buf);
    MPI_Finalize();
    return all != 0;
}
