/* SPDX-License-Identifier: BSD-3-Clause */
/* Test double of the CUDA runtime calls of device binding, and of device
 * memory for the copies: cudaMalloc hands out host memory that the double
 * remembers as the current device's, cudaPointerGetAttributes tells it
 * from host memory (cudaMemoryTypeUnregistered, as CUDA 11 and later do),
 * cudaMemcpy refuses a kind that contradicts its pointers, as the runtime
 * does. Device work is asynchronous as with the runtime: a kernel on a
 * non-blocking stream (cuda_double_kernel_write) writes device memory only
 * at the next cudaDeviceSynchronize (or cudaFree), since cudaMemcpy's
 * legacy stream does not wait for such streams; a copy from pageable host
 * memory to the device lands at the next synchronization or the next
 * cudaMemcpy (ordered after it on the legacy stream): read directly, as a
 * kernel on another stream would, device memory shows neither before. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_double.h"

#define MAX_DEVICES 16

static char busids[MAX_DEVICES][32];
static int ndevices = -1, set_calls, contexts;
/* As in the CUDA runtime, the current device belongs to the calling thread;
 * -1: none set on this thread (cudaGetDevice then answers 0). */
static __thread int current = -1;
/* Devices whose primary context exists: cudaSetDevice makes it (CUDA 12 and
 * later), device queries do not. */
static unsigned context_mask;
static cudaError_t set_failure = cudaSuccess, last_error = cudaSuccess;
static unsigned long copies; /* cudaMemcpy calls that copied */
static unsigned long syncs;  /* cudaDeviceSynchronize calls */
static char events[256];     /* S: a synchronization, D: a copy to the host, H: to the device */
static size_t nevents;

/* Device work not landed yet, in order: kernel 1 for a kernel's writes on
 * a non-blocking stream, 0 for a staged copy to the device. */
#define MAX_PENDING 16
static struct {
    char *dst, *bytes;
    size_t n;
    int kernel;
} pending[MAX_PENDING];
static int npending;

static void event(char e)
{
    if (nevents + 1 < sizeof(events))
        events[nevents++] = e;
}

/* Land the pending work: all of it, or (kernels 0) the staged copies. */
static void land(int kernels)
{
    int k = 0;

    for (int i = 0; i < npending; i++) {
        if (pending[i].kernel && !kernels) {
            pending[k++] = pending[i];
            continue;
        }
        memcpy(pending[i].dst, pending[i].bytes, pending[i].n);
        free(pending[i].bytes);
    }
    npending = k;
}

/* Work of mode kernel on dst (n bytes of src), pending; landed at once
 * when the table is full or the bytes cannot be held. */
static void defer(void *dst, const void *src, size_t n, int kernel)
{
    char *b = npending < MAX_PENDING ? malloc(n) : NULL;

    if (b == NULL) {
        memmove(dst, src, n);
        return;
    }
    memcpy(b, src, n);
    pending[npending].dst = dst;
    pending[npending].bytes = b;
    pending[npending].n = n;
    pending[npending].kernel = kernel;
    npending++;
}

const char *const cuda_double_node_gpus[CUDA_DOUBLE_NODE_GPUS] = {
    "0000:07:00.0", "0000:0f:00.0", "0000:47:00.0", "0000:4e:00.0",
    "0000:87:00.0", "0000:90:00.0", "0000:b7:00.0", "0000:bd:00.0"};

void cuda_double_set_devices(int n, const char *const busid[])
{
    ndevices = n < MAX_DEVICES ? n : MAX_DEVICES;
    for (int d = 0; d < ndevices; d++)
        snprintf(busids[d], sizeof(busids[d]), "%s", busid[d]);
}

void cuda_double_fail_set_device(cudaError_t err)
{
    set_failure = err;
}

int cuda_double_current(void)
{
    return current;
}

int cuda_double_set_calls(void)
{
    return set_calls;
}

void cuda_double_set_current(int device)
{
    current = device;
}

int cuda_double_contexts(void)
{
    return contexts;
}

void cuda_double_reset_contexts(void)
{
    context_mask = 0;
    contexts = 0;
}

cudaError_t cudaGetDeviceCount(int *count)
{
    if (ndevices < 0)
        return last_error = cudaErrorNoDevice;
    *count = ndevices;
    return cudaSuccess;
}

cudaError_t cudaGetLastError(void)
{
    cudaError_t e = last_error;

    last_error = cudaSuccess;
    return e;
}

const char *cudaGetErrorString(cudaError_t error)
{
    return error == cudaSuccess ? "no error (double)" : "CUDA error (double)";
}

