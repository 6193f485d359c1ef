/* SPDX-License-Identifier: BSD-3-Clause */
/* dmesh-info --plan: run dmesh's device binding plan on an hwloc XML
 * topology, for simulated CPU bindings of the node's ranks. The same plan
 * function runs inside dmesh_init on a real node. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dmesh.h"
#include "args.h"
#include "dmesh-info-plan.h"
#include "error.h"
#include "topo_hwloc.h"
#include "topo_plan.h"

#define MAX_RANKS 65536

typedef struct {
    const char *prog, *xml, *bind;
    int nranks;
} plan_args_t;

/* What the plan works on: the topology's GPUs and the simulated ranks. */
typedef struct {
    hwloc_topology_t topo;
    int loaded, ngpu, nranks;
    char (*busid)[DMESH_TOPO_BUSID_LEN];
    hwloc_bitmap_t *locality; /* ngpu */
    hwloc_bitmap_t *binding;  /* nranks */
    dmesh_topo_choice_t *choice;
} plan_node_t;

static int usage(const char *prog)
{
    fprintf(stderr,
            "usage: %s --plan --topology FILE.xml --ranks-per-node N "
            "[--bind core|socket|numa|none]\n"
            "  FILE.xml: an hwloc topology (lstopo --of xml); N: ranks on the node;\n"
            "  --bind: each rank bound to one core / package / NUMA node, the N ranks\n"
            "  spread in blocks over them (rank r on object r * count / N), or not bound\n"
            "  (default: socket)\n",
            prog);
    return 2;
}

static int parse_args(int argc, char **argv, plan_args_t *a)
{
    static const char *const binds[] = {"socket", "core", "numa", "none"};
    long long v;
    int k;

    a->prog = argv[0];
    a->xml = NULL;
    a->bind = "socket";
    a->nranks = 0;
    for (int i = 1; i < argc; i++) {
        const char *opt = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(opt, "--plan") == 0)
            continue;
        if (strcmp(opt, "--topology") != 0 && strcmp(opt, "--bind") != 0 &&
            strcmp(opt, "--ranks-per-node") != 0)
            return tool_unknown_option("dmesh-info --plan", opt);
        if (val == NULL)
            return tool_missing_value("dmesh-info --plan", opt);
        if (strcmp(opt, "--topology") == 0)
            a->xml = val;
        else if (strcmp(opt, "--bind") == 0)
            a->bind = val;
        else if (tool_parse_long("dmesh-info --plan", opt, val, 1, MAX_RANKS, &v) != 0)
            return -1;
        else
            a->nranks = (int)v;
        i++;
    }
    for (k = 0; k < 4 && strcmp(a->bind, binds[k]) != 0; k++)
        ;
    if (k == 4) {
        fprintf(stderr, "dmesh-info --plan: --bind: '%s' is not socket, core, numa or none\n",
                a->bind);
        return -1;
    }
    if (a->xml == NULL || a->nranks == 0) {
        fprintf(stderr, "dmesh-info --plan: needs --topology and --ranks-per-node\n");
        return -1;
    }
    return 0;
}

static int node_alloc(plan_node_t *n, int ngpu, int nranks)
{
    n->ngpu = ngpu;
    n->nranks = nranks;
    n->busid = calloc(ngpu ? ngpu : 1, sizeof(*n->busid));
    n->locality = calloc(ngpu ? ngpu : 1, sizeof(*n->locality));
    n->binding = calloc(nranks, sizeof(*n->binding));
    n->choice = calloc(nranks, sizeof(*n->choice));
    if (n->busid && n->locality && n->binding && n->choice)
        return DMESH_SUCCESS;
    return dmesh_error_set(DMESH_ERR_NOMEM, "out of memory for %d ranks", nranks);
}

static void node_free(plan_node_t *n)
{
    for (int d = 0; n->locality != NULL && d < n->ngpu; d++)
        hwloc_bitmap_free(n->locality[d]);
    for (int r = 0; n->binding != NULL && r < n->nranks; r++)
        hwloc_bitmap_free(n->binding[r]);
    free(n->choice);
    free(n->binding);
    free(n->locality);
    free(n->busid);
    if (n->loaded)
        hwloc_topology_destroy(n->topo);
}

