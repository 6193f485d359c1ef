/* SPDX-License-Identifier: BSD-3-Clause */
/* The device binding plan (lib/topo_plan.c) and its hwloc helpers
 * (lib/topo_hwloc.c) on the XML topologies of test/data: no GPU, no MPI.
 * GPU i of a topology is its i-th NVIDIA display-class PCI device in
 * bus-id order, as dmesh-info --plan numbers them. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "dmesh-info-plan.h"
#include "error.h"
#include "topo_hwloc.h"
#include "topo_plan.h"

#ifndef DMESH_TEST_DATA
#define DMESH_TEST_DATA "test/data"
#endif

#define MAX_GPUS 16
#define MAX_RANKS 64

typedef struct {
    hwloc_topology_t topo;
    int ngpu;
    char busid[MAX_GPUS][DMESH_TOPO_BUSID_LEN];
    hwloc_bitmap_t loc[MAX_GPUS];
} node_t;

static const char *data_path(const char *file)
{
    static char path[4096];

    snprintf(path, sizeof(path), "%s/%s", DMESH_TEST_DATA, file);
    return path;
}

static void node_load(node_t *n, const char *file)
{
    memset(n, 0, sizeof(*n));
    ck_assert_int_eq(dmesh_topo_load(data_path(file), &n->topo), DMESH_SUCCESS);
    ck_assert_int_eq(dmesh_topo_gpus(n->topo, MAX_GPUS, n->busid, &n->ngpu), DMESH_SUCCESS);
    ck_assert_int_le(n->ngpu, MAX_GPUS);
    for (int d = 0; d < n->ngpu; d++) {
        ck_assert_int_eq(dmesh_topo_locality(n->topo, n->busid[d], &n->loc[d]), DMESH_SUCCESS);
        ck_assert_ptr_nonnull(n->loc[d]);
    }
}

static void node_free(node_t *n)
{
    for (int d = 0; d < n->ngpu; d++)
        hwloc_bitmap_free(n->loc[d]);
    hwloc_topology_destroy(n->topo);
}

/* Bindings as a launcher would make them (kind), and the plan over them. */
static int plan_bound(node_t *n, const char *kind, int nranks, dmesh_topo_choice_t ch[])
{
    hwloc_bitmap_t bind[MAX_RANKS] = {NULL};
    int rc;

    ck_assert_int_le(nranks, MAX_RANKS);
    for (int r = 0; r < nranks; r++)
        ck_assert_int_eq(dmesh_topo_simulate_binding(n->topo, kind, r, nranks, &bind[r]),
                         DMESH_SUCCESS);
    rc = dmesh_topo_plan(n->ngpu, (const hwloc_const_cpuset_t *)n->loc, nranks,
                         (const hwloc_const_cpuset_t *)bind, ch);
    for (int r = 0; r < nranks; r++)
        hwloc_bitmap_free(bind[r]);
    return rc;
}

/* Loads differ by at most one (so no sharing while there are enough
 * devices), and each rank's shared count is its device's load. */
static void check_balanced(const dmesh_topo_choice_t ch[], int nranks, int ngpu)
{
    int load[MAX_GPUS] = {0}, lo = nranks, hi = 0;

    for (int r = 0; r < nranks; r++) {
        ck_assert_int_ge(ch[r].device, 0);
        ck_assert_int_lt(ch[r].device, ngpu);
        load[ch[r].device]++;
    }
    for (int d = 0; d < ngpu; d++) {
        lo = load[d] < lo ? load[d] : lo;
        hi = load[d] > hi ? load[d] : hi;
    }
    ck_assert_int_le(hi - lo, 1);
    for (int r = 0; r < nranks; r++) {
        ck_assert_int_eq(ch[r].shared, load[ch[r].device]);
        ck_assert_int_gt((int)strlen(ch[r].reason), 0);
    }
}

static int count_why(const dmesh_topo_choice_t ch[], int nranks, int why)
{
    int n = 0;

    for (int r = 0; r < nranks; r++)
        n += ch[r].why == why;
    return n;
}

