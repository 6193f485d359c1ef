/* SPDX-License-Identifier: BSD-3-Clause */
/* Device binding end to end (lib/topo.c with the hwloc node side) under
 * mpiexec, without a GPU: the CUDA runtime is a test double that reports the
 * GPUs of test/data/2s-8gpu.xml, and hwloc reads that file as this machine's
 * topology (HWLOC_XMLFILE, HWLOC_THISSYSTEM=1), so that the ranks' real CPU
 * bindings meet the file's GPU localities. Checks are soft so that no rank
 * leaves the others waiting in a collective call. */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>
#include <mpi.h>

#include "cuda_double.h"
#include "error.h"
#include "ft_launch.h"
#include "gpu_lib.h"
#include "gpu_testutil.h"
#include "options.h"
#include "topo.h"
#include "topo_hwloc.h"
#include "topo_plan.h"

#ifndef DMESH_TEST_DATA
#define DMESH_TEST_DATA "test/data"
#endif

#define NGPU 8
#define MAX_RANKS 64

static const char *const gpus[NGPU] = {"0000:07:00.0", "0000:0f:00.0", "0000:47:00.0",
                                       "0000:4e:00.0", "0000:87:00.0", "0000:90:00.0",
                                       "0000:b7:00.0", "0000:bd:00.0"};

static int thread_level;
static MPI_Comm comm; /* a duplicate of the world with MPI_ERRORS_RETURN, as the universe's */

static dmesh_options_t options(int device, int bind)
{
    dmesh_options_t o;

    memset(&o, 0, sizeof(o));
    o.device = device;
    o.bind = bind;
    return o;
}

/* Collective: the devices of all ranks (devices[world rank]). */
static void gather(int device, int devices[])
{
    MPI_Allgather(&device, 1, MPI_INT, devices, 1, MPI_INT, MPI_COMM_WORLD);
}

/* What the plan must give node rank r of the ranks that plan: the ranks
 * are not bound to CPUs (main unbinds them), so local rank modulo the 8
 * GPUs of the XML file (dmesh-info --plan --topology 2s-8gpu.xml --bind none). */
static const int expected[MAX_RANKS] = {0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7};

/* ---- tests ------------------------------------------------------------- */

GT_TEST(test_plan_on_node)
{
    dmesh_options_t o = options(-1, DMESH_BIND_AUTO);
    int device = -1, devices[MAX_RANKS];

    o.debug = 1; /* the choice and its reason on stderr, for the log */
    CHECK_EQ(dmesh_topo_bind(comm, &o, NULL, 1, &device), DMESH_SUCCESS);
    CHECK_EQ(device, expected[world_rank]);
    CHECK_EQ(cuda_double_current(), device);
    gather(device, devices);
    for (int r = 0; r < world_size && world_size <= NGPU; r++)
        CHECK(r == world_rank || devices[r] != device); /* no sharing while there are enough */
}

GT_TEST(test_forced)
{
    dmesh_options_t o = options(6, DMESH_BIND_AUTO);
    int device = -1;

    CHECK_EQ(dmesh_topo_bind(comm, &o, NULL, 1, &device), DMESH_SUCCESS);
    CHECK_EQ(device, 6);
    CHECK_EQ(cuda_double_current(), 6);
}

GT_TEST(test_bind_none)
{
    dmesh_options_t o = options(-1, DMESH_BIND_NONE);
    int device = -1, calls = cuda_double_set_calls();

    cuda_double_set_current(world_rank % NGPU);
    CHECK_EQ(dmesh_topo_bind(comm, &o, NULL, 1, &device), DMESH_SUCCESS);
    CHECK_EQ(device, world_rank % NGPU);
    CHECK_EQ(cuda_double_set_calls(), calls); /* kept, not set */
}

GT_TEST(test_one_visible)
{
    dmesh_options_t o = options(-1, DMESH_BIND_AUTO);
    int device = -1;

    cuda_double_set_devices(1, &gpus[world_rank % NGPU]);
    CHECK_EQ(dmesh_topo_bind(comm, &o, NULL, 1, &device), DMESH_SUCCESS);
    CHECK_EQ(device, 0);
}

