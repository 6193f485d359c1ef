// SPDX-License-Identifier: BSD-3-Clause
// copies_stream (test/gpu/run-device.sh, a real GPU): copies in memory
// ordered with the program's work on the device. A kernel on a
// non-blocking stream (as PyTorch's and NCCL's are) writes a device buffer
// just before dmesh_copies_store: the stored copy must hold the kernel's
// values (the store synchronizes the device before its cudaMemcpy, which
// does not wait for such streams). After dmesh_copies_restore, a kernel on
// that stream must read the restored values at once (the restore
// synchronizes after its copies to the device, which may return before
// they land). Built with nvcc by run-device.sh; exit 0 passed, 77 no GPU,
// 1 failed.
#include <cuda_runtime.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>

#include "dmesh.h"

#define N (64u << 20) // doubles: 512 MiB, a copy the kernel is still writing

// Spin about `cycles` clock ticks, then write base + i.
__global__ void write_late(double *d, size_t n, double base, long long cycles)
{
    long long t0 = clock64();

    while (clock64() - t0 < cycles)
        ;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        d[i] = base + (double)i;
}

// Count the elements that differ from base + i.
__global__ void count_wrong(const double *d, size_t n, double base, unsigned long long *wrong)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        if (d[i] != base + (double)i)
            atomicAdd(wrong, 1ull);
}

static int fail(int rank, const char *what)
{
    fprintf(stderr, "copies_stream: rank %d: %s\n", rank, what);
    return 1;
}

int main(int argc, char **argv)
{
    int rank, size, ngpu = 0, ver = -1, bad = 0, all = 0;
    int shape[1];
    double *d = NULL;
    unsigned long long *wrong = NULL, host_wrong = 0;
    cudaStream_t s;
    dmesh_t mesh = DMESH_NULL;
    dmesh_copies_t c = DMESH_COPIES_NULL;
    MPI_Info info;
    char dev[16];

    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (cudaGetDeviceCount(&ngpu) != cudaSuccess || ngpu == 0) {
        MPI_Finalize();
        return 77;
    }
    snprintf(dev, sizeof(dev), "%d", rank % ngpu);
    MPI_Info_create(&info);
    MPI_Info_set(info, "dmesh_device", dev);
    MPI_Info_set(info, "dmesh_backend", "mpi");
    shape[0] = size;
    if (dmesh_init(MPI_COMM_WORLD, "cuda", 1, shape, NULL, info, &mesh) != DMESH_SUCCESS)
        return fail(rank, dmesh_last_error());
    MPI_Info_free(&info);
    if (cudaMalloc((void **)&d, N * sizeof(double)) != cudaSuccess ||
        cudaMalloc((void **)&wrong, sizeof(*wrong)) != cudaSuccess ||
        cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking) != cudaSuccess)
        return fail(rank, "CUDA allocation");
    cudaMemset(d, 0, N * sizeof(double));
    cudaDeviceSynchronize();
    if (dmesh_copies_open(mesh, "stream", MPI_INFO_NULL, &c) != DMESH_SUCCESS ||
        dmesh_copies_add(c, 0, d, (MPI_Count)N, MPI_DOUBLE) != DMESH_SUCCESS)
        return fail(rank, dmesh_last_error());
    // about 0.2 s of spinning at 1 to 2 GHz, then version 1's values
    write_late<<<1024, 256, 0, s>>>(d, N, rank * 1e9 + 1.0, 300000000ll);
    if (dmesh_copies_store(c, 1) != DMESH_SUCCESS)
        return fail(rank, dmesh_last_error());
    cudaDeviceSynchronize();
    write_late<<<1024, 256, 0, s>>>(d, N, -1.0, 0); // the buffer overwritten
    cudaDeviceSynchronize();
    if (dmesh_copies_restore(c, &ver) != DMESH_SUCCESS || ver != 1)
        return fail(rank, "restore");
    cudaMemsetAsync(wrong, 0, sizeof(*wrong), s);
    count_wrong<<<1024, 256, 0, s>>>(d, N, rank * 1e9 + 1.0, wrong);
    cudaMemcpyAsync(&host_wrong, wrong, sizeof(host_wrong), cudaMemcpyDeviceToHost, s);
    cudaStreamSynchronize(s);
    if (cudaGetLastError() != cudaSuccess)
        return fail(rank, "a CUDA error");
    if (host_wrong != 0) {
        fprintf(stderr,
                "copies_stream: rank %d: %llu of %u doubles are not the kernel's after the "
                "restore (the store copied before the kernel ended, or the restore returned "
                "before its copy landed)\n",
                rank, host_wrong, N);
        bad = 1;
    }
    MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    dmesh_copies_free(&c);
    cudaFree(d);
    cudaFree(wrong);
    cudaStreamDestroy(s);
    dmesh_free(&mesh);
    if (rank == 0)
        printf("copies_stream: %d rank(s): %s\n", size, all ? "FAIL" : "PASS");
    MPI_Finalize();
    return all;
}
