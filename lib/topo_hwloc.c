/* SPDX-License-Identifier: BSD-3-Clause */
/* hwloc helpers of device binding. Devices are matched to hwloc's PCI
 * objects by bus id only: CUDA's and hwloc's orders are unrelated. */
#include "config.h"

#include "api_impl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "fault.h"
#include "topo_hwloc.h"

#define PCI_VENDOR_NVIDIA 0x10de
#define PCI_BASE_CLASS_DISPLAY 0x03

/* Only the PCI tree matters here: leave out the GPU and graphics plugins,
 * which would open CUDA, NVML or X in every rank. A plugin that is not
 * installed cannot be left out, so their results are ignored. */
static void topo_skip_gpu_plugins(hwloc_topology_t t)
{
    static const char *const names[] = {"cuda", "nvml", "opencl", "rsmi", "levelzero", "gl"};

    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
        (void)hwloc_topology_set_components(t, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, names[i]);
}

static int topo_configure(hwloc_topology_t t, const char *xml)
{
    if (xml != NULL) {
        if (hwloc_topology_set_xml(t, xml) < 0)
            return -1;
        return hwloc_topology_set_io_types_filter(t, HWLOC_TYPE_FILTER_KEEP_ALL);
    }
    topo_skip_gpu_plugins(t);
    /* GPUs are "important" PCI devices: the rest of the PCI tree can go. */
    return hwloc_topology_set_io_types_filter(t, HWLOC_TYPE_FILTER_KEEP_IMPORTANT);
}

int dmesh_topo_load(const char *xml, hwloc_topology_t *topo)
{
    hwloc_topology_t t;
    int injected;

    if (hwloc_topology_init(&t) < 0)
        return dmesh_error_set(DMESH_ERR_HWLOC, "hwloc_topology_init: %s", strerror(errno));
    injected = dmesh_fault(DMESH_FAULT_HWLOC);
    if (injected || topo_configure(t, xml) < 0 || hwloc_topology_load(t) < 0) {
        int e = injected ? EIO : errno;
        hwloc_topology_destroy(t);
        return dmesh_error_set(DMESH_ERR_HWLOC, "hwloc: cannot load the topology of %s: %s",
                               xml ? xml : "this machine", strerror(e));
    }
    *topo = t;
    return DMESH_SUCCESS;
}

int dmesh_topo_locality(hwloc_topology_t topo, const char *busid, hwloc_bitmap_t *locality)
{
    unsigned domain, bus, dev, func;
    hwloc_obj_t pci, ancestor;
    char end;

    if (sscanf(busid, "%x:%x:%x.%x%c", &domain, &bus, &dev, &func, &end) != 4)
        return dmesh_error_set(DMESH_ERR_ARG, "PCI bus id \"%s\" is not dddd:bb:dd.f", busid);
    *locality = NULL;
    pci = hwloc_get_pcidev_by_busid(topo, domain, bus, dev, func);
    ancestor = pci ? hwloc_get_non_io_ancestor_obj(topo, pci) : NULL;
    if (ancestor == NULL || ancestor->cpuset == NULL)
        return DMESH_SUCCESS;
    *locality = hwloc_bitmap_dup(ancestor->cpuset);
    if (*locality == NULL)
        return dmesh_error_set(DMESH_ERR_NOMEM, "hwloc_bitmap_dup: out of memory");
    return DMESH_SUCCESS;
}

static int pci_is_cuda(hwloc_obj_t o)
{
    return o->attr->pcidev.vendor_id == PCI_VENDOR_NVIDIA &&
           (o->attr->pcidev.class_id >> 8) == PCI_BASE_CLASS_DISPLAY;
}

static unsigned long long pci_key(hwloc_obj_t o)
{
    const struct hwloc_pcidev_attr_s *a = &o->attr->pcidev;

    return (unsigned long long)a->domain << 24 | a->bus << 16 | a->dev << 8 | a->func;
}

static int pci_compare(const void *x, const void *y)
{
    unsigned long long a = pci_key(*(const hwloc_obj_t *)x), b = pci_key(*(const hwloc_obj_t *)y);

    return (a > b) - (a < b);
}

