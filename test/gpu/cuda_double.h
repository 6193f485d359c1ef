/* A test double of the CUDA runtime calls of lib/topo.c, so that device
 * binding runs end to end without a GPU. Linked only into tests. */
#ifndef CUDA_DOUBLE_H
#define CUDA_DOUBLE_H

#include <cuda_runtime_api.h>

/* The devices this process sees: n PCI bus ids, in CUDA order (n = 0: no
 * device; n < 0: cudaGetDeviceCount fails with cudaErrorNoDevice). */
void cuda_double_set_devices(int n, const char *const busid[]);

/* Make the next cudaSetDevice fail with err, once. */
void cuda_double_fail_set_device(cudaError_t err);

/* The current device (-1 before any cudaSetDevice) and how many times
 * cudaSetDevice succeeded. cuda_double_set_current sets it directly (as an
 * application would before dmesh_bind=none). */
int cuda_double_current(void);
int cuda_double_set_calls(void);
void cuda_double_set_current(int device);

#endif /* CUDA_DOUBLE_H */
