/* SPDX-License-Identifier: BSD-3-Clause */
/* Meshes on real GPUs: one rank per GPU, public API only (dmesh.h,
 * dmesh_nccl.h) plus the CUDA runtime and NCCL. Each dimension's NCCL
 * communicator must reduce exactly over the dimension's group, in its
 * order. Exits 77 when there is no usable GPU. "--count" prints the number
 * of visible GPUs without starting MPI (for gpu-mesh.sh). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <check.h>
#include <cuda_runtime_api.h>
#include <mpi.h>
#include <nccl.h>

#include "dmesh.h"
#include "dmesh_nccl.h"
#include "gpu_testutil.h"

#define COUNT 4096
#define SKIP 77

/* Visible GPUs; 0 for cudaErrorNoDevice, or on a machine with no NVIDIA
 * device file at all (no GPU, no driver: CI), where the test skips. Any
 * other CUDA error on a GPU machine (driver too old, broken installation)
 * fails loudly. */
static int gpu_count(void)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);

    if (e == cudaErrorNoDevice || (e != cudaSuccess && access("/dev/nvidiactl", F_OK) != 0))
        return 0;
    if (e != cudaSuccess) {
        fprintf(stderr, "test_gpu_mesh: cudaGetDeviceCount: %s (%d): not a missing GPU, failing\n",
                cudaGetErrorString(e), (int)e);
        exit(1);
    }
    return n;
}

static MPI_Info info1(const char *key, const char *value)
{
    MPI_Info info;

    MPI_Info_create(&info);
    MPI_Info_set(info, key, value);
    return info;
}

/* Element i of rank r's buffer. */
static int element(int rank, int i)
{
    return (rank + 1) * 1000 + i % 997;
}

/* NCCL allreduce of a device buffer over dim; 0 when the result is the sum
 * over dmesh_get_group_ranks. */
static int reduce_errors(dmesh_t mesh, int dim, ncclComm_t nccl)
{
    int members[1024], n = 0, bad = 0, *host = malloc(COUNT * sizeof(int)), *dev = NULL;
    cudaStream_t stream;
    ncclResult_t r, state;

    CHECK_EQ(dmesh_get_group_ranks(mesh, dim, 1024, members, &n), DMESH_SUCCESS);
    for (int i = 0; i < COUNT; i++)
        host[i] = element(world_rank, i);
    CHECK_EQ(cudaMalloc((void **)&dev, COUNT * sizeof(int)), cudaSuccess);
    CHECK_EQ(cudaStreamCreate(&stream), cudaSuccess);
    CHECK_EQ(cudaMemcpy(dev, host, COUNT * sizeof(int), cudaMemcpyHostToDevice), cudaSuccess);
    r = ncclAllReduce(dev, dev, COUNT, ncclInt32, ncclSum, nccl, stream);
    /* a non-blocking communicator may answer ncclInProgress: poll until the
     * allreduce is enqueued before synchronising and freeing */
    for (state = r; state == ncclInProgress;)
        CHECK_EQ(ncclCommGetAsyncError(nccl, &state), ncclSuccess);
    CHECK_EQ(state, ncclSuccess);
    CHECK_EQ(cudaStreamSynchronize(stream), cudaSuccess);
    CHECK_EQ(cudaMemcpy(host, dev, COUNT * sizeof(int), cudaMemcpyDeviceToHost), cudaSuccess);
    for (int i = 0; i < COUNT; i++) {
        int want = 0;
        for (int m = 0; m < n; m++)
            want += element(members[m], i);
        bad += host[i] != want;
    }
    cudaStreamDestroy(stream);
    cudaFree(dev);
    free(host);
    return bad;
}

/* Everything a dim's NCCL communicator must be: size and rank of the dim
 * and a correct allreduce. Collective over the mesh. */
static void check_dims(dmesh_t mesh)
{
    int ndims = 0, shape[DMESH_MAX_DIMS], device = -1, current = -2;

    CHECK_EQ(dmesh_get_ndims(mesh, &ndims), DMESH_SUCCESS);
    CHECK_EQ(dmesh_get_shape(mesh, DMESH_MAX_DIMS, shape), DMESH_SUCCESS);
    CHECK_EQ(dmesh_get_device(mesh, &device), DMESH_SUCCESS);
    CHECK_EQ(cudaGetDevice(&current), cudaSuccess);
    CHECK_EQ(device, current);
    for (int d = 0; d < ndims; d++) {
        ncclComm_t nccl = NULL;
        int count = -1, rank = -1, local = -2, cudev = -1;
        CHECK_EQ(dmesh_get_nccl_comm(mesh, d, &nccl), DMESH_SUCCESS);
        if (nccl == NULL)
            continue;
        CHECK_EQ(ncclCommCount(nccl, &count), ncclSuccess);
        CHECK_EQ(count, shape[d]);
        CHECK_EQ(ncclCommUserRank(nccl, &rank), ncclSuccess);
        CHECK_EQ(dmesh_get_local_rank(mesh, d, &local), DMESH_SUCCESS);
        CHECK_EQ(rank, local);
        CHECK_EQ(ncclCommCuDevice(nccl, &cudev), ncclSuccess);
        CHECK_EQ(cudev, device);
        CHECK_EQ(reduce_errors(mesh, d, nccl), 0);
    }
}