/* Plan, check balance and the expected devices; returns ranks on a local device. */
static int expect_plan(node_t *n, const char *kind, int nranks, const int expected[])
{
    dmesh_topo_choice_t ch[MAX_RANKS];

    ck_assert_int_eq(plan_bound(n, kind, nranks, ch), DMESH_SUCCESS);
    check_balanced(ch, nranks, n->ngpu);
    for (int r = 0; r < nranks; r++)
        ck_assert_msg(ch[r].device == expected[r], "%s, %d ranks: rank %d got %d (%s), expected %d",
                      kind, nranks, r, ch[r].device, ch[r].reason, expected[r]);
    return count_why(ch, nranks, DMESH_TOPO_WHY_LOCAL);
}

static void seq(int out[], int n, int div, int mod)
{
    for (int i = 0; i < n; i++)
        out[i] = (i / div) % mod;
}

/* Logical index of the package whose cpuset equals GPU d's locality. */
static int package_of(node_t *n, int d)
{
    hwloc_obj_t p = NULL;

    while ((p = hwloc_get_next_obj_by_type(n->topo, HWLOC_OBJ_PACKAGE, p)) != NULL)
        if (hwloc_bitmap_isequal(p->cpuset, n->loc[d]))
            return (int)p->logical_index;
    return -1;
}

/* ---- topology helpers ---------------------------------------------------- */

START_TEST(test_gpus_two_sockets)
{
    static const char *const bus[] = {"0000:07:00.0", "0000:0f:00.0", "0000:47:00.0",
                                      "0000:4e:00.0", "0000:87:00.0", "0000:90:00.0",
                                      "0000:b7:00.0", "0000:bd:00.0"};
    node_t n;

    node_load(&n, "2s-8gpu.xml");
    ck_assert_int_eq(n.ngpu, 8); /* the ASPEED VGA and the NICs are not GPUs */
    for (int d = 0; d < 8; d++) {
        ck_assert_str_eq(n.busid[d], bus[d]);
        ck_assert_int_eq(package_of(&n, d), d / 4);
    }
    node_free(&n);
}
END_TEST

START_TEST(test_gpus_interleaved)
{
    node_t n;

    node_load(&n, "2s-8gpu-interleaved.xml");
    ck_assert_int_eq(n.ngpu, 8);
    for (int d = 0; d < 8; d++)
        ck_assert_int_eq(package_of(&n, d), d % 2);
    node_free(&n);
}

END_TEST

START_TEST(test_gpus_one_socket)
{
    node_t n;

    node_load(&n, "2s-4gpu-socket0.xml");
    ck_assert_int_eq(n.ngpu, 4);
    for (int d = 0; d < 4; d++)
        ck_assert_int_eq(package_of(&n, d), 0);
    node_free(&n);
    node_load(&n, "1s-8gpu.xml");
    ck_assert_int_eq(n.ngpu, 8);
    node_free(&n);
}
END_TEST

START_TEST(test_locality_by_bus_id)
{
    node_t n;
    hwloc_bitmap_t set = (hwloc_bitmap_t)1;

    node_load(&n, "2s-8gpu.xml");
    /* An unknown device has no locality; CUDA's 8-digit domains parse. */
    ck_assert_int_eq(dmesh_topo_locality(n.topo, "0000:33:00.0", &set), DMESH_SUCCESS);
    ck_assert_ptr_null(set);
    ck_assert_int_eq(dmesh_topo_locality(n.topo, "00000000:87:00.0", &set), DMESH_SUCCESS);
    ck_assert(set != NULL && hwloc_bitmap_isequal(set, n.loc[4]));
    hwloc_bitmap_free(set);
    ck_assert_int_eq(dmesh_topo_locality(n.topo, "87:00", &set), DMESH_ERR_ARG);
    ck_assert_int_eq(dmesh_topo_locality(n.topo, "0000:87:00.0 junk", &set), DMESH_ERR_ARG);
    node_free(&n);
}
END_TEST

START_TEST(test_simulated_bindings)
{
    node_t n;
    hwloc_bitmap_t b;

    node_load(&n, "2s-8gpu.xml");
    ck_assert_int_eq(dmesh_topo_simulate_binding(n.topo, "core", 5, 8, &b), DMESH_SUCCESS);
    ck_assert_int_eq(hwloc_bitmap_first(b), 20); /* core 20 of 32: PUs 20 and 52 */
    ck_assert_int_eq(hwloc_bitmap_weight(b), 2);
    hwloc_bitmap_free(b);
    ck_assert_int_eq(dmesh_topo_simulate_binding(n.topo, "socket", 3, 4, &b), DMESH_SUCCESS);
    ck_assert(hwloc_bitmap_isequal(b, n.loc[7]));
    hwloc_bitmap_free(b);
    ck_assert_int_eq(dmesh_topo_simulate_binding(n.topo, "none", 0, 4, &b), DMESH_SUCCESS);
    ck_assert_ptr_null(b);
    ck_assert_int_eq(dmesh_topo_simulate_binding(n.topo, "board", 0, 4, &b), DMESH_ERR_ARG);
    node_free(&n);
    /* One package is the whole machine: bound to it is not bound. */
    node_load(&n, "1s-8gpu.xml");
    ck_assert_int_eq(dmesh_topo_simulate_binding(n.topo, "socket", 1, 4, &b), DMESH_SUCCESS);
    ck_assert_ptr_null(b);
    node_free(&n);
}
END_TEST

