/* SPDX-License-Identifier: BSD-3-Clause */
/* Options of a creation call, parsed from MPI_Info keys and environment
 * variables (doc/user-guide.md). */
#ifndef DMESH_OPTIONS_H
#define DMESH_OPTIONS_H

#include <mpi.h>

#include "dmesh.h"

enum dmesh_comm_create { DMESH_COMM_CREATE_SPLIT = 0, DMESH_COMM_CREATE_GROUP = 1 };
enum dmesh_bind { DMESH_BIND_AUTO = 0, DMESH_BIND_NONE = 1 };
/* The rank map of dmesh_init: by rank, or by (node, local rank). */
enum dmesh_order { DMESH_ORDER_RANK = 0, DMESH_ORDER_NODE = 1 };
/* How nodes are found (dmesh_node, node_find.h): the MPI's shared-memory
 * split checked against host identity, the split alone, host identity alone. */
enum dmesh_node_rule { DMESH_NODE_AUTO = 0, DMESH_NODE_SHARED = 1, DMESH_NODE_HOST = 2 };
#define DMESH_NODE_RULES 3
extern const char *const dmesh_node_rule_names[DMESH_NODE_RULES];

/* Backends are the entries of the backend table (backend.h), by index; the
 * first, mpi, pairs nothing with the MPI communicators. */
#define DMESH_BACKEND_MPI 0
#define DMESH_BACKEND_MAX 4 /* room in the table (and in the options below) */

/* A backend's options of one axis (for nccl, the ncclConfig_t fields) and
 * of one call (for nccl, the creation strategy): plain bytes here, the
 * backend's own struct inside its file, so that this header knows no
 * backend. Zero bytes are the defaults. */
typedef union {
    unsigned char bytes[256];
    double align_double;
    void *align_pointer;
    long long align_long;
} dmesh_backend_axis_t;

typedef union {
    unsigned char bytes[32];
    double align_double;
    void *align_pointer;
    long long align_long;
} dmesh_backend_call_t;

/* Backend choice and backend options of one mesh dimension. */
typedef struct {
    int backend;               /* index in the backend table */
    dmesh_backend_axis_t opts; /* that backend's options of the dim */
} dmesh_axis_options_t;

typedef struct {
    int check;       /* agreement check before creating communicators */
    int comm_create; /* enum dmesh_comm_create */
    int device;      /* forced CUDA ordinal, or -1 */
    int bind;        /* enum dmesh_bind */
    int order;       /* enum dmesh_order (dmesh_order) */
    int node;        /* enum dmesh_node_rule (dmesh_node / DMESH_NODE) */
    int debug;       /* DMESH_DEBUG */
    int strict;      /* dmesh_strict / DMESH_STRICT: unknown names are errors */
    double timeout;  /* dmesh_timeout / DMESH_TIMEOUT seconds, 0: none */
    dmesh_axis_options_t axis[DMESH_MAX_DIMS];
    dmesh_backend_call_t call[DMESH_BACKEND_MAX]; /* each backend's options of the call */
} dmesh_options_t;

/* Parse info (may be MPI_INFO_NULL) for a mesh of ndims dims named names
 * (NULL: unnamed) and device type cuda (1) or cpu (0). Environment variables
 * give the defaults. Keys without the dmesh_ prefix are ignored; unknown
 * dmesh_* keys and DMESH_* variables are listed under DMESH_DEBUG and are
 * DMESH_ERR_ARG with dmesh_strict on; bad values, and backend settings that
 * the backend's library would refuse, are DMESH_ERR_ARG. Each backend of
 * the table (backend.h) parses its own keys and variables. */
int dmesh_options_parse(MPI_Info info, int ndims, const char *const names[], int cuda,
                        dmesh_options_t *opts);

/* Whether the agreement check is on for a call with info (the dmesh_check
 * key, else DMESH_CHECK, else on), read before the other arguments are
 * validated; a bad value counts as on (dmesh_options_parse reports it). */
int dmesh_options_check(MPI_Info info);

/* Canonical text of an axis's backend options, part of the cache key and of
 * the agreement hash: equal options give equal text. */
void dmesh_axis_options_key(const dmesh_axis_options_t *o, char *buf, size_t len);

/* The options the processes that dmesh_respawn and dmesh_grow start must
 * share with their parents: info's dmesh_ and nccl_ keys, and the DMESH_*
 * variables that shape a mesh under their keys (where info lacks them), as
 * text (*text malloc'd, "key\tvalue\n" each; "" for none). */
int dmesh_options_shared_text(MPI_Info info, char **text);

/* The info of dmesh_options_shared_text's text (MPI_INFO_NULL for none);
 * DMESH_ERR_ARG for text it did not write. */
int dmesh_options_from_text(const char *text, MPI_Info *info);

/* dmesh_timeout of info, else DMESH_TIMEOUT, validated: *seconds, 0 when
 * neither is set. */
int dmesh_options_timeout(MPI_Info info, double *seconds);

/* dmesh_respawn_command of info, else DMESH_RESPAWN_COMMAND, into cmd;
 * whether one is given. */
int dmesh_options_respawn_command(MPI_Info info, char cmd[MPI_MAX_INFO_VAL + 1]);

/* dmesh_respawn_hosts of info, else DMESH_RESPAWN_HOSTS unless info has
 * MPI_Comm_spawn's key host: the hosts of the new processes, checked
 * (dmesh_option_hosts), into names (one after the other, each
 * NUL-terminated) and *n (0: none given). DMESH_ERR_ARG for a bad list, or
 * for info with both dmesh_respawn_hosts and host. */
int dmesh_options_respawn_hosts(MPI_Info info, char names[MPI_MAX_INFO_VAL + 1], int *n);

/* DMESH_FINALIZE_BOUND in seconds: 60 when unset or bad, 0 for "0" or
 * "off" (finalize_bound.c). */
double dmesh_options_finalize_bound(void);

/* Local: this process's failure domain for its copies (info key
 * dmesh_copies_domain, else DMESH_COPIES_DOMAIN) into val; 0 when neither
 * names one (the node is the domain then). */
int dmesh_options_copies_domain(MPI_Info info, char val[MPI_MAX_INFO_VAL + 1]);

#endif /* DMESH_OPTIONS_H */
