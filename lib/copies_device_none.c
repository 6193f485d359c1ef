/* SPDX-License-Identifier: BSD-3-Clause */
/* Copies of buffers in device memory (copies.h), in builds without CUDA:
 * every buffer is host memory. */
#include "config.h"

#include "api_impl.h"

#include "copies_device.h"
#include "error.h"

int dmesh_copies_device_of(const void *buf, int *device)
{
    (void)buf;
    *device = 0;
    return DMESH_SUCCESS;
}

int dmesh_copies_device_copy(void *dst, const void *src, size_t n, const char *fn)
{
    (void)dst;
    (void)src;
    return dmesh_error_set(DMESH_ERR_INTERNAL, "%s: a device copy of %zu bytes without CUDA", fn,
                           n);
}

int dmesh_copies_device_sync(const char *fn)
{
    return dmesh_error_set(DMESH_ERR_INTERNAL, "%s: a device synchronization without CUDA", fn);
}