START_TEST(test_pack_roundtrip)
{
    unsigned long words[DMESH_TOPO_CPU_WORDS];
    hwloc_bitmap_t a = hwloc_bitmap_alloc(), b;

    hwloc_bitmap_set_range(a, 3, 9);
    hwloc_bitmap_set(a, 700);
    hwloc_bitmap_set(a, DMESH_TOPO_CPU_BITS - 1);
    ck_assert_int_eq(dmesh_topo_pack(a, words), 1);
    b = dmesh_topo_unpack(words);
    ck_assert(hwloc_bitmap_isequal(a, b));
    hwloc_bitmap_set(a, DMESH_TOPO_CPU_BITS);
    ck_assert_int_eq(dmesh_topo_pack(a, words), 0);
    hwloc_bitmap_free(b);
    hwloc_bitmap_free(a);
}
END_TEST

/* ---- plans ----------------------------------------------------------------- */

START_TEST(test_plan_two_sockets)
{
    static const int four[] = {0, 1, 4, 5}, three[] = {0, 1, 4};
    const char *kinds[] = {"core", "socket"};
    int e[MAX_RANKS];
    node_t n;

    node_load(&n, "2s-8gpu.xml");
    for (int k = 0; k < 2; k++) {
        ck_assert_int_eq(expect_plan(&n, kinds[k], 4, four), 4);
        ck_assert_int_eq(expect_plan(&n, kinds[k], 3, three), 3);
        seq(e, 8, 1, 8);
        ck_assert_int_eq(expect_plan(&n, kinds[k], 8, e), 8);
        seq(e, 16, 2, 8);
        ck_assert_int_eq(expect_plan(&n, kinds[k], 16, e), 16);
    }
    node_free(&n);
}
END_TEST

START_TEST(test_plan_interleaved)
{
    static const int four[] = {0, 2, 1, 3}, eight[] = {0, 2, 4, 6, 1, 3, 5, 7};
    int sixteen[16];
    node_t n;

    for (int r = 0; r < 16; r++)
        sixteen[r] = eight[r / 2];
    node_load(&n, "2s-8gpu-interleaved.xml");
    ck_assert_int_eq(expect_plan(&n, "core", 4, four), 4);
    ck_assert_int_eq(expect_plan(&n, "core", 8, eight), 8);
    ck_assert_int_eq(expect_plan(&n, "socket", 8, eight), 8);
    ck_assert_int_eq(expect_plan(&n, "core", 16, sixteen), 16);
    ck_assert_int_eq(expect_plan(&n, "socket", 16, sixteen), 16);
    node_free(&n);
}
END_TEST

START_TEST(test_plan_one_socket)
{
    int e[MAX_RANKS];
    node_t n;

    node_load(&n, "1s-8gpu.xml");
    seq(e, 4, 1, 8);
    ck_assert_int_eq(expect_plan(&n, "core", 4, e), 4);
    seq(e, 8, 1, 8);
    ck_assert_int_eq(expect_plan(&n, "core", 8, e), 8);
    seq(e, 16, 2, 8);
    ck_assert_int_eq(expect_plan(&n, "core", 16, e), 16);
    /* Bound to the only package is not bound: local rank modulo 8. */
    seq(e, 16, 1, 8);
    ck_assert_int_eq(expect_plan(&n, "socket", 16, e), 0);
    node_free(&n);
}
END_TEST

/* GPUs on socket 0 only: socket-0 ranks get local GPUs, the others share
 * them evenly, and nobody shares while there are enough GPUs. */