/* ---- tests ------------------------------------------------------------- */

GT_TEST(test_one_dim)
{
    const char *names[] = {"world"};
    dmesh_t mesh = DMESH_NULL;

    CHECK_EQ(dmesh_init(MPI_COMM_WORLD, "cuda", 1, &world_size, names, MPI_INFO_NULL, &mesh),
             DMESH_SUCCESS);
    if (mesh != DMESH_NULL)
        check_dims(mesh);
    CHECK_EQ(dmesh_free(&mesh), DMESH_SUCCESS);
}

/* Every ordered factorisation of the world into 2 and 3 dims. */
GT_TEST(test_n_dims)
{
    const char *names[] = {"dp", "cp", "tp"};

    for (int a = 1; a <= world_size; a++)
        for (int b = 1; b <= world_size / a; b++) {
            int shape[3] = {a, b, world_size / (a * b)}, ndims = shape[2] == 1 ? 2 : 3;
            dmesh_t mesh = DMESH_NULL;
            if (world_size % (a * b) != 0 || a * b * shape[2] != world_size)
                continue;
            CHECK_EQ(dmesh_init(MPI_COMM_WORLD, "cuda", ndims, shape, names, MPI_INFO_NULL, &mesh),
                     DMESH_SUCCESS);
            if (mesh != DMESH_NULL)
                check_dims(mesh);
            CHECK_EQ(dmesh_free(&mesh), DMESH_SUCCESS);
        }
}

/* dmesh_nccl_init=lazy: the first dmesh_get_nccl_comm creates it. */
GT_TEST(test_lazy)
{
    int shape[2] = {world_size % 2 == 0 ? 2 : 1, world_size % 2 == 0 ? world_size / 2 : world_size};
    const char *names[] = {"dp", "tp"};
    MPI_Info info = info1("dmesh_nccl_init", "lazy");
    dmesh_cache_info_t before, after;
    dmesh_t mesh = DMESH_NULL;

    CHECK_EQ(dmesh_init(MPI_COMM_WORLD, "cuda", 2, shape, names, info, &mesh), DMESH_SUCCESS);
    MPI_Info_free(&info);
    if (mesh == DMESH_NULL)
        return;
    CHECK_EQ(dmesh_get_cache_info(mesh, &before), DMESH_SUCCESS);
    CHECK_EQ(before.comms_nccl, 0);
    check_dims(mesh);
    CHECK_EQ(dmesh_get_cache_info(mesh, &after), DMESH_SUCCESS);
    CHECK(after.comms_nccl >= 1);
    CHECK_EQ(dmesh_free(&mesh), DMESH_SUCCESS);
}

/* NCCL options reach a working communicator, also non-blocking ones. */
GT_TEST(test_nccl_options)
{
    const char *names[] = {"world"};
    MPI_Info info = info1("nccl_blocking", "0");
    dmesh_t mesh = DMESH_NULL;

    MPI_Info_set(info, "nccl_max_ctas.world", "4");
    MPI_Info_set(info, "nccl_min_ctas", "1");
    CHECK_EQ(dmesh_init(MPI_COMM_WORLD, "cuda", 1, &world_size, names, info, &mesh), DMESH_SUCCESS);
    MPI_Info_free(&info);
    if (mesh != DMESH_NULL)
        check_dims(mesh);
    CHECK_EQ(dmesh_free(&mesh), DMESH_SUCCESS);
}

/* One device per process: the first mesh chose it; dmesh_bind=none and a
 * current device changed by the application do not move it, another
 * forced ordinal is refused on every rank. The MPI backend. */
