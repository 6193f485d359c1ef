/* SPDX-License-Identifier: BSD-3-Clause */
/* The CUDA runtime and NCCL, loaded at run time (doc/architecture.md, Coding
 * rules: one build for every node): libdmesh.so does not link them, so that a program that only
 * makes "cpu" meshes starts on a node without them. The first "cuda" mesh
 * loads them (dmesh_gpu_lib_load) and fills a table of the functions dmesh
 * calls; doc/gpu.md says where they are looked for.
 *
 * A file that calls the libraries includes this header after theirs: the
 * macros at the end send each call through the table, so that call sites
 * keep the libraries' own names. A call that bypassed the table would leave
 * an undefined cuda or nccl symbol in libdmesh.so, which
 * test/gpu/gpu-libs.sh finds. */
#ifndef DMESH_GPU_LIB_H
#define DMESH_GPU_LIB_H

#include <cuda_runtime_api.h>
#ifdef DMESH_HAVE_NCCL
#include <nccl.h>
#endif

/* The functions dmesh calls: X(return type, name, parameter list). */
#define DMESH_CUDART_FUNCTIONS(X)                                                                  \
    X(cudaError_t, cudaSetDevice, (int))                                                           \
    X(cudaError_t, cudaGetDevice, (int *))                                                         \
    X(cudaError_t, cudaGetDeviceCount, (int *))                                                    \
    X(cudaError_t, cudaDeviceGetPCIBusId, (char *, int, int))                                      \
    X(const char *, cudaGetErrorString, (cudaError_t))                                             \
    X(cudaError_t, cudaGetLastError, (void))                                                       \
    X(cudaError_t, cudaPointerGetAttributes, (struct cudaPointerAttributes *, const void *))       \
    X(cudaError_t, cudaMemcpy, (void *, const void *, size_t, enum cudaMemcpyKind))                \
    X(cudaError_t, cudaDeviceSynchronize, (void))

#ifdef DMESH_HAVE_NCCL_SCALABLE
#define DMESH_NCCL_SCALABLE_FUNCTIONS(X)                                                           \
    X(ncclResult_t, ncclCommInitRankScalable,                                                      \
      (ncclComm_t *, int, int, int, ncclUniqueId *, ncclConfig_t *))
#else
#define DMESH_NCCL_SCALABLE_FUNCTIONS(X)
#endif

/* Newer than the oldest NCCL dmesh supports (2.18), and optional at run
 * time: the table holds NULL where the loaded library lacks one
 * (dmesh_gpu_lib_has says), so that a build against a new NCCL still runs
 * with an older one. Each is known by the flags macro its header declares
 * with it (NCCL_SHRINK_DEFAULT, NCCL_REVOKE_DEFAULT), not by the version:
 * NCCL 2.28.3 has no ncclCommRevoke, 2.28.9 has. */
#if defined(DMESH_HAVE_NCCL) && defined(NCCL_SHRINK_DEFAULT)
#define DMESH_HAVE_NCCL_SHRINK 1
#define DMESH_NCCL_SHRINK_FUNCTIONS(X)                                                             \
    X(ncclResult_t, ncclCommShrink, (ncclComm_t, int *, int, ncclComm_t *, ncclConfig_t *, int))
#else
#define DMESH_NCCL_SHRINK_FUNCTIONS(X)
#endif
#if defined(DMESH_HAVE_NCCL) && defined(NCCL_REVOKE_DEFAULT)
#define DMESH_HAVE_NCCL_REVOKE 1
#define DMESH_NCCL_REVOKE_FUNCTIONS(X) X(ncclResult_t, ncclCommRevoke, (ncclComm_t, int))
#else
#define DMESH_NCCL_REVOKE_FUNCTIONS(X)
#endif
#define DMESH_NCCL_OPTIONAL_FUNCTIONS(X)                                                           \
    DMESH_NCCL_SHRINK_FUNCTIONS(X)                                                                 \
    DMESH_NCCL_REVOKE_FUNCTIONS(X)

#define DMESH_NCCL_FUNCTIONS(X)                                                                    \
    X(ncclResult_t, ncclGetUniqueId, (ncclUniqueId *))                                             \
    X(ncclResult_t, ncclCommInitRankConfig,                                                        \
      (ncclComm_t *, int, ncclUniqueId, int, ncclConfig_t *))                                      \
    X(ncclResult_t, ncclCommSplit, (ncclComm_t, int, int, ncclComm_t *, ncclConfig_t *))           \
    X(ncclResult_t, ncclCommAbort, (ncclComm_t))                                                   \
    X(ncclResult_t, ncclCommDestroy, (ncclComm_t))                                                 \
    X(ncclResult_t, ncclCommFinalize, (ncclComm_t))                                                \
    X(ncclResult_t, ncclCommGetAsyncError, (ncclComm_t, ncclResult_t *))                           \
    X(ncclResult_t, ncclCommCuDevice, (const ncclComm_t, int *))                                   \
    X(const char *, ncclGetErrorString, (ncclResult_t))                                            \
    X(const char *, ncclGetLastError, (ncclComm_t))                                                \
    X(ncclResult_t, ncclGroupStart, (void))                                                        \
    X(ncclResult_t, ncclGroupEnd, (void))                                                          \
    DMESH_NCCL_SCALABLE_FUNCTIONS(X)

