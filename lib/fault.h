/* SPDX-License-Identifier: BSD-3-Clause */
/* Fault injection for tests: configure --enable-fault-injection compiles
 * lib/fault.c and makes the named sites below fail on request; a default
 * build compiles every hook to the plain call (no cost, no environment
 * variable read).
 *
 * DMESH_FAULT=site:rank:nth[,site:rank:nth...] makes the nth call (from 1,
 * counted since the variable last changed) at a site fail on the process of
 * that rank of MPI_COMM_WORLD ("*": every rank). The library reads
 * MPI_COMM_WORLD there only, in test builds.
 *
 * DMESH_FAULT_KILL=rank:nth kills the process of that rank of
 * MPI_COMM_WORLD (raise(SIGKILL)) at its nth step (from 1, counted since
 * the variable last changed), for the fault-tolerance tests: a step is
 * every site above and every agreement (agree.c: entering it, and after its
 * allreduce), so that a sweep of nth over 1, 2, ... kills the process at
 * every step of a collective call. */
#ifndef DMESH_FAULT_H
#define DMESH_FAULT_H

#include <stddef.h>
#include <stdlib.h>

enum dmesh_fault_site {
    DMESH_FAULT_DUP,          /* "dup": MPI_Comm_dup (private duplicate, dim_comms) */
    DMESH_FAULT_SPLIT,        /* "split": MPI_Comm_split of an axis */
    DMESH_FAULT_CREATE_GROUP, /* "create_group": MPI_Comm_create_group of an axis */
    DMESH_FAULT_ERRHANDLER,   /* "errhandler": MPI_Comm_set_errhandler */
    DMESH_FAULT_NCCL_INIT,    /* "nccl_init": ncclCommInitRankConfig fails */
    DMESH_FAULT_NCCL_HANG,    /* "nccl_hang": a non-blocking init never completes */
    DMESH_FAULT_SET_DEVICE,   /* "set_device": cudaSetDevice */
    DMESH_FAULT_HWLOC,        /* "hwloc": loading the hwloc topology */
    DMESH_FAULT_ALLGATHER,    /* "allgather": the node allgather of device binding */
    DMESH_FAULT_MALLOC,       /* "malloc": allocations on collective paths */
    DMESH_FAULT_CART,         /* "cart": MPI_Cart_create of dmesh_get_cart_comm */
    DMESH_FAULT_GPU_LIB,      /* "gpu_lib": loading the CUDA runtime or NCCL */
    DMESH_FAULT_GROUP,        /* "group": MPI_Group_incl of an axis's group, before its creation */
    DMESH_FAULT_COLOUR,       /* "colour": a split colour taken as past INT_MAX (at scale) */
    DMESH_FAULT_NSITES
};

#ifdef DMESH_FAULT_INJECTION
/* Whether this call at site is to fail (counts the call). */
int dmesh_fault(int site);
void *dmesh_fault_malloc(size_t n);
void *dmesh_fault_calloc(size_t n, size_t size);
void *dmesh_fault_realloc(void *p, size_t n);
/* One step of a collective call: counts it, and kills this process when
 * DMESH_FAULT_KILL names it and this step. */
void dmesh_fault_step(void);
#define DMESH_FAULT_MALLOC(n) dmesh_fault_malloc(n)
#define DMESH_FAULT_CALLOC(n, size) dmesh_fault_calloc((n), (size))
#define DMESH_FAULT_REALLOC(p, n) dmesh_fault_realloc((p), (n))
#else
#define dmesh_fault(site) 0
#define dmesh_fault_step() ((void)0)
#define DMESH_FAULT_MALLOC(n) malloc(n)
#define DMESH_FAULT_CALLOC(n, size) calloc((n), (size))
#define DMESH_FAULT_REALLOC(p, n) realloc((p), (n))
#endif

#endif /* DMESH_FAULT_H */
