/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * bench-scale: creation time and memory of the per-dimension communicators
 * of one mesh, made five ways (dmesh_init cold and warm), at the size of
 * MPI_COMM_WORLD. Written for SimGrid's SMPI (tools/bench-scale.sh runs it
 * from 64 to 65,536 simulated ranks), it runs under any MPI.
 *
 *   bench-scale [-d 3|4] [-x MAX] [-l LABEL] [-m METHOD,...]
 *
 * The mesh: 3-D (n/32, 4, 8) or 4-D (n/64, 2, 4, 8). The ways, one after
 * the other on the same ranks:
 *   dmesh_init        dmesh_init with its defaults (group creation), the
 *                     first on MPI_COMM_WORLD: with its private duplicate
 *   dmesh_init_warm   the same again: the duplicate is cached on the
 *                     communicator (as for every later mesh on it)
 *   dmesh_init_split  dmesh_init with dmesh_comm_create=split (warm)
 *   cart_sub          MPI_Cart_create, then one MPI_Cart_sub per dimension
 *   comm_split        one MPI_Comm_split per dimension (the floor)
 *   create_all        every rank calls MPI_Comm_create over MPI_COMM_WORLD
 *                     for every group of every dimension (a loop of
 *                     torch.distributed.new_group); only up to MAX ranks
 *                     (-x, default 4096): it costs O(groups x ranks)
 * Rank 0 prints one CSV line per way:
 *   label,ranks,ndims,method,time_s,heap_per_rank_B,comms_mpi
 * time_s: the slowest rank's time from a barrier to its last communicator
 * (MPI_Wtime: simulated time under SMPI). heap_per_rank_B: growth of the
 * process heap (mallinfo2) over the creation, divided by the ranks of the
 * process: under SMPI every simulated rank lives in the one process, so it
 * is the mean per rank, the MPI library's communicator objects included;
 * elsewhere it is rank 0's. comms_mpi: dmesh_get_cache_info's count (the
 * MPI ways: one per dimension, create_all's MPI_COMM_NULLs not counted).
 */
#include "config.h"

#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <mpi.h>
#include <dmesh.h>

static int rank, size, ndims, shape[4], ranks_per_process = 1;
static const char *label = "run", *methods; /* -m: only these */

static int wanted(const char *method)
{
    size_t n = strlen(method);

    for (const char *p = methods; p != NULL; p = strchr(p, ',') ? strchr(p, ',') + 1 : NULL)
        if (strncmp(p, method, n) == 0 && (p[n] == ',' || p[n] == '\0'))
            return 1;
    return methods == NULL;
}

/* Rank 0's view of the heap: under SMPI the heap of every simulated rank.
 * The other ranks do not ask: mallinfo2 walks the free lists, and
 * thousands of calls of it cost more than the simulation. */
static size_t heap(void)
{
    return rank == 0 ? mallinfo2().uordblks : 0;
}

/* The maximum of t over the ranks, and a barrier: a binomial tree to rank
 * 0 and back, by point-to-point messages. SMPI's default MPI_Reduce and
 * MPI_Barrier have the root wait on one request per rank (MPI_Waitany
 * over all of them each time): quadratic in simulation work, hours at
 * 16,384 ranks. */
static double tree_max(double t)
{
    int mask;

    for (mask = 1; mask < size; mask <<= 1) {
        if (rank & mask) {
            MPI_Send(&t, 1, MPI_DOUBLE, rank - mask, 1, MPI_COMM_WORLD);
            break;
        }
        if (rank + mask < size) {
            double v;

            MPI_Recv(&v, 1, MPI_DOUBLE, rank + mask, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            if (v > t)
                t = v;
        }
    }
    for (mask = mask < size ? mask : mask >> 1; mask >= 1; mask >>= 1)
        if (!(rank & (2 * mask - 1)) && rank + mask < size)
            MPI_Send(&t, 1, MPI_DOUBLE, rank + mask, 2, MPI_COMM_WORLD);
        else if ((rank & (2 * mask - 1)) == mask)
            MPI_Recv(&t, 1, MPI_DOUBLE, rank - mask, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    return t;
}

static void sync_all(void)
{
    tree_max(0);
}

static double slowest(double t)
{
    return tree_max(t);
}

static void report(const char *method, double t, size_t before, size_t after, int comms)
{
    double max = slowest(t);

    if (rank == 0)
        printf("%s,%d,%d,%s,%.9f,%.1f,%d\n", label, size, ndims, method, max,
               ((double)after - (double)before) / ranks_per_process, comms);
    fflush(stdout);
}

/* colour and key of the caller's group along dim d (row-major layout) */
static void split_args(int d, int *colour, int *key)
{
    int stride = 1;

    for (int e = d + 1; e < ndims; e++)
        stride *= shape[e];
    *key = rank / stride % shape[d];
    *colour = rank - *key * stride;
}

/* A timed case: every rank in step and the heap read before the clock
 * starts; after it stops, in step again and the heap read. */
static double case_begin(size_t *before)
{
    sync_all();
    *before = heap();
    sync_all();
    return MPI_Wtime();
}

static double case_end(double t0, size_t *after)
{
    double t = MPI_Wtime() - t0;

    sync_all();
    *after = heap();
    return t;
}

static void run_dmesh(const char *method, MPI_Info info)
{
    static const char *names[4] = {"a", "b", "c", "d"};
    dmesh_cache_info_t ci = {0};
    dmesh_t mesh = DMESH_NULL;
    size_t before, after;
    double t0, t;
    int rc;

    t0 = case_begin(&before);
    rc = dmesh_init(MPI_COMM_WORLD, "cpu", ndims, shape, names, info, &mesh);
    t = case_end(t0, &after);
    if (rc != DMESH_SUCCESS) {
        fprintf(stderr, "rank %d: %s: %s\n", rank, method, dmesh_last_error());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    dmesh_get_cache_info(mesh, &ci);
    report(method, t, before, after, ci.comms_mpi);
    dmesh_free(&mesh);
}

static void run_cart(void)
{
    int periods[4] = {0};
    MPI_Comm cart, sub[4];
    size_t before, after;
    double t0, t;

    t0 = case_begin(&before);
    MPI_Cart_create(MPI_COMM_WORLD, ndims, shape, periods, 0, &cart);
    for (int d = 0; d < ndims; d++) {
        int remain[4] = {0};

        remain[d] = 1;
        MPI_Cart_sub(cart, remain, &sub[d]);
    }
    t = case_end(t0, &after);
    report("cart_sub", t, before, after, ndims + 1);
    for (int d = 0; d < ndims; d++)
        MPI_Comm_free(&sub[d]);
    MPI_Comm_free(&cart);
}

static void run_split(void)
{
    MPI_Comm comm[4];
    size_t before, after;
    double t0, t;

    t0 = case_begin(&before);
    for (int d = 0; d < ndims; d++) {
        int colour, key;

        split_args(d, &colour, &key);
        MPI_Comm_split(MPI_COMM_WORLD, colour, key, &comm[d]);
    }
    t = case_end(t0, &after);
    report("comm_split", t, before, after, ndims);
    for (int d = 0; d < ndims; d++)
        MPI_Comm_free(&comm[d]);
}

/* Every group of every dimension, in colour order, created by every rank. */
static void run_create_all(void)
{
    MPI_Group world;
    MPI_Comm mine[4];
    int *members = malloc(sizeof(int) * (size_t)size);
    size_t before, after;
    double t0, t;

    MPI_Comm_group(MPI_COMM_WORLD, &world);
    t0 = case_begin(&before);
    for (int d = 0; d < ndims; d++) {
        int stride = 1, n = shape[d];

        for (int e = d + 1; e < ndims; e++)
            stride *= shape[e];
        mine[d] = MPI_COMM_NULL;
        /* group g: the ranks whose index with digit d zeroed is g's base */
        for (int base = 0; base < size; base++) {
            MPI_Group g;
            MPI_Comm c;

            if (base / stride % n != 0)
                continue;
            for (int i = 0; i < n; i++)
                members[i] = base + i * stride;
            MPI_Group_incl(world, n, members, &g);
            MPI_Comm_create(MPI_COMM_WORLD, g, &c);
            MPI_Group_free(&g);
            if (c != MPI_COMM_NULL)
                mine[d] = c;
        }
    }
    t = case_end(t0, &after);
    report("create_all", t, before, after, ndims);
    for (int d = 0; d < ndims; d++)
        if (mine[d] != MPI_COMM_NULL)
            MPI_Comm_free(&mine[d]);
    MPI_Group_free(&world);
    free(members);
}

int main(int argc, char **argv)
{
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int opt, len, max_create_all = 4096;
    MPI_Info split;

    ndims = 3;
    MPI_Init(&argc, &argv);
    /* dmesh raises its failures on these handlers (fatal by default): the tool
     * reports them itself. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    while ((opt = getopt(argc, argv, "d:x:l:m:")) != -1) {
        switch (opt) {
        case 'd':
            ndims = atoi(optarg);
            break;
        case 'x':
            max_create_all = atoi(optarg);
            break;
        case 'l':
            label = optarg;
            break;
        case 'm':
            methods = optarg;
            break;
        default:
            ndims = 0;
        }
    }
    if ((ndims != 3 && ndims != 4) || size % (ndims == 3 ? 32 : 64) != 0) {
        if (rank == 0)
            fprintf(
                stderr,
                "usage: bench-scale [-d 3|4] [-x MAX] [-l LABEL] [-m METHOD,...], at a multiple of "
                "32 (3-D) or 64 (4-D) ranks\n");
        MPI_Finalize();
        return 2;
    }
    if (ndims == 3) {
        shape[0] = size / 32, shape[1] = 4, shape[2] = 8;
    } else {
        shape[0] = size / 64, shape[1] = 2, shape[2] = 4, shape[3] = 8;
    }
    /* every simulated rank in this one process under SimGrid's SMPI */
    MPI_Get_library_version(version, &len);
    if (strstr(version, "SimGrid") != NULL || strstr(version, "SMPI") != NULL)
        ranks_per_process = size;
    MPI_Info_create(&split);
    MPI_Info_set(split, "dmesh_comm_create", "split");

    if (wanted("dmesh_init"))
        run_dmesh("dmesh_init", MPI_INFO_NULL);
    if (wanted("dmesh_init_warm"))
        run_dmesh("dmesh_init_warm", MPI_INFO_NULL);
    if (wanted("dmesh_init_split"))
        run_dmesh("dmesh_init_split", split);
    if (wanted("cart_sub"))
        run_cart();
    if (wanted("comm_split"))
        run_split();
    if (size <= max_create_all && wanted("create_all"))
        run_create_all();
    MPI_Info_free(&split);
    MPI_Finalize();
    return 0;
}
