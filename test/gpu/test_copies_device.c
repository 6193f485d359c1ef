/* SPDX-License-Identifier: BSD-3-Clause */
/* Copies in memory of buffers in device memory, on a "cuda" mesh, against
 * the CUDA runtime test double (no GPU): a device buffer and a host buffer
 * registered together go through stores and restores with exactly one
 * cudaMemcpy per device buffer each way (the double counts them: a memcpy
 * of device memory would not be counted, and on a GPU would crash), a
 * member whose copies go gets its device state back from its partner, a
 * device buffer with a datatype that is not contiguous is refused, and the
 * copies are ordered with the device's work: a store synchronizes the
 * device before its copy to the host (a kernel's writes on a non-blocking
 * stream are stored), a restore after its copy to the device (the bytes
 * are there for a kernel on any stream when it returns). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_double.h"
#include "dmesh.h"
#include "gpu_testutil.h"

#define NGPU CUDA_DOUBLE_NODE_GPUS
#define N 5003 /* doubles in device memory */

static double *host; /* scratch for the device buffer's bytes */
static int ints[8];  /* a host buffer registered beside it */

static void fill(double *d, int ver)
{
    for (int i = 0; i < N; i++)
        host[i] = world_rank * 1e6 + ver * 1e3 + i;
    CHECK_EQ(cudaMemcpy(d, host, N * sizeof(double), cudaMemcpyHostToDevice), cudaSuccess);
    for (int i = 0; i < 8; i++)
        ints[i] = world_rank * 100 + ver * 10 + i;
}

static int holds(const double *d, int ver)
{
    int ok = cudaMemcpy(host, d, N * sizeof(double), cudaMemcpyDeviceToHost) == cudaSuccess;

    for (int i = 0; ok && i < N; i++)
        ok = host[i] == world_rank * 1e6 + ver * 1e3 + i;
    for (int i = 0; ok && i < 8; i++)
        ok = ints[i] == world_rank * 100 + ver * 10 + i;
    return ok;
}

static dmesh_t cuda_mesh(void)
{
    MPI_Info info;
    char dev[16];
    dmesh_t m = DMESH_NULL;
    int shape[1] = {world_size};

    snprintf(dev, sizeof(dev), "%d", world_rank % NGPU);
    MPI_Info_create(&info);
    MPI_Info_set(info, "dmesh_device", dev);
    MPI_Info_set(info, "dmesh_backend", "mpi");
    CHECK_EQ(dmesh_init(MPI_COMM_WORLD, "cuda", 1, shape, NULL, info, &m), DMESH_SUCCESS);
    MPI_Info_free(&info);
    return m;
}

static void open_add(dmesh_t m, dmesh_copies_t *c, double *d)
{
    CHECK_EQ(dmesh_copies_open(m, "device", MPI_INFO_NULL, c), DMESH_SUCCESS);
    CHECK_EQ(dmesh_copies_add(*c, 0, d, N, MPI_DOUBLE), DMESH_SUCCESS);
    CHECK_EQ(dmesh_copies_add(*c, 1, ints, 8, MPI_INT), DMESH_SUCCESS);
}

GT_TEST(test_device_round_trips)
{
    dmesh_t m = cuda_mesh();
    dmesh_copies_t c = DMESH_COPIES_NULL, old;
    double *d = NULL;
    unsigned long before;
    int ver = -5;

    CHECK_EQ(cudaMalloc((void **)&d, N * sizeof(double)), cudaSuccess);
    open_add(m, &c, d);
    for (int v = 1; v <= 2; v++) {
        fill(d, v);
        before = cuda_double_copies();
        CHECK_EQ(dmesh_copies_store(c, v), DMESH_SUCCESS);
        CHECK_EQ(cuda_double_copies() - before, 1); /* the device buffer, to the host */
    }
    fill(d, 9);
    before = cuda_double_copies();
    CHECK_EQ(dmesh_copies_restore(c, &ver), DMESH_SUCCESS);
    CHECK_EQ(cuda_double_copies() - before, 1); /* and back */
    CHECK_EQ(ver, 2);
    CHECK(holds(d, 2));
    if (world_size > 1) { /* rank 0's copies go, as a new process's */
        old = c;
        if (world_rank == 0) {
            CHECK_EQ(dmesh_copies_free(&c), DMESH_SUCCESS);
            memset(ints, 0, sizeof(ints));
            memset(host, 0, N * sizeof(double));
            CHECK_EQ(cudaMemcpy(d, host, N * sizeof(double), cudaMemcpyHostToDevice), cudaSuccess);
        }
        open_add(m, &c, d);
        if (world_rank != 0)
            CHECK_EQ(dmesh_copies_free(&old), DMESH_SUCCESS);
        ver = -5;
        CHECK_EQ(dmesh_copies_restore(c, &ver), DMESH_SUCCESS);
        CHECK_EQ(ver, 2);
        CHECK(holds(d, 2));
    }
    CHECK_EQ(dmesh_copies_free(&c), DMESH_SUCCESS);
    CHECK_EQ(cudaFree(d), cudaSuccess);
    dmesh_free(&m);
}

