/* SPDX-License-Identifier: BSD-3-Clause */
/* Test double of the CUDA runtime calls of device binding. */
#include "config.h"

#include <stdio.h>
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