GT_TEST(test_device_overrides)
{
    const char *names[] = {"world"};
    int ngpu = gpu_count(), device = -1, first = -1;
    char other[16];
    MPI_Info info = info1("dmesh_backend", "mpi");
    dmesh_t mesh = DMESH_NULL;

    CHECK_EQ(dmesh_init(MPI_COMM_WORLD, "cuda", 1, &world_size, names, info, &mesh), DMESH_SUCCESS);
    CHECK_EQ(dmesh_get_device(mesh, &first), DMESH_SUCCESS);
    CHECK_EQ(dmesh_free(&mesh), DMESH_SUCCESS);
    MPI_Info_set(info, "dmesh_device", "-1"); /* not an ordinal: every rank fails alike */
    CHECK_EQ(dmesh_init(MPI_COMM_WORLD, "cuda", 1, &world_size, names, info, &mesh), DMESH_ERR_ARG);
    MPI_Info_delete(info, "dmesh_device");
    MPI_Info_set(info, "dmesh_bind", "none");
    CHECK_EQ(cudaSetDevice((first + 1) % ngpu), cudaSuccess);
    CHECK_EQ(dmesh_init(MPI_COMM_WORLD, "cuda", 1, &world_size, names, info, &mesh), DMESH_SUCCESS);
    CHECK_EQ(dmesh_get_device(mesh, &device), DMESH_SUCCESS);
    CHECK_EQ(device, first);
    CHECK_EQ(dmesh_free(&mesh), DMESH_SUCCESS);
    if (ngpu > 1) {
        snprintf(other, sizeof(other), "%d", (first + 1) % ngpu);
        MPI_Info_set(info, "dmesh_device", other);
        CHECK_EQ(dmesh_init(MPI_COMM_WORLD, "cuda", 1, &world_size, names, info, &mesh),
                 DMESH_ERR_NO_DEVICE);
    }
    MPI_Info_free(&info);
}

/* More ranks than GPUs on one NCCL dimension (run-device.sh: 2 ranks, one
 * GPU): DMESH_ERR_NO_DEVICE on every rank, naming the GPU, not a hang. */
GT_TEST(test_shared_gpu)
{
    const char *names[] = {"world"};
    dmesh_t mesh = DMESH_NULL;
    int rc;

    if (world_size <= gpu_count())
        return;
    rc = dmesh_init(MPI_COMM_WORLD, "cuda", 1, &world_size, names, MPI_INFO_NULL, &mesh);
    CHECK_EQ(rc, DMESH_ERR_NO_DEVICE);
    CHECK_SAME(rc);
    CHECK_MSG("share GPU");
    CHECK(mesh == DMESH_NULL);
}

/* A forced ordinal beyond the visible devices: DMESH_ERR_NO_DEVICE on every
 * rank, even where the ordinal would exist. */
GT_TEST(test_device_missing)
{
    const char *names[] = {"world"};
    char ordinal[16];
    dmesh_t mesh = DMESH_NULL;
    MPI_Info info;

    snprintf(ordinal, sizeof(ordinal), "%d", world_rank == 0 ? gpu_count() : 0);
    info = info1("dmesh_device", ordinal);
    MPI_Info_set(info, "dmesh_backend", "mpi");
    MPI_Info_set(info, "dmesh_check", "false"); /* ranks differ on purpose */
    CHECK_EQ(dmesh_init(MPI_COMM_WORLD, "cuda", 1, &world_size, names, info, &mesh),
             DMESH_ERR_NO_DEVICE);
    CHECK(mesh == DMESH_NULL);
    MPI_Info_free(&info);
}

static Suite *gpu_suite(void)
{
    Suite *s = suite_create("gpu_mesh");
    TCase *t = tcase_create("nccl");

    tcase_set_timeout(t, 300);
    tcase_add_test(t, test_one_dim);
    tcase_add_test(t, test_n_dims);
    tcase_add_test(t, test_lazy);
    tcase_add_test(t, test_nccl_options);
    tcase_add_test(t, test_device_overrides);
    tcase_add_test(t, test_device_missing);
    suite_add_tcase(s, t);
    return s;
}

/* More ranks than GPUs (run-device.sh, 2 ranks on one GPU). */
static Suite *shared_suite(void)
{
    Suite *s = suite_create("gpu_shared");
    TCase *t = tcase_create("shared");

    tcase_set_timeout(t, 300);
    tcase_add_test(t, test_shared_gpu);
    suite_add_tcase(s, t);
    return s;
}

int main(int argc, char **argv)
{
    int ngpu = gpu_count(), fewest, rc;

    if (argc > 1 && strcmp(argv[1], "--count") == 0) {
        printf("%d\n", ngpu);
        return ngpu > 0 ? 0 : SKIP;
    }
    gt_init(&argc, &argv);
    MPI_Allreduce(&ngpu, &fewest, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    if (fewest == 0) {
        if (world_rank == 0)
            printf("skipped: no usable GPU\n");
        MPI_Finalize();
        return SKIP;
    }
    rc = gt_run_suite(fewest < world_size ? shared_suite() : gpu_suite()) == 0 ? 0 : 1;
    MPI_Finalize();
    return rc;
}
