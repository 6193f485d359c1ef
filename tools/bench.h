/* SPDX-License-Identifier: BSD-3-Clause */
/* dmesh-bench: shared declarations of the benchmark's parts.
 *   dmesh-bench.c  arguments, report (table, JSON, CSV), targets, main
 *   bench-create.c creation of a mesh vs. raw splits vs. a new_group loop
 *   bench-local.c  local operations in ns per call, memory of a live mesh
 *   bench-layout.c layout-only scale (no communicators) and memory model
 *   bench-pmpi.c   PMPI wrappers that attribute creation time (--profile)
 *   bench-ft.c     what fault tolerance costs (--ft, under ULFM)
 *   bench-copies.c the copies in memory against the floor (--copies) */
#ifndef DMESH_BENCH_H
#define DMESH_BENCH_H

#include <stdio.h>

#include <mpi.h>

#include "dmesh.h"

#define BENCH_MAX_CASES 16
#define BENCH_MAX_ITEMS 48
#define BENCH_MAX_TARGETS 16

/* MPI functions whose time --profile attributes (bench-pmpi.c). */
enum {
    PROF_SPLIT,
    PROF_CREATE,
    PROF_CREATE_GROUP,
    PROF_GROUP,
    PROF_DUP,
    PROF_ALLREDUCE,
    PROF_ATTR,
    PROF_ERRHANDLER,
    PROF_INFO,
    PROF_FREE,
    PROF_N
};

typedef struct {
    int ndims, shape[DMESH_MAX_DIMS];
    int reps, warmup;
    int json, csv, layout_only, create_only, profile;
    int nccl;        /* --nccl: the NCCL creation strategies side by side (bench-nccl.c) */
    int ft;          /* --ft: fault tolerance's costs (bench-ft.c) */
    int copies;      /* --copies: the copies in memory against the floor (bench-copies.c) */
    int copies_mib;  /* --copies-mib: one size instead of 16 and 256 MiB */
    long long world; /* layout-only world size */
} bench_args_t;

/* One timed creation case: seconds, max over ranks per rep. */
typedef struct {
    const char *key, *label;
    double min, med;
    double prof[PROF_N]; /* mean seconds per rep in each MPI function */
    double prof_other;   /* mean seconds per rep outside them */
    int profiled;
} bench_case_t;

/* A named figure of one section of the report. */
typedef struct {
    const char *section, *key, *label, *unit;
    double value;
} bench_item_t;

/* A target: value <= bound (ge == 0) or value >= bound (ge == 1). */
typedef struct {
    char label[96];
    double value, bound;
    int ge;
    int applies; /* 0: not defined at this size, printed for information */
} bench_target_t;

typedef struct {
    int size, rank;                   /* of MPI_COMM_WORLD; size 0 in layout-only mode */
    int n;                            /* mesh size (product of the shape) */
    int ndims, shape[DMESH_MAX_DIMS]; /* the mesh timed (layout-only: the 4-D one) */
    char mpi_version[256];
    bench_case_t cases[BENCH_MAX_CASES];
    int ncases;
    bench_item_t items[BENCH_MAX_ITEMS];
    int nitems;
    bench_target_t targets[BENCH_MAX_TARGETS];
    int ntargets;
    const char *notes[8];
    int nnotes;
    int nodes; /* the nodes found (dmesh_node auto); 0: unknown, or uneven */
} bench_report_t;

/* Report helpers (dmesh-bench.c). */
void bench_item(bench_report_t *r, const char *section, const char *key, const char *label,
                double value, const char *unit);
const bench_item_t *bench_find_item(const bench_report_t *r, const char *key);
const bench_case_t *bench_find_case(const bench_report_t *r, const char *key);
void bench_note(bench_report_t *r, const char *note);
void bench_die(const char *what, int err);

/* Balanced factorisation of n into ndims sizes, largest first. */
void bench_factor(long long n, int ndims, int shape[]);

/* Row-major reference, independent of dmesh's layout code: along dim d of
 * shape, mesh index i's key is its coordinate d and its colour the other
 * coordinates, linearised row-major (the MPI_Comm_split arguments). */
void bench_reference_split(int ndims, const int shape[], long long i, int d, int *colour, int *key);

/* Dimension names d0, d1, ... (static storage). */
const char *const *bench_names(int ndims);

/* 1 in dmesh-bench-double (a CUDA double sees 8 GPUs): the "cuda" cases run. */
extern int bench_cuda_double;

/* Wall-clock seconds without MPI (layout-only mode). */
double bench_now(void);

/* Median of n values (sorts v). */
double bench_median(double v[], int n);

/* Creation benchmark, collective over comm (bench-create.c). */
void bench_create(const bench_args_t *a, MPI_Comm comm, bench_report_t *r);

/* Local operations and live-mesh memory, collective over comm (bench-local.c). */
void bench_local(const bench_args_t *a, MPI_Comm comm, bench_report_t *r);

/* --nccl, collective over comm (bench-nccl.c): the creation strategies of
 * a "cuda" mesh of a's shape side by side; rank 0 prints the table, what
 * says which NCCL ran. */
void bench_nccl(const bench_args_t *a, MPI_Comm comm, int rank, const char *what);

/* --ft, collective over comm (bench-ft.c): the failure-aware agreement's
 * cost in dmesh_init, dmesh_shrink against dmesh_init on the survivors, then
 * once after a real failure (the last rank dies); rank 0 prints. Returns 1
 * when the run has no fault tolerance (nothing measured). */
/* --copies (bench-copies.c): store and a new process's restore against the
 * floor, and the copies' memory; prints on rank 0. */
int bench_copies(const bench_args_t *a, MPI_Comm comm, int rank);
int bench_ft(const bench_args_t *a, MPI_Comm comm, int rank, int size);
/* The first argument of a process that --ft starts (bench-ft.c): it joins
 * the benchmark's reps (bench_ft_child, after MPI_Init) and returns the
 * exit status. */
#define BENCH_CHILD "--ft-respawn-child"
int bench_ft_child(int argc, char **argv);
/* The end of bench_ft on the repaired communicator (frees it), new
 * processes included. */
int bench_ft_after_respawn(const bench_args_t *a, MPI_Comm comm);
/* MPI_Finalize after bench_ft, bounded (a process died in it). */
void bench_ft_finalize(void);

/* Layout-only scale and memory model, no MPI (bench-layout.c). Returns 0
 * when every sampled decomposition agrees with groups(). */
int bench_layout(const bench_args_t *a, bench_report_t *r);

/* --profile (bench-pmpi.c): the case whose MPI calls are being counted, or
 * -1; the accumulated seconds per case and function. */
extern int bench_prof_case;
extern double bench_prof_time[BENCH_MAX_CASES][PROF_N];
extern const char *const bench_prof_names[PROF_N];

#endif /* DMESH_BENCH_H */