START_TEST(test_plan_gpus_on_one_socket)
{
    static const int four[] = {0, 1, 2, 3}, eight[] = {0, 1, 2, 3, 0, 1, 2, 3};
    static const int sixteen[] = {0, 0, 1, 1, 2, 2, 3, 3, 0, 0, 1, 1, 2, 2, 3, 3};
    dmesh_topo_choice_t ch[16];
    node_t n;

    node_load(&n, "2s-4gpu-socket0.xml");
    ck_assert_int_eq(expect_plan(&n, "core", 4, four), 2);
    ck_assert_int_eq(expect_plan(&n, "socket", 4, four), 2);
    ck_assert_int_eq(expect_plan(&n, "core", 8, eight), 4);
    ck_assert_int_eq(expect_plan(&n, "core", 16, sixteen), 8);
    ck_assert_int_eq(plan_bound(&n, "socket", 16, ch), DMESH_SUCCESS);
    ck_assert_int_eq(count_why(ch, 16, DMESH_TOPO_WHY_NO_LOCAL), 8);
    ck_assert_ptr_nonnull(strstr(ch[15].reason, "no device is local"));
    node_free(&n);
}
END_TEST

START_TEST(test_plan_unbound)
{
    int sizes[] = {4, 8, 16}, e[MAX_RANKS];
    dmesh_topo_choice_t ch[MAX_RANKS];
    node_t n;

    node_load(&n, "2s-8gpu.xml");
    for (int i = 0; i < 3; i++) {
        seq(e, sizes[i], 1, 8);
        ck_assert_int_eq(expect_plan(&n, "none", sizes[i], e), 0);
    }
    ck_assert_int_eq(plan_bound(&n, "none", 16, ch), DMESH_SUCCESS);
    ck_assert_int_eq(count_why(ch, 16, DMESH_TOPO_WHY_MODULO), 16);
    ck_assert_ptr_nonnull(strstr(ch[9].reason, "local rank 9 mod 8 devices"));
    node_free(&n);
}
END_TEST

/* Ranks 0-3 bound to socket 1, ranks 4-7 not bound: the bound ranks get
 * socket 1's GPUs, the unbound ones what is left. */
START_TEST(test_plan_mixed)
{
    hwloc_const_cpuset_t bind[8] = {NULL};
    hwloc_obj_t pkg1;
    dmesh_topo_choice_t ch[8];
    node_t n;

    node_load(&n, "2s-8gpu.xml");
    pkg1 = hwloc_get_obj_by_type(n.topo, HWLOC_OBJ_PACKAGE, 1);
    for (int r = 0; r < 4; r++)
        bind[r] = pkg1->cpuset;
    ck_assert_int_eq(dmesh_topo_plan(8, (const hwloc_const_cpuset_t *)n.loc, 8, bind, ch),
                     DMESH_SUCCESS);
    check_balanced(ch, 8, 8);
    for (int r = 0; r < 8; r++)
        ck_assert_int_eq(ch[r].device, r < 4 ? 4 + r : r - 4);
    ck_assert_int_eq(count_why(ch, 8, DMESH_TOPO_WHY_LOCAL), 4);
    ck_assert_int_eq(count_why(ch, 8, DMESH_TOPO_WHY_UNBOUND), 4);
    node_free(&n);
}
END_TEST

/* Bound ranks, but no device locality known: local rank modulo. */
START_TEST(test_plan_unknown_localities)
{
    hwloc_const_cpuset_t loc[4] = {NULL}, bind[6];
    hwloc_bitmap_t cpus = hwloc_bitmap_alloc();
    dmesh_topo_choice_t ch[6];

    hwloc_bitmap_set(cpus, 0);
    for (int r = 0; r < 6; r++)
        bind[r] = cpus;
    ck_assert_int_eq(dmesh_topo_plan(4, loc, 6, bind, ch), DMESH_SUCCESS);
    check_balanced(ch, 6, 4);
    for (int r = 0; r < 6; r++)
        ck_assert_int_eq(ch[r].device, r % 4);
    ck_assert_ptr_nonnull(strstr(ch[0].reason, "localities are unknown"));
    hwloc_bitmap_free(cpus);
}
END_TEST

/* Oversubscribed local devices: socket 0 has more ranks than GPUs while
 * socket 1 has none; balance wins over locality. */
