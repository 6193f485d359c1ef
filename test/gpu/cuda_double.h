/* SPDX-License-Identifier: BSD-3-Clause */
/* A test double of the CUDA runtime calls of lib/topo.c, so that device
 * binding runs end to end without a GPU. Linked only into tests. */
#ifndef CUDA_DOUBLE_H
#define CUDA_DOUBLE_H

#include <cuda_runtime_api.h>

/* The devices this process sees: n PCI bus ids, in CUDA order (n = 0: no
 * device; n < 0: cudaGetDeviceCount fails with cudaErrorNoDevice). */
void cuda_double_set_devices(int n, const char *const busid[]);

/* PCI bus ids of the eight GPUs of a typical node, in CUDA order, for
 * cuda_double_set_devices. */
#define CUDA_DOUBLE_NODE_GPUS 8
extern const char *const cuda_double_node_gpus[CUDA_DOUBLE_NODE_GPUS];

/* Make the next cudaSetDevice fail with err, once. */
void cuda_double_fail_set_device(cudaError_t err);

/* The calling thread's current device (-1 before any cudaSetDevice on this
 * thread, as with the runtime, whose cudaGetDevice then answers 0) and how
 * many times cudaSetDevice succeeded in the process.
 * cuda_double_set_current sets it directly (as an application would before
 * dmesh_bind=none), without making a context. */
int cuda_double_current(void);
int cuda_double_set_calls(void);
void cuda_double_set_current(int device);

/* Primary contexts this process made (cudaSetDevice of a device for the
 * first time); reset forgets them. */
int cuda_double_contexts(void);
void cuda_double_reset_contexts(void);

/* The cudaMemcpy calls that copied, since the start. */
unsigned long cuda_double_copies(void);

/* A kernel on a non-blocking stream writes n bytes of src to device memory
 * dst: they land at the next cudaDeviceSynchronize (or cudaFree), not at a
 * cudaMemcpy. */
void cuda_double_kernel_write(void *dst, const void *src, size_t n);

/* The cudaDeviceSynchronize calls since the start. */
unsigned long cuda_double_syncs(void);

/* The device calls in order since the last reset: S cudaDeviceSynchronize,
 * D a cudaMemcpy to the host, H one to the device, C another. */
const char *cuda_double_events(void);
void cuda_double_reset_events(void);

#endif /* CUDA_DOUBLE_H */