GT_TEST(test_device_not_contiguous)
{
    dmesh_t m = cuda_mesh();
    dmesh_copies_t c = DMESH_COPIES_NULL;
    MPI_Datatype every_other;
    double *d = NULL;

    CHECK_EQ(cudaMalloc((void **)&d, 64 * sizeof(double)), cudaSuccess);
    MPI_Type_vector(32, 1, 2, MPI_DOUBLE, &every_other);
    MPI_Type_commit(&every_other);
    CHECK_EQ(dmesh_copies_open(m, "strided", MPI_INFO_NULL, &c), DMESH_SUCCESS);
    CHECK_EQ(dmesh_copies_add(c, 0, d, 1, every_other), DMESH_ERR_ARG);
    CHECK_MSG("device memory with a datatype that is not contiguous");
    CHECK_EQ(dmesh_copies_add(c, 0, host, 1, every_other), DMESH_SUCCESS); /* host: packed */
    CHECK_EQ(dmesh_copies_free(&c), DMESH_SUCCESS);
    MPI_Type_free(&every_other);
    CHECK_EQ(cudaFree(d), cudaSuccess);
    dmesh_free(&m);
}

/* Version ver's values of the device buffer, read as a kernel would
 * (the double's device memory is the host's), without a cudaMemcpy. */
static int device_is(const double *d, int ver)
{
    for (int i = 0; i < N; i++)
        if (d[i] != world_rank * 1e6 + ver * 1e3 + i)
            return 0;
    return 1;
}

GT_TEST(test_device_ordered)
{
    dmesh_t m = cuda_mesh();
    dmesh_copies_t c = DMESH_COPIES_NULL;
    double *d = NULL;
    unsigned long syncs;
    int ver = -5;

    CHECK_EQ(cudaMalloc((void **)&d, N * sizeof(double)), cudaSuccess);
    open_add(m, &c, d);
    fill(d, 1);
    for (int i = 0; i < N; i++) /* version 2: a kernel on a non-blocking stream writes it */
        host[i] = world_rank * 1e6 + 2e3 + i;
    cuda_double_kernel_write(d, host, N * sizeof(double));
    for (int i = 0; i < 8; i++)
        ints[i] = world_rank * 100 + 20 + i;
    cuda_double_reset_events();
    syncs = cuda_double_syncs();
    CHECK_EQ(dmesh_copies_store(c, 1), DMESH_SUCCESS);
    CHECK_EQ(cuda_double_syncs() - syncs, 1);
    CHECK(strcmp(cuda_double_events(), "SD") == 0); /* synchronized, then copied */
    fill(d, 9);
    cuda_double_reset_events();
    CHECK_EQ(dmesh_copies_restore(c, &ver), DMESH_SUCCESS);
    CHECK(strcmp(cuda_double_events(), "HS") == 0); /* copied, then synchronized */
    CHECK_EQ(ver, 1);
    CHECK(device_is(d, 2)); /* the kernel's values, landed */
    CHECK(holds(d, 2));
    CHECK_EQ(dmesh_copies_free(&c), DMESH_SUCCESS);
    CHECK_EQ(cudaFree(d), cudaSuccess);
    dmesh_free(&m);
}

static Suite *create_suite(void)
{
    Suite *s = suite_create("copies_device");
    TCase *t = tcase_create("core");

    tcase_set_timeout(t, 60);
    tcase_add_test(t, test_device_round_trips);
    tcase_add_test(t, test_device_not_contiguous);
    tcase_add_test(t, test_device_ordered);
    suite_add_tcase(s, t);
    return s;
}

int main(int argc, char **argv)
{
    int total;

    gt_init(&argc, &argv);
    cuda_double_set_devices(NGPU, cuda_double_node_gpus);
    host = malloc(N * sizeof(double));
    total = gt_run_suite(create_suite());
    free(host);
    MPI_Finalize();
    return total == 0 ? 0 : 1;
}