/* Even ranks see all GPUs, odd ranks only socket 1's: two plans. */
GT_TEST(test_different_device_sets)
{
    dmesh_options_t o = options(-1, DMESH_BIND_AUTO);
    int device = -1, devices[MAX_RANKS];

    if (world_rank % 2)
        cuda_double_set_devices(4, &gpus[4]);
    CHECK_EQ(dmesh_topo_bind(comm, &o, NULL, 1, &device), DMESH_SUCCESS);
    CHECK(device >= 0 && device < (world_rank % 2 ? 4 : NGPU));
    gather(device, devices);
    for (int r = world_rank % 2; r < world_size && world_size <= 8; r += 2)
        CHECK(r == world_rank || devices[r] != device);
}

/* One rank without devices: every rank fails with DMESH_ERR_NO_DEVICE. */
GT_TEST(test_no_device_somewhere)
{
    dmesh_options_t o = options(-1, DMESH_BIND_AUTO);
    int device = -7, bad = world_size - 1, rc;

    if (world_rank == bad)
        cuda_double_set_devices(world_size > 1 ? 0 : -1, NULL);
    rc = dmesh_topo_bind(comm, &o, NULL, 1, &device);
    CHECK_EQ(rc, DMESH_ERR_NO_DEVICE);
    CHECK_SAME(rc);
    CHECK_EQ(device, -7);
    {
        char expect[64];
        snprintf(expect, sizeof(expect), "rank %d: device type \"cuda\"", bad);
        CHECK_MSG(expect); /* every rank names the rank that failed, and why */
    }
}

GT_TEST(test_forced_out_of_range)
{
    dmesh_options_t o = options(NGPU, DMESH_BIND_AUTO);
    int device = -7, rc = dmesh_topo_bind(comm, &o, NULL, 1, &device);

    CHECK_EQ(rc, DMESH_ERR_NO_DEVICE);
    CHECK_MSG("dmesh_device=8");
    CHECK_EQ(device, -7);
}

/* cudaSetDevice fails on one rank: every rank gets DMESH_ERR_CUDA. */
GT_TEST(test_set_device_fails)
{
    dmesh_options_t o = options(-1, DMESH_BIND_AUTO);
    int device = -7, rc;

    if (world_rank == 0)
        cuda_double_fail_set_device(cudaErrorDevicesUnavailable);
    rc = dmesh_topo_bind(comm, &o, NULL, 1, &device);
    CHECK_EQ(rc, DMESH_ERR_CUDA);
    CHECK_SAME(rc);
    CHECK_MSG("rank 0: cudaSetDevice"); /* on every rank */
}

/* One device per process: a later mesh over the odd ranks keeps each
 * rank's device (its own plan would move rank 1 to GPU 0 and rank 3 to 1),
 * and a rank outside it keeps its device without a CUDA call. */
GT_TEST(test_once_per_process)
{
    dmesh_options_t o = options(-1, DMESH_BIND_AUTO);
    int device = -1, later = -1, calls;

    o.debug = 1;
    CHECK_EQ(dmesh_topo_bind(comm, &o, NULL, 1, &device), DMESH_SUCCESS);
    CHECK_EQ(device, expected[world_rank]);
    calls = cuda_double_set_calls();
    CHECK_EQ(dmesh_topo_bind(comm, &o, NULL, world_rank % 2, &later), DMESH_SUCCESS);
    CHECK_EQ(later, expected[world_rank]);
    CHECK_EQ(cuda_double_current(), expected[world_rank]);
    if (world_rank % 2 == 0)
        CHECK_EQ(cuda_double_set_calls(), calls);
    o.device = (device + 1) % NGPU; /* another forced device: refused on every rank */
    CHECK_EQ(dmesh_topo_bind(comm, &o, NULL, 1, &later), DMESH_ERR_NO_DEVICE);
    CHECK_SAME(DMESH_ERR_NO_DEVICE);
}

/* Ranks outside the first mesh take no part in its plan and make no CUDA
 * context; the members plan among themselves. */
