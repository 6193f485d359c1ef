/* SPDX-License-Identifier: BSD-3-Clause */
/* Finding the node of each rank: the one place where dmesh decides which
 * ranks share a machine (GPU binding, hybrid meshes, node order, the
 * locality report). A node is the MPI's shared-memory split
 * (MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)) checked against host
 * identity (the processor name and the kernel's boot id): an MPI without
 * shared memory between processes (MPICH 5 built for ch4:ucx) or one
 * container per rank makes a split finer than the host, which the host
 * grouping then replaces (dmesh_node, enum dmesh_node_rule in options.h).
 * Knows communicators, not meshes. */
#ifndef DMESH_NODE_FIND_H
#define DMESH_NODE_FIND_H

#include <stdint.h>

#include <mpi.h>

/* "name\nboot id": a processor name and the boot id of its kernel. */
#define DMESH_HOST_ID_LEN (MPI_MAX_PROCESSOR_NAME + 50)

typedef struct {
    char id[DMESH_HOST_ID_LEN];
    uint64_t hash; /* of id (hash.h) */
} dmesh_host_t;

/* Pure: the identity of the host named name whose kernel has boot id boot
 * ("" where the system has none). */
void dmesh_host_make(const char *name, const char *boot, dmesh_host_t *h);

/* Local: this process's host (MPI_Get_processor_name, and
 * /proc/sys/kernel/random/boot_id where it exists, read once). */
int dmesh_host_mine(dmesh_host_t *h);

/* The length of the host name at the start of an id. */
int dmesh_host_name_len(const char *id);

/* One rank's node. */
typedef struct {
    MPI_Comm comm;    /* the node's ranks in the order of comm's ranks; MPI_COMM_NULL on failure */
    int low;          /* the lowest rank of comm on the node */
    int rule;         /* what made it: DMESH_NODE_SHARED (the MPI's split) or _HOST */
    int agreed;       /* the splits succeeded on every rank: comm is there */
    int owned;        /* comm is the caller's to free (dmesh_node_free), not a cache's */
    char detail[256]; /* why, for DMESH_DEBUG, dmesh-info and error details */
} dmesh_node_t;

/* How a node was found: its rule and detail, without its communicator. */
typedef struct {
    int rule; /* DMESH_NODE_SHARED or _HOST */
    char detail[256];
} dmesh_node_how_t;

/* The nodes of one communicator by rule, found once: a communicator's
 * processes never move, so its nodes are those of its first finding. The
 * cache owns the node communicators. Zero bytes are an empty cache. */
typedef struct {
    int known[3]; /* by enum dmesh_node_rule */
    dmesh_node_t node[3];
} dmesh_node_cache_t;

/* Local: free the cached node communicators (before the communicator the
 * cache belongs to). */
void dmesh_node_cache_free(dmesh_node_cache_t *cache);

/* Collective over comm: the caller's node by rule (enum dmesh_node_rule).
 * Every rank takes every step. The splits are agreed over comm with err,
 * the caller's failure so far (dmesh_agree; under rule auto the shared
 * split's outcome rides on the table's allreduce below, and dmesh_agree
 * runs only where a rank failed, to hand every rank its class): when that
 * fails, every rank returns its class and node->agreed is 0.
 * Otherwise node->comm is there on every rank, and a failure of the steps
 * on the node that follow (DMESH_ERR_MPI) is returned for the caller's
 * next agreement to take. Rule auto: beyond the shared split, one
 * MPI_Allreduce of a fixed-size table over comm, which tells whether a
 * host has ranks in two shared splits; only then one MPI_Comm_split by the
 * host hash (agreed), one MPI_Allgather of a fixed-size record among the
 * ranks of that hash and a small MPI_Allreduce on the shared split. Rule
 * host: the split by hash and the allgather, no shared split. A second
 * split among the ranks of one hash only when two host names share it.
 * With cache (NULL: none; the same cache on every rank of comm, made by
 * the same calls), a node found before is taken from it after one
 * dmesh_agree (of err), node->owned 0; a new one goes in with
 * dmesh_node_keep. Free with dmesh_node_free. */
int dmesh_node_find(MPI_Comm comm, int rule, int err, dmesh_node_cache_t *cache,
                    dmesh_node_t *node);

/* Local, after an agreement over comm that every rank found its node (the
 * caller's next one): the cache keeps a node that dmesh_node_find found by
 * rule (node->owned becomes 0). Kept on every rank or none, the cache
 * stays the same on every rank. */
void dmesh_node_keep(dmesh_node_cache_t *cache, int rule, dmesh_node_t *node);

/* Local: free node->comm when the caller owns it. */
void dmesh_node_free(dmesh_node_t *node);

#endif /* DMESH_NODE_FIND_H */
