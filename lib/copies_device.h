/* SPDX-License-Identifier: BSD-3-Clause */
/* Copies in memory, on a device (copies_device.c with CUDA,
 * copies_device_none.c without). */
#ifndef DMESH_COPIES_DEVICE_H
#define DMESH_COPIES_DEVICE_H

#include <stddef.h>

/* Device memory (copies_device.c with CUDA, copies_device_none.c without):
 * whether buf is device (or managed) memory, and a copy between device and
 * host memory (DMESH_ERR_CUDA, fn in the detail). */
int dmesh_copies_device_of(const void *buf, int *device);
int dmesh_copies_device_copy(void *dst, const void *src, size_t n, const char *fn);

/* The device's work all done (cudaDeviceSynchronize): before a store's
 * copies from device memory, after a restore's copies to it
 * (DMESH_ERR_CUDA, fn in the detail). */
int dmesh_copies_device_sync(const char *fn);

#endif /* DMESH_COPIES_DEVICE_H */