GT_TEST(test_non_members)
{
    dmesh_options_t o = options(-1, DMESH_BIND_AUTO);
    int device = -7, member = world_rank % 2;

    cuda_double_reset_contexts();
    CHECK_EQ(dmesh_topo_bind(comm, &o, NULL, member, &device), DMESH_SUCCESS);
    CHECK_EQ(device, member ? expected[world_rank / 2] : -1);
    CHECK_EQ(cuda_double_contexts(), member ? 1 : 0);
}

/* hwloc cannot load the topology: the plan falls back to local rank
 * modulo device count instead of failing. */
GT_TEST(test_hwloc_fails)
{
    dmesh_options_t o = options(-1, DMESH_BIND_AUTO);
    int device = -1;

    o.debug = 1;
    setenv("HWLOC_XMLFILE", DMESH_TEST_DATA "/no-such-topology.xml", 1);
    setenv("HWLOC_COMPONENTS", "xml,stop", 1); /* no fallback to the real machine */
    CHECK_EQ(dmesh_topo_bind(comm, &o, NULL, 1, &device), DMESH_SUCCESS);
    CHECK_EQ(device, world_rank % NGPU);
    unsetenv("HWLOC_COMPONENTS");
    setenv("HWLOC_XMLFILE", DMESH_TEST_DATA "/2s-8gpu.xml", 1);
}

/* The CUDA runtime cannot be loaded (doc/gpu.md section 8) on the ranks where fail is
 * set: DMESH_CUDART_LIBRARY names a file that does not exist there. Every
 * rank returns DMESH_ERR_BACKEND naming the library and the lowest failing
 * rank, no device set; then the runtime loads again (here the double,
 * found in the program). */
static void check_cudart_missing(int fail, const char *rank_detail)
{
    dmesh_options_t o = options(-1, DMESH_BIND_AUTO);
    int device = -7, rc, set_calls = cuda_double_set_calls();

    dmesh_gpu_lib_forget();
    if (fail)
        setenv("DMESH_CUDART_LIBRARY", "/nonexistent/libcudart.so.99", 1);
    rc = dmesh_topo_bind(comm, &o, NULL, 1, &device);
    unsetenv("DMESH_CUDART_LIBRARY");
    CHECK_EQ(rc, DMESH_ERR_BACKEND);
    CHECK_SAME(rc);
    CHECK_MSG(rank_detail);
    CHECK_MSG(
        "cannot load the CUDA runtime from DMESH_CUDART_LIBRARY=/nonexistent/libcudart.so.99");
    CHECK_EQ(device, -7);
    if (fail) /* the runtime never called where it is missing */
        CHECK_EQ(cuda_double_set_calls(), set_calls);
    CHECK_EQ(dmesh_topo_bind(comm, &o, NULL, 1, &device), DMESH_SUCCESS);
    CHECK_EQ(device, expected[world_rank]);
}

GT_TEST(test_cudart_missing_everywhere)
{
    check_cudart_missing(1, "rank 0: device type \"cuda\": ");
}

GT_TEST(test_cudart_missing_on_rank_1)
{
    check_cudart_missing(world_rank == 1, world_size > 1 ? "rank 1: " : "rank 0: ");
}

#ifdef DMESH_FAULT_INJECTION
/* The test-only fault sites of device binding (configure
 * --enable-fault-injection), each on rank 1: every rank returns the same
 * class, naming rank 1; hwloc failing is no error (the fallback plan). */
static int bind_with_fault(const char *spec, int *device)
{
    dmesh_options_t o = options(-1, DMESH_BIND_AUTO);
    int rc;

    setenv("DMESH_FAULT", spec, 1);
    rc = dmesh_topo_bind(comm, &o, NULL, 1, device);
    unsetenv("DMESH_FAULT");
    return rc;
}

/* The site fails on rank 1: expected on every rank, no device given. */
static void check_fault(const char *spec, int expected, const char *detail)
{
    int device = -7, rc = bind_with_fault(spec, &device);

    CHECK_EQ(rc, expected);
    CHECK_SAME(rc);
    CHECK_MSG(detail);
    CHECK_EQ(device, -7);
}

GT_TEST(test_fault_allgather)
{
    check_fault("allgather:1:1", DMESH_ERR_MPI, "rank 1: device binding: MPI_Allgather");
}

