/* SPDX-License-Identifier: BSD-3-Clause */
/* Copies of buffers in device memory (copies.h), in builds with CUDA: the
 * CUDA runtime, loaded at run time (gpu_lib.h), tells device memory from
 * host memory and copies between them. */
#include "config.h"

#include "api_impl.h"

#include <string.h>

#include "copies_device.h"
#include "error.h"
#include "gpu_lib.h"

int dmesh_copies_device_of(const void *buf, int *device)
{
    struct cudaPointerAttributes a;
    cudaError_t e;

    *device = 0;
    DMESH_TRY(dmesh_gpu_lib_load(DMESH_GPU_CUDART));
    memset(&a, 0, sizeof(a));
    if ((e = cudaPointerGetAttributes(&a, buf)) != cudaSuccess) {
        (void)cudaGetLastError();
        return dmesh_error_set(DMESH_ERR_CUDA, "dmesh_copies_add: cudaPointerGetAttributes: %s",
                               cudaGetErrorString(e));
    }
    /* managed memory too: the host may read it, but not while a kernel
     * writes it; a store synchronizes the device first */
    *device = a.type == cudaMemoryTypeDevice || a.type == cudaMemoryTypeManaged;
    return DMESH_SUCCESS;
}

int dmesh_copies_device_copy(void *dst, const void *src, size_t n, const char *fn)
{
    cudaError_t e = cudaMemcpy(dst, src, n, cudaMemcpyDefault);

    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return dmesh_error_set(DMESH_ERR_CUDA, "%s: cudaMemcpy of %zu bytes: %s", fn, n,
                               cudaGetErrorString(e));
    }
    return DMESH_SUCCESS;
}

/* cudaMemcpy runs on the legacy default stream, which waits for the work
 * of blocking streams only: kernels on non-blocking streams (PyTorch's,
 * NCCL's) may still write a buffer a store copies, and a copy from
 * pageable host memory to the device may return before it lands. */
int dmesh_copies_device_sync(const char *fn)
{
    cudaError_t e = cudaDeviceSynchronize();

    if (e != cudaSuccess) {
        (void)cudaGetLastError();
        return dmesh_error_set(DMESH_ERR_CUDA, "%s: cudaDeviceSynchronize: %s", fn,
                               cudaGetErrorString(e));
    }
    return DMESH_SUCCESS;
}