START_TEST(test_plan_taken)
{
    hwloc_const_cpuset_t bind[8];
    dmesh_topo_choice_t ch[8];
    node_t n;

    node_load(&n, "2s-8gpu.xml");
    for (int r = 0; r < 8; r++)
        bind[r] = hwloc_get_obj_by_type(n.topo, HWLOC_OBJ_CORE, r)->cpuset; /* all on socket 0 */
    ck_assert_int_eq(dmesh_topo_plan(8, (const hwloc_const_cpuset_t *)n.loc, 8, bind, ch),
                     DMESH_SUCCESS);
    check_balanced(ch, 8, 8);
    ck_assert_int_eq(count_why(ch, 8, DMESH_TOPO_WHY_LOCAL), 4);
    ck_assert_int_eq(count_why(ch, 8, DMESH_TOPO_WHY_TAKEN), 4);
    for (int r = 0; r < 4; r++)
        ck_assert_int_eq(ch[r].device, r);
    node_free(&n);
}
END_TEST

/* Every topology, binding and rank count from 1 to 40: balanced. */
START_TEST(test_plan_sweep)
{
    static const char *const files[] = {"2s-8gpu.xml", "2s-8gpu-interleaved.xml", "1s-8gpu.xml",
                                        "2s-4gpu-socket0.xml"};
    static const char *const kinds[] = {"core", "socket", "numa", "none"};
    dmesh_topo_choice_t ch[40];
    node_t n;

    for (int f = 0; f < 4; f++) {
        node_load(&n, files[f]);
        for (int k = 0; k < 4; k++)
            for (int nranks = 1; nranks <= 40; nranks++) {
                ck_assert_int_eq(plan_bound(&n, kinds[k], nranks, ch), DMESH_SUCCESS);
                check_balanced(ch, nranks, n.ngpu);
            }
        node_free(&n);
    }
}
END_TEST

/* ---- optimality against brute force ----------------------------------------- */

static unsigned next_random(unsigned *state)
{
    *state = *state * 1103515245u + 12345u;
    return (*state >> 16) & 0x7fff;
}

/* Most ranks on a local device (mask bit) among the balanced assignments. */
static int best_local(int ndev, int nranks, const unsigned mask[])
{
    long total = 1;
    int best = -1;

    for (int r = 0; r < nranks; r++)
        total *= ndev;
    for (long code = 0; code < total; code++) {
        int load[MAX_GPUS] = {0}, local = 0, lo = nranks, hi = 0;
        long c = code;
        for (int r = 0; r < nranks; r++, c /= ndev) {
            load[c % ndev]++;
            local += (mask[r] >> (c % ndev)) & 1;
        }
        for (int d = 0; d < ndev; d++) {
            lo = load[d] < lo ? load[d] : lo;
            hi = load[d] > hi ? load[d] : hi;
        }
        if (hi - lo <= 1 && local > best)
            best = local;
    }
    return best;
}

/* Random small nodes: devices with random (often shared) one-PU localities,
 * ranks bound to random PU sets (some to PUs near no device) or unbound.
 * The plan must be balanced and as local as the best balanced assignment. */
START_TEST(test_plan_optimal)
{
    unsigned state = 12345;

    for (int iter = 0; iter < 3000; iter++) {
        int ndev = 1 + next_random(&state) % 4, nranks = 1 + next_random(&state) % 6, local = 0;
        hwloc_bitmap_t loc[4], bind[6] = {NULL};
        unsigned mask[6];
        dmesh_topo_choice_t ch[6];

        for (int d = 0; d < ndev; d++)
            loc[d] = hwloc_bitmap_alloc();
        for (int d = 0; d < ndev; d++)
            hwloc_bitmap_set(loc[d], next_random(&state) % ndev);
        for (int r = 0; r < nranks; r++) {
            unsigned pus = next_random(&state) % (1u << (ndev + 2));
            mask[r] = (1u << ndev) - 1;
            if (pus == 0 || next_random(&state) % 5 == 0)
                continue;
            bind[r] = hwloc_bitmap_alloc();
            mask[r] = 0;
            for (int pu = 0; pu < ndev + 2; pu++)
                if ((pus >> pu) & 1)
                    hwloc_bitmap_set(bind[r], pu);
            for (int d = 0; d < ndev; d++)
                if (hwloc_bitmap_intersects(bind[r], loc[d]))
                    mask[r] |= 1u << d;
        }
        ck_assert_int_eq(dmesh_topo_plan(ndev, (const hwloc_const_cpuset_t *)loc, nranks,
                                         (const hwloc_const_cpuset_t *)bind, ch),
                         DMESH_SUCCESS);
        check_balanced(ch, nranks, ndev);
        for (int r = 0; r < nranks; r++)
            local += (mask[r] >> ch[r].device) & 1;
        if (count_why(ch, nranks, DMESH_TOPO_WHY_MODULO) == 0)
            ck_assert_msg(local == best_local(ndev, nranks, mask),
                          "iteration %d: %d ranks local, best %d", iter, local,
                          best_local(ndev, nranks, mask));
        for (int r = 0; r < nranks; r++)
            hwloc_bitmap_free(bind[r]);
        for (int d = 0; d < ndev; d++)
            hwloc_bitmap_free(loc[d]);
    }
}
END_TEST