/* Load the topology, find its GPUs and their localities, bind the ranks. */
static int node_load(plan_node_t *n, const plan_args_t *a)
{
    int ngpu, err;

    DMESH_TRY(dmesh_topo_load(a->xml, &n->topo));
    n->loaded = 1;
    DMESH_TRY(dmesh_topo_gpus(n->topo, 0, NULL, &ngpu));
    DMESH_TRY(node_alloc(n, ngpu, a->nranks));
    DMESH_TRY(dmesh_topo_gpus(n->topo, ngpu, n->busid, &ngpu));
    for (int d = 0; d < ngpu; d++)
        DMESH_TRY(dmesh_topo_locality(n->topo, n->busid[d], &n->locality[d]));
    for (int r = 0; r < a->nranks; r++)
        DMESH_TRY(dmesh_topo_simulate_binding(n->topo, a->bind, r, a->nranks, &n->binding[r]));
    if (ngpu == 0)
        return dmesh_error_set(DMESH_ERR_NO_DEVICE,
                               "%s has no NVIDIA GPU (PCI vendor 0x10de, "
                               "class 0x03xx)",
                               a->xml);
    err = dmesh_topo_plan(ngpu, (const hwloc_const_cpuset_t *)n->locality, a->nranks,
                          (const hwloc_const_cpuset_t *)n->binding, n->choice);
    return err;
}

/* "Package L#1 (PUs 16-31,48-63)" */
static void describe_set(hwloc_topology_t topo, hwloc_const_cpuset_t set, char *buf, size_t len)
{
    char type[32] = "?", pus[128] = "?";
    hwloc_obj_t obj = hwloc_get_obj_covering_cpuset(topo, set);

    if (obj != NULL)
        hwloc_obj_type_snprintf(type, sizeof(type), obj, 0);
    hwloc_bitmap_list_snprintf(pus, sizeof(pus), set);
    snprintf(buf, len, "%s L#%u (PUs %s)", type, obj ? obj->logical_index : 0, pus);
}

static void print_gpus(const plan_node_t *n, const plan_args_t *a)
{
    char where[192];

    printf("Topology %s: %d GPUs, numbered as CUDA numbers identical GPUs: the NVIDIA\n"
           "(vendor 0x10de) display-class (0x03xx) PCI devices in bus-id order\n",
           a->xml, n->ngpu);
    for (int d = 0; d < n->ngpu; d++) {
        if (n->locality[d] != NULL)
            describe_set(n->topo, n->locality[d], where, sizeof(where));
        else
            snprintf(where, sizeof(where), "locality unknown");
        printf("  GPU %d  %s  near %s\n", d, n->busid[d], where);
    }
}

static void print_ranks(const plan_node_t *n, const plan_args_t *a)
{
    char where[192];
    int local = 0, most = 0;

    printf("%d ranks per node, --bind %s:\n", a->nranks, a->bind);
    for (int r = 0; r < n->nranks; r++) {
        const dmesh_topo_choice_t *c = &n->choice[r];
        if (n->binding[r] != NULL)
            describe_set(n->topo, n->binding[r], where, sizeof(where));
        else
            snprintf(where, sizeof(where), "not bound");
        printf("  local rank %d  %s  -> GPU %d: %s\n", r, where, c->device, c->reason);
        local += c->why == DMESH_TOPO_WHY_LOCAL;
        most = c->shared > most ? c->shared : most;
    }
    printf("Summary: %d ranks on %d GPUs, at most %d rank%s per GPU, %d on a GPU local to "
           "their binding\n",
           n->nranks, n->ngpu, most, most == 1 ? "" : "s", local);
}

int dmesh_info_plan(int argc, char **argv)
{
    plan_args_t a;
    plan_node_t n;
    int err;

    if (parse_args(argc, argv, &a) < 0)
        return usage(argv[0]);
    memset(&n, 0, sizeof(n));
    err = node_load(&n, &a);
    if (err == DMESH_SUCCESS) {
        print_gpus(&n, &a);
        print_ranks(&n, &a);
    } else {
        fprintf(stderr, "%s: %s\n", a.prog, dmesh_last_error());
    }
    node_free(&n);
    return err == DMESH_SUCCESS ? 0 : 1;
}