int dmesh_topo_gpus(hwloc_topology_t topo, int max, char (*busid)[DMESH_TOPO_BUSID_LEN], int *n)
{
    int count = 0, i = 0;
    hwloc_obj_t o = NULL, *gpus;

    while ((o = hwloc_get_next_pcidev(topo, o)) != NULL)
        count += pci_is_cuda(o);
    gpus = malloc((count ? count : 1) * sizeof(*gpus));
    if (gpus == NULL)
        return dmesh_error_set(DMESH_ERR_NOMEM, "dmesh_topo_gpus: out of memory");
    while ((o = hwloc_get_next_pcidev(topo, o)) != NULL)
        if (pci_is_cuda(o))
            gpus[i++] = o;
    qsort(gpus, count, sizeof(*gpus), pci_compare);
    for (i = 0; i < count && i < max; i++) {
        const struct hwloc_pcidev_attr_s *a = &gpus[i]->attr->pcidev;
        snprintf(busid[i], DMESH_TOPO_BUSID_LEN, "%04x:%02x:%02x.%x", (unsigned)a->domain, a->bus,
                 a->dev, a->func);
    }
    free(gpus);
    *n = count;
    return DMESH_SUCCESS;
}

/* A binding that leaves out no allowed PU is no binding. */
static void binding_normalize(hwloc_topology_t topo, hwloc_bitmap_t *set)
{
    if (hwloc_bitmap_iszero(*set) ||
        hwloc_bitmap_isincluded(hwloc_topology_get_allowed_cpuset(topo), *set)) {
        hwloc_bitmap_free(*set);
        *set = NULL;
    }
}

int dmesh_topo_this_binding(hwloc_topology_t topo, hwloc_bitmap_t *binding)
{
    hwloc_bitmap_t set = hwloc_bitmap_alloc();

    if (set == NULL)
        return dmesh_error_set(DMESH_ERR_NOMEM, "hwloc_bitmap_alloc: out of memory");
    /* Where the OS cannot tell a process's binding, the calling thread's
     * (the one initialising the mesh) is the next best; neither: unbound. */
    if (hwloc_get_cpubind(topo, set, HWLOC_CPUBIND_PROCESS) < 0 &&
        hwloc_get_cpubind(topo, set, HWLOC_CPUBIND_THREAD) < 0)
        hwloc_bitmap_zero(set);
    binding_normalize(topo, &set);
    *binding = set;
    return DMESH_SUCCESS;
}

static int binding_type(const char *kind, hwloc_obj_type_t *type)
{
    if (strcmp(kind, "core") == 0)
        *type = HWLOC_OBJ_CORE;
    else if (strcmp(kind, "socket") == 0 || strcmp(kind, "package") == 0)
        *type = HWLOC_OBJ_PACKAGE;
    else if (strcmp(kind, "numa") == 0)
        *type = HWLOC_OBJ_NUMANODE;
    else
        return dmesh_error_set(DMESH_ERR_ARG, "binding \"%s\" is not core, socket, numa or none",
                               kind);
    return DMESH_SUCCESS;
}

int dmesh_topo_simulate_binding(hwloc_topology_t topo, const char *kind, int r, int n,
                                hwloc_bitmap_t *binding)
{
    hwloc_obj_type_t type = HWLOC_OBJ_CORE;
    hwloc_obj_t obj;
    int count;

    *binding = NULL;
    if (strcmp(kind, "none") == 0)
        return DMESH_SUCCESS;
    DMESH_TRY(binding_type(kind, &type));
    count = hwloc_get_nbobjs_by_type(topo, type);
    if (count < 1 || n < 1 || r < 0 || r >= n)
        return dmesh_error_set(DMESH_ERR_ARG, "cannot bind rank %d of %d to one of %d %ss", r, n,
                               count, kind);
    obj = hwloc_get_obj_by_type(topo, type, (int)((long long)r * count / n));
    *binding = hwloc_bitmap_dup(obj->cpuset);
    if (*binding == NULL)
        return dmesh_error_set(DMESH_ERR_NOMEM, "hwloc_bitmap_dup: out of memory");
    binding_normalize(topo, binding);
    return DMESH_SUCCESS;
}

int dmesh_topo_pack(hwloc_const_bitmap_t set, unsigned long words[DMESH_TOPO_CPU_WORDS])
{
    int last = hwloc_bitmap_last(set);

    if (last < 0 || last >= DMESH_TOPO_CPU_BITS)
        return 0;
    for (unsigned i = 0; i < DMESH_TOPO_CPU_WORDS; i++)
        words[i] = hwloc_bitmap_to_ith_ulong(set, i);
    return 1;
}

hwloc_bitmap_t dmesh_topo_unpack(const unsigned long words[DMESH_TOPO_CPU_WORDS])
{
    hwloc_bitmap_t set = hwloc_bitmap_alloc();

    for (unsigned i = 0; set != NULL && i < DMESH_TOPO_CPU_WORDS; i++)
        if (hwloc_bitmap_set_ith_ulong(set, i, words[i]) < 0) {
            hwloc_bitmap_free(set);
            set = NULL;
        }
    return set;
}