GT_TEST(test_fault_malloc)
{
    check_fault("malloc:1:1", DMESH_ERR_NOMEM, "rank 1: device binding: out of memory");
}

GT_TEST(test_fault_set_device)
{
    check_fault("set_device:1:1", DMESH_ERR_CUDA, "rank 1: cudaSetDevice");
}

GT_TEST(test_fault_gpu_lib)
{
    check_fault("gpu_lib:1:1", DMESH_ERR_BACKEND,
                "rank 1: device type \"cuda\": cannot load "
                "the CUDA runtime (libcudart.so.");
}

GT_TEST(test_fault_hwloc)
{
    int device = -7;

    CHECK_EQ(bind_with_fault("hwloc:*:1", &device), DMESH_SUCCESS);
    CHECK_EQ(device, world_rank % NGPU);
}
#endif

/* Unbind this process (its binding = every PU it may use), so that the
 * plan is the same on every machine: the expected table above. */
static void unbind(void)
{
    hwloc_topology_t topo;

    if (hwloc_topology_init(&topo) < 0)
        return;
    if (hwloc_topology_load(topo) == 0 &&
        hwloc_set_cpubind(topo, hwloc_topology_get_allowed_cpuset(topo), HWLOC_CPUBIND_PROCESS) < 0)
        fprintf(stderr, "[rank %d] cannot unbind: the plan may differ\n", world_rank);
    hwloc_topology_destroy(topo);
}

/* Two threads per rank bind on two communicators (MPI_THREAD_MULTIPLE),
 * the even ranks starting with the first, the odd ranks with the second:
 * a process-wide lock held across the exchange would have each rank's
 * first thread wait for a peer that waits for that lock. Both bindings
 * succeed, with the same device. Not when launched with fault tolerance:
 * each binding agrees, and Open MPI 5.0.7's MPIX_Comm_agree returns wrong
 * flags when two threads agree at once on different communicators
 * (test/trixie/agree-threads.c, without dmesh); the plain launches run it. */
typedef struct {
    MPI_Comm comm;
    double delay;
    int rc, device;
    char why[256]; /* the thread's dmesh_last_error() */
} bind_thread_t;

static void *bind_thread(void *arg)
{
    bind_thread_t *b = arg;
    dmesh_options_t o = options(-1, DMESH_BIND_AUTO);
    double t0 = MPI_Wtime();

    while (MPI_Wtime() - t0 < b->delay)
        ;
    b->rc = dmesh_topo_bind(b->comm, &o, NULL, 1, &b->device);
    snprintf(b->why, sizeof(b->why), "%s", b->rc != DMESH_SUCCESS ? dmesh_last_error() : "");
    return NULL;
}

GT_TEST(test_threads_opposite_order)
{
    bind_thread_t b[2];
    pthread_t th[2];

    if (thread_level < MPI_THREAD_MULTIPLE || test_launched_ft()) {
        if (world_rank == 0)
            printf("test_threads_opposite_order: skipped (%s)\n",
                   thread_level < MPI_THREAD_MULTIPLE
                       ? "no MPI_THREAD_MULTIPLE"
                       : "launched with fault tolerance: the MPI's concurrent agreements");
        return;
    }
    for (int i = 0; i < 2; i++) {
        memset(&b[i], 0, sizeof(b[i]));
        MPI_Comm_dup(comm, &b[i].comm);
        b[i].device = -1;
        b[i].delay = (i == world_rank % 2) ? 0 : 0.3;
    }
    for (int i = 0; i < 2; i++)
        pthread_create(&th[i], NULL, bind_thread, &b[i]);
    for (int i = 0; i < 2; i++)
        pthread_join(th[i], NULL);
    for (int i = 0; i < 2; i++) {
        if (b[i].rc != DMESH_SUCCESS)
            fprintf(stderr, "[rank %d] thread %d: %s\n", world_rank, i, b[i].why);
        CHECK_EQ(b[i].rc, DMESH_SUCCESS);
        CHECK_EQ(b[i].device, expected[world_rank]);
        MPI_Comm_free(&b[i].comm);
    }
}