cudaError_t cudaDeviceGetPCIBusId(char *pciBusId, int len, int device)
{
    if (device < 0 || device >= ndevices)
        return cudaErrorInvalidDevice;
    snprintf(pciBusId, (size_t)len, "%s", busids[device]);
    return cudaSuccess;
}

cudaError_t cudaGetDevice(int *device)
{
    *device = current < 0 ? 0 : current;
    return cudaSuccess;
}

cudaError_t cudaSetDevice(int device)
{
    cudaError_t e = set_failure;

    set_failure = cudaSuccess;
    if (e != cudaSuccess)
        return e;
    if (device < 0 || device >= ndevices)
        return cudaErrorInvalidDevice;
    current = device;
    set_calls++;
    if (!(context_mask & (1u << device))) {
        context_mask |= 1u << device;
        contexts++;
    }
    return cudaSuccess;
}

/* Device memory: the double's allocations (at most MAX_ALLOCS at once). */
#define MAX_ALLOCS 64
static struct {
    char *p;
    size_t n;
    int device;
} allocs[MAX_ALLOCS];

static int alloc_of(const void *p)
{
    for (int i = 0; i < MAX_ALLOCS; i++)
        if (allocs[i].p != NULL && (const char *)p >= allocs[i].p &&
            (const char *)p < allocs[i].p + allocs[i].n)
            return i;
    return -1;
}

cudaError_t cudaMalloc(void **p, size_t n)
{
    for (int i = 0; i < MAX_ALLOCS; i++)
        if (allocs[i].p == NULL) {
            if ((allocs[i].p = malloc(n > 0 ? n : 1)) == NULL)
                return last_error = cudaErrorMemoryAllocation;
            allocs[i].n = n > 0 ? n : 1;
            allocs[i].device = current < 0 ? 0 : current;
            *p = allocs[i].p;
            return cudaSuccess;
        }
    return last_error = cudaErrorMemoryAllocation;
}

cudaError_t cudaFree(void *p)
{
    int i = p != NULL ? alloc_of(p) : -1;

    if (p == NULL)
        return cudaSuccess;
    if (i < 0 || allocs[i].p != p)
        return last_error = cudaErrorInvalidValue;
    land(1); /* cudaFree synchronizes the device */
    free(allocs[i].p);
    allocs[i].p = NULL;
    return cudaSuccess;
}

cudaError_t cudaPointerGetAttributes(struct cudaPointerAttributes *a, const void *p)
{
    int i = alloc_of(p);

    memset(a, 0, sizeof(*a));
    a->type = i >= 0 ? cudaMemoryTypeDevice : cudaMemoryTypeUnregistered;
    a->device = i >= 0 ? allocs[i].device : -2;
    a->devicePointer = i >= 0 ? (void *)p : NULL;
    a->hostPointer = i >= 0 ? NULL : (void *)p;
    return cudaSuccess;
}

cudaError_t cudaMemcpy(void *dst, const void *src, size_t n, enum cudaMemcpyKind kind)
{
    int d = alloc_of(dst) >= 0, s = alloc_of(src) >= 0;

    if (n == 0)
        return cudaSuccess;
    if ((kind == cudaMemcpyHostToDevice && (!d || s)) ||
        (kind == cudaMemcpyDeviceToHost && (d || !s)) ||
        (kind == cudaMemcpyDeviceToDevice && (!d || !s)) ||
        (kind == cudaMemcpyHostToHost && (d || s)))
        return last_error = cudaErrorInvalidValue;
    if ((d && alloc_of((const char *)dst + n - 1) != alloc_of(dst)) ||
        (s && alloc_of((const char *)src + n - 1) != alloc_of(src)))
        return last_error = cudaErrorInvalidValue; /* past the end of an allocation */
    land(0); /* the legacy stream: after the copies before it */
    if (d && !s)
        defer(dst, src, n, 0); /* from pageable memory: may land after the return */
    else
        memmove(dst, src, n);
    event(d && !s ? 'H' : !d && s ? 'D' : 'C');
    copies++;
    return cudaSuccess;
}

cudaError_t cudaDeviceSynchronize(void)
{
    land(1);
    syncs++;
    event('S');
    return cudaSuccess;
}

void cuda_double_kernel_write(void *dst, const void *src, size_t n)
{
    defer(dst, src, n, 1);
}

unsigned long cuda_double_syncs(void)
{
    return syncs;
}

const char *cuda_double_events(void)
{
    events[nevents] = '\0';
    return events;
}

void cuda_double_reset_events(void)
{
    nevents = 0;
}

unsigned long cuda_double_copies(void)
{
    return copies;
}
