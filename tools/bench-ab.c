/* SPDX-License-Identifier: BSD-3-Clause */
/* bench-ab: two builds of libdmesh side by side in one run, for the cost of
 * a change to a creation path (doc/performance.md, "Node finding"). Each
 * library is loaded with dlopen (RTLD_LOCAL: its own state), and every rep
 * times each case under both, alternating which goes first, so that drift
 * on a shared machine hits both alike. The CUDA runtime is the test double
 * of test/gpu (8 GPUs), linked into this program, where libdmesh finds it.
 *
 *   mpiexec -n N ./bench-ab OLD/libdmesh.so NEW/libdmesh.so [REPS]
 *
 * Cases, on a 1-D mesh of all ranks: dmesh_init_hybrid (one node: in_node
 * the size, across 1) and a "cuda" dmesh_init with mpi dims (device
 * binding), each repeated on one communicator and first on a fresh
 * duplicate. Prints the medians (us, slowest rank) and NEW / OLD.
 * Not built by make: see doc/performance.md for the command. */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include <mpi.h>

#include "cuda_double.h"

typedef struct dmesh_s *mesh_t;
typedef struct {
    int (*init)(MPI_Comm, const char *, int, const int *, const char *const *, MPI_Info, mesh_t *);
    int (*hybrid)(MPI_Comm, const char *, int, const int *, const int *, const char *const *,
                  MPI_Info, mesh_t *);
    int (*free)(mesh_t *);
} lib_t;

enum { HYBRID, HYBRID_FIRST, CUDA, CUDA_FIRST, NCASES };
static const char *const names[NCASES] = {"dmesh_init_hybrid, repeated",
                                          "dmesh_init_hybrid, first on a new comm",
                                          "dmesh_init \"cuda\" (CUDA double), repeated",
                                          "dmesh_init \"cuda\" (CUDA double), first on a new comm"};

static void load(const char *file, lib_t *l)
{
    void *h = dlopen(file, RTLD_NOW | RTLD_LOCAL);

    if (h == NULL) {
        fprintf(stderr, "bench-ab: %s\n", dlerror());
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    *(void **)&l->init = dlsym(h, "dmesh_init");
    *(void **)&l->hybrid = dlsym(h, "dmesh_init_hybrid");
    *(void **)&l->free = dlsym(h, "dmesh_free");
    if (l->init == NULL || l->hybrid == NULL || l->free == NULL) {
        fprintf(stderr, "bench-ab: %s lacks dmesh_init, _init_hybrid or _free\n", file);
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
}

/* Seconds of case c under l, the slowest rank's. */
static double once(const lib_t *l, int c, MPI_Comm comm, MPI_Info mpi_dims)
{
    int size, one = 1, rc;
    MPI_Comm fresh = comm;
    mesh_t m = NULL;
    double t, slowest;

    MPI_Comm_size(comm, &size);
    if (c == HYBRID_FIRST || c == CUDA_FIRST)
        MPI_Comm_dup(comm, &fresh);
    MPI_Barrier(comm);
    t = MPI_Wtime();
    rc = c == HYBRID || c == HYBRID_FIRST
             ? l->hybrid(fresh, "cpu", 1, &size, &one, NULL, MPI_INFO_NULL, &m)
             : l->init(fresh, "cuda", 1, &size, NULL, mpi_dims, &m);
    t = MPI_Wtime() - t;
    if (rc != 0) {
        fprintf(stderr, "bench-ab: %s failed: %d\n", names[c], rc);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    l->free(&m);
    if (fresh != comm)
        MPI_Comm_free(&fresh);
    MPI_Allreduce(&t, &slowest, 1, MPI_DOUBLE, MPI_MAX, comm);
    return slowest;
}

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(*v), by_value);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int main(int argc, char **argv)
{
    lib_t lib[2];
    int reps = argc > 3 ? atoi(argv[3]) : 20, rank, size;
    double *t;
    MPI_Comm comm;
    MPI_Info mpi_dims;

    MPI_Init(&argc, &argv);
    if (argc < 3 || reps < 1) {
        fprintf(stderr, "usage: mpiexec -n N bench-ab OLD/libdmesh.so NEW/libdmesh.so [REPS]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    cuda_double_set_devices(CUDA_DOUBLE_NODE_GPUS, cuda_double_node_gpus);
    load(argv[1], &lib[0]);
    load(argv[2], &lib[1]);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Info_create(&mpi_dims);
    MPI_Info_set(mpi_dims, "dmesh_backend", "mpi");
    t = malloc(sizeof(double) * 2 * NCASES * (size_t)reps);
    for (int c = 0; c < NCASES; c++) /* warm-up */
        for (int k = 0; k < 2; k++)
            once(&lib[k], c, comm, mpi_dims);
    for (int r = 0; r < reps; r++)
        for (int c = 0; c < NCASES; c++)
            for (int j = 0; j < 2; j++) {
                int k = (j + r + c) % 2; /* which library goes first alternates */
                t[((size_t)k * NCASES + c) * reps + r] = once(&lib[k], c, comm, mpi_dims);
            }
    if (rank == 0) {
        printf("bench-ab: %d ranks, %d reps; OLD %s, NEW %s\n", size, reps, argv[1], argv[2]);
        printf("  %-52s %10s %10s %8s\n", "case (median us, slowest rank)", "OLD", "NEW",
               "NEW/OLD");
        for (int c = 0; c < NCASES; c++) {
            double o = median(&t[(size_t)c * reps], reps) * 1e6;
            double n = median(&t[((size_t)NCASES + c) * reps], reps) * 1e6;
            printf("  %-52s %10.1f %10.1f %8.2f\n", names[c], o, n, n / o);
        }
    }
    free(t);
    MPI_Info_free(&mpi_dims);
    MPI_Comm_free(&comm);
    MPI_Finalize();
    return 0;
}