/* Four devices and every rank of this one machine: by host identity the
 * ranks plan together, and each device serves a quarter of them. Under
 * test/node-double.sh (DMESH_TEST_SPLIT_ONE: the MPI's shared split has one
 * process, as MPICH 5 built for ch4:ucx makes it on one host) dmesh_node=
 * shared shows what the split alone would do: every rank plans alone and
 * takes device 0. */
GT_TEST(test_split_four_devices)
{
    dmesh_options_t o = options(-1, DMESH_BIND_AUTO);
    int device = -1, devices[MAX_RANKS], count[4] = {0};

    if (world_size % 4 != 0 || world_size > MAX_RANKS)
        return;
    cuda_double_set_devices(4, gpus);
    o.debug = 1;
    CHECK_EQ(dmesh_topo_bind(comm, &o, NULL, 1, &device), DMESH_SUCCESS);
    gather(device, devices);
    for (int r = 0; r < world_size; r++)
        if (devices[r] >= 0 && devices[r] < 4)
            count[devices[r]]++;
    for (int d = 0; d < 4; d++)
        CHECK_EQ(count[d], world_size / 4);
    if (getenv("DMESH_TEST_SPLIT_ONE") == NULL)
        return;
    dmesh_topo_forget();
    cuda_double_set_current(-1);
    o.node = DMESH_NODE_SHARED;
    CHECK_EQ(dmesh_topo_bind(comm, &o, NULL, 1, &device), DMESH_SUCCESS);
    gather(device, devices);
    for (int r = 0; r < world_size; r++)
        CHECK_EQ(devices[r], 0);
}

/* Checked fixture: every test starts with the GPUs of the XML file visible
 * and no device set. */
static void reset_devices(void)
{
    cuda_double_set_devices(NGPU, gpus);
    cuda_double_set_current(-1);
    dmesh_topo_forget();
}

static Suite *bind_suite(void)
{
    Suite *s = suite_create("topo_bind");
    TCase *t = tcase_create("bind");

    tcase_set_timeout(t, 120);
    tcase_add_checked_fixture(t, reset_devices, NULL);
    tcase_add_test(t, test_plan_on_node);
    tcase_add_test(t, test_forced);
    tcase_add_test(t, test_bind_none);
    tcase_add_test(t, test_one_visible);
    tcase_add_test(t, test_different_device_sets);
    tcase_add_test(t, test_no_device_somewhere);
    tcase_add_test(t, test_forced_out_of_range);
    tcase_add_test(t, test_set_device_fails);
    tcase_add_test(t, test_once_per_process);
    tcase_add_test(t, test_non_members);
    tcase_add_test(t, test_hwloc_fails);
    tcase_add_test(t, test_cudart_missing_everywhere);
    tcase_add_test(t, test_cudart_missing_on_rank_1);
    tcase_add_test(t, test_threads_opposite_order);
#ifdef DMESH_FAULT_INJECTION
    tcase_add_test(t, test_fault_allgather);
    tcase_add_test(t, test_fault_malloc);
    tcase_add_test(t, test_fault_set_device);
    tcase_add_test(t, test_fault_gpu_lib);
    tcase_add_test(t, test_fault_hwloc);
#endif
    suite_add_tcase(s, t);
    t = tcase_create("split"); /* also alone, by test/node-double.sh (CK_RUN_CASE) */
    tcase_set_timeout(t, 120);
    tcase_add_checked_fixture(t, reset_devices, NULL);
    tcase_add_test(t, test_split_four_devices);
    suite_add_tcase(s, t);
    return s;
}

int main(int argc, char **argv)
{
    int total;

    thread_level = gt_init_thread(&argc, &argv, MPI_THREAD_MULTIPLE);
    unbind();
    /* After MPI_Init, so that hwloc inside the MPI library saw the real machine. */
    setenv("HWLOC_XMLFILE", DMESH_TEST_DATA "/2s-8gpu.xml", 1);
    setenv("HWLOC_THISSYSTEM", "1", 1);
    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    MPI_Comm_set_errhandler(comm, MPI_ERRORS_RETURN);
    total = gt_run_suite(bind_suite());
    MPI_Comm_free(&comm);
    MPI_Finalize();
    return total == 0 ? 0 : 1;
}