#define DMESH_GPU_LIB_FIELD(ret, name, params) ret(*name) params;

typedef struct {
    DMESH_CUDART_FUNCTIONS(DMESH_GPU_LIB_FIELD)
} dmesh_cudart_table_t;
extern dmesh_cudart_table_t dmesh_cudart;

#ifdef DMESH_HAVE_NCCL
typedef struct {
    DMESH_NCCL_FUNCTIONS(DMESH_GPU_LIB_FIELD)
    DMESH_NCCL_OPTIONAL_FUNCTIONS(DMESH_GPU_LIB_FIELD)
} dmesh_nccl_table_t;
extern dmesh_nccl_table_t dmesh_nccl;
#endif

/* Which libraries dmesh_gpu_lib_load loads (bits). */
enum { DMESH_GPU_CUDART = 1, DMESH_GPU_NCCL = 2 };

/* Local, thread-safe: the libraries of mask, each loaded once per process
 * and kept (never unloaded). DMESH_ERR_BACKEND, with a detail that names the
 * library and the loader's message, when one cannot be loaded or lacks a
 * function; a failed load is tried again by the next call. Collective
 * callers agree on the result before any rank returns (doc/architecture.md,
 * Coding rules: collective paths). Fault site "gpu_lib". */
int dmesh_gpu_lib_load(int mask);

/* Tests only: the next dmesh_gpu_lib_load looks for the libraries again
 * (those already loaded stay mapped). */
void dmesh_gpu_lib_forget(void);

/* Local: whether NCCL, loaded, has the optional function name (one of
 * DMESH_NCCL_OPTIONAL_FUNCTIONS); 0 before NCCL is loaded. */
int dmesh_gpu_lib_has(const char *name);

/* Tests only: from the next load on (after dmesh_gpu_lib_forget), the
 * optional functions are looked up (0) or taken as absent (1), as with an
 * NCCL older than 2.27. */
void dmesh_gpu_lib_hide_optional(int hide);

#ifndef DMESH_GPU_LIB_TABLE /* every file but gpu_lib.c, which fills the table */
#define cudaSetDevice (*dmesh_cudart.cudaSetDevice)
#define cudaGetDevice (*dmesh_cudart.cudaGetDevice)
#define cudaGetDeviceCount (*dmesh_cudart.cudaGetDeviceCount)
#define cudaDeviceGetPCIBusId (*dmesh_cudart.cudaDeviceGetPCIBusId)
#define cudaGetErrorString (*dmesh_cudart.cudaGetErrorString)
#define cudaGetLastError (*dmesh_cudart.cudaGetLastError)
#define cudaPointerGetAttributes (*dmesh_cudart.cudaPointerGetAttributes)
#define cudaMemcpy (*dmesh_cudart.cudaMemcpy)
#define cudaDeviceSynchronize (*dmesh_cudart.cudaDeviceSynchronize)
#ifdef DMESH_HAVE_NCCL
#define ncclGetUniqueId (*dmesh_nccl.ncclGetUniqueId)
#define ncclCommInitRankConfig (*dmesh_nccl.ncclCommInitRankConfig)
#define ncclCommInitRankScalable (*dmesh_nccl.ncclCommInitRankScalable)
#define ncclCommSplit (*dmesh_nccl.ncclCommSplit)
#define ncclCommAbort (*dmesh_nccl.ncclCommAbort)
#define ncclCommDestroy (*dmesh_nccl.ncclCommDestroy)
#define ncclCommFinalize (*dmesh_nccl.ncclCommFinalize)
#define ncclCommGetAsyncError (*dmesh_nccl.ncclCommGetAsyncError)
#define ncclCommCuDevice (*dmesh_nccl.ncclCommCuDevice)
#define ncclGetErrorString (*dmesh_nccl.ncclGetErrorString)
#define ncclGetLastError (*dmesh_nccl.ncclGetLastError)
#define ncclGroupStart (*dmesh_nccl.ncclGroupStart)
#define ncclGroupEnd (*dmesh_nccl.ncclGroupEnd)
#define ncclCommShrink (*dmesh_nccl.ncclCommShrink)
#define ncclCommRevoke (*dmesh_nccl.ncclCommRevoke)
#endif
#endif

#endif /* DMESH_GPU_LIB_H */