START_TEST(test_plan_errors)
{
    hwloc_const_cpuset_t none[1] = {NULL};
    dmesh_topo_choice_t ch[1];

    ck_assert_int_eq(dmesh_topo_plan(0, none, 1, none, ch), DMESH_ERR_NO_DEVICE);
    ck_assert_int_eq(dmesh_topo_plan(1, none, 0, none, ch), DMESH_ERR_ARG);
    ck_assert_int_eq(dmesh_topo_plan(1, none, 1, none, ch), DMESH_SUCCESS);
    ck_assert_int_eq(ch[0].device, 0);
    ck_assert_int_eq(dmesh_topo_load(data_path("no-such-file.xml"), &(hwloc_topology_t){0}),
                     DMESH_ERR_HWLOC);
    ck_assert_int_gt((int)strlen(dmesh_last_error()), 0);
}
END_TEST

/* ---- dmesh-info --plan ------------------------------------------------------ */

static int run_plan(const char *xml, const char *ranks, const char *bind)
{
    char topo[4096], *argv[9] = {"dmesh-info", "--plan", "--topology", topo, "--ranks-per-node"};
    int argc = 5;

    snprintf(topo, sizeof(topo), "%s", xml ? data_path(xml) : "");
    if (ranks != NULL)
        argv[argc++] = (char *)ranks;
    if (bind != NULL) {
        argv[argc++] = "--bind";
        argv[argc++] = (char *)bind;
    }
    argv[argc] = NULL;
    return dmesh_info_plan(argc, argv);
}

START_TEST(test_info_plan)
{
    ck_assert_int_eq(run_plan("2s-8gpu.xml", "8", "core"), 0);
    ck_assert_int_eq(run_plan("2s-4gpu-socket0.xml", "6", NULL), 0);
    ck_assert_int_eq(run_plan("1s-8gpu.xml", "4", "none"), 0);
    ck_assert_int_eq(run_plan("2s-8gpu.xml", NULL, NULL), 2);
    ck_assert_int_eq(run_plan("2s-8gpu.xml", "0", NULL), 2);
    ck_assert_int_eq(run_plan("2s-8gpu.xml", "4x", NULL), 2);
    ck_assert_int_eq(run_plan("2s-8gpu.xml", "4", "board"), 2); /* bad option */
    ck_assert_int_eq(run_plan("no-such-file.xml", "4", NULL), 1);
}
END_TEST

static Suite *plan_suite(void)
{
    Suite *s = suite_create("topo_plan");
    TCase *topo = tcase_create("topology"), *plan = tcase_create("plan");

    tcase_add_test(topo, test_gpus_two_sockets);
    tcase_add_test(topo, test_gpus_interleaved);
    tcase_add_test(topo, test_gpus_one_socket);
    tcase_add_test(topo, test_locality_by_bus_id);
    tcase_add_test(topo, test_simulated_bindings);
    tcase_add_test(topo, test_pack_roundtrip);
    tcase_add_test(plan, test_plan_two_sockets);
    tcase_add_test(plan, test_plan_interleaved);
    tcase_add_test(plan, test_plan_one_socket);
    tcase_add_test(plan, test_plan_gpus_on_one_socket);
    tcase_add_test(plan, test_plan_unbound);
    tcase_add_test(plan, test_plan_mixed);
    tcase_add_test(plan, test_plan_unknown_localities);
    tcase_add_test(plan, test_plan_taken);
    tcase_add_test(plan, test_plan_sweep);
    tcase_add_test(plan, test_plan_optimal);
    tcase_add_test(plan, test_plan_errors);
    tcase_add_test(plan, test_info_plan);
    tcase_set_timeout(plan, 120);
    suite_add_tcase(s, topo);
    suite_add_tcase(s, plan);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(plan_suite());
    int failed;

    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
