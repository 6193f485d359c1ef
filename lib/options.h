/* SPDX-License-Identifier: BSD-3-Clause */
/* Options of a creation call, parsed from MPI_Info keys and environment
 * variables (doc/user-guide.md). */
#ifndef DMESH_OPTIONS_H
#define DMESH_OPTIONS_H

#include <mpi.h>

#include "dmesh.h"

enum dmesh_backend { DMESH_BACKEND_UNSET = -1, DMESH_BACKEND_MPI = 0, DMESH_BACKEND_NCCL = 1 };
enum dmesh_comm_create { DMESH_COMM_CREATE_SPLIT = 0, DMESH_COMM_CREATE_GROUP = 1 };
enum dmesh_bind { DMESH_BIND_AUTO = 0, DMESH_BIND_NONE = 1 };
/* The rank map of dmesh_init: by rank, or by (node, local rank). */
enum dmesh_order { DMESH_ORDER_RANK = 0, DMESH_ORDER_NODE = 1 };
/* How NCCL communicators are made (dmesh_nccl_create; doc/gpu.md). */
enum dmesh_nccl_create {
    DMESH_NCCL_CREATE_INIT = 0,
    DMESH_NCCL_CREATE_SPLIT = 1,
    DMESH_NCCL_CREATE_SCALABLE = 2
};

/* ncclConfig_t fields an axis may set; a field is used only when its bit is
 * in set_mask. Plain values, so that this header needs no NCCL. */
enum {
    DMESH_NCCL_OPT_BLOCKING = 1 << 0,
    DMESH_NCCL_OPT_CGA_CLUSTER_SIZE = 1 << 1,
    DMESH_NCCL_OPT_MIN_CTAS = 1 << 2,
    DMESH_NCCL_OPT_MAX_CTAS = 1 << 3,
    DMESH_NCCL_OPT_NET_NAME = 1 << 4,
    DMESH_NCCL_OPT_SPLIT_SHARE = 1 << 5
};

typedef struct {
    unsigned set_mask;
    int blocking;
    int cga_cluster_size;
    int min_ctas;
    int max_ctas;
    int split_share;
    char net_name[64];
    /* ncclConfig_t.commName, "<mesh dim names>/<dim name>", so that NCCL's
     * logs name the mesh; not part of the cache key (the first mesh to
     * create a communicator names it). */
    char comm_name[128];
    double timeout; /* dmesh_timeout: bound of the wait for a non-blocking init, 0: none */
} dmesh_nccl_options_t;

/* Backend choice and NCCL settings of one mesh dimension. */
typedef struct {
    int backend; /* enum dmesh_backend */
    dmesh_nccl_options_t nccl;
} dmesh_axis_options_t;

typedef struct {
    int check;               /* agreement check before creating communicators */
    int comm_create;         /* enum dmesh_comm_create */
    int device;              /* forced CUDA ordinal, or -1 */
    int bind;                /* enum dmesh_bind */
    int nccl_lazy;           /* create NCCL communicators at first dmesh_get_nccl_comm */
    int order;               /* enum dmesh_order (dmesh_order) */
    int nccl_create;         /* enum dmesh_nccl_create */
    int nccl_scalable_roots; /* ids per scalable init; 0: one per 128 ranks */
    int debug;               /* DMESH_DEBUG */
    int strict;              /* dmesh_strict / DMESH_STRICT: unknown names are errors */
    double timeout;          /* dmesh_timeout / DMESH_TIMEOUT seconds, 0: none */
    dmesh_axis_options_t axis[DMESH_MAX_DIMS];
} dmesh_options_t;

/* Parse info (may be MPI_INFO_NULL) for a mesh of ndims dims named names
 * (NULL: unnamed) and device type cuda (1) or cpu (0). Environment variables
 * give the defaults. Keys without the dmesh_ prefix are ignored; unknown
 * dmesh_* keys and DMESH_* variables are listed under DMESH_DEBUG and are
 * DMESH_ERR_ARG with dmesh_strict on; bad values, and NCCL settings that
 * ncclCommInitRankConfig would refuse, are DMESH_ERR_ARG. */
int dmesh_options_parse(MPI_Info info, int ndims, const char *const names[], int cuda,
                        dmesh_options_t *opts);

/* Whether the agreement check is on for a call with info (the dmesh_check
 * key, else DMESH_CHECK, else on), read before the other arguments are
 * validated; a bad value counts as on (dmesh_options_parse reports it). */
int dmesh_options_check(MPI_Info info);

/* Canonical text of an axis's backend options, part of the cache key and of
 * the agreement hash: equal options give equal text. */
void dmesh_axis_options_key(const dmesh_axis_options_t *o, char *buf, size_t len);

#endif /* DMESH_OPTIONS_H */
