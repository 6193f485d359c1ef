/* SPDX-License-Identifier: BSD-3-Clause */
/* Finding the node of each rank (node_find.h). */
#include "config.h"

#include "api_impl.h"

#include <limits.h>
#include <stdint.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agree.h"
#include "dmesh.h"
#include "error.h"
#include "fault.h"
#include "ulfm.h"
#include "hash.h"
#include "node_find.h"
#include "options.h"

static char boot_id[48];
static pthread_once_t boot_once = PTHREAD_ONCE_INIT;

/* The kernel's boot id tells two machines (or two boots) with one name
 * apart, as NCCL's host hash does; containers on one host share it. */
static void boot_read(void)
{
    FILE *f = fopen("/proc/sys/kernel/random/boot_id", "r");

    if (f == NULL)
        return;
    if (fgets(boot_id, sizeof(boot_id), f) == NULL)
        boot_id[0] = '\0';
    boot_id[strcspn(boot_id, "\n")] = '\0';
    fclose(f);
}

void dmesh_host_make(const char *name, const char *boot, dmesh_host_t *h)
{
    memset(h, 0, sizeof(*h));
    snprintf(h->id, sizeof(h->id), "%.*s\n%.47s", MPI_MAX_PROCESSOR_NAME, name, boot);
    h->hash = dmesh_hash(DMESH_HASH_INIT, h->id, strlen(h->id));
}

int dmesh_host_mine(dmesh_host_t *h)
{
    char name[MPI_MAX_PROCESSOR_NAME + 1];
    int len = 0, rc;

    memset(name, 0, sizeof(name));
    rc = MPI_Get_processor_name(name, &len);
    if (rc != MPI_SUCCESS) {
        dmesh_host_make("", "", h);
        return dmesh_error_mpi(rc, "host identity: MPI_Get_processor_name");
    }
    pthread_once(&boot_once, boot_read);
    dmesh_host_make(name, boot_id, h);
    return DMESH_SUCCESS;
}

int dmesh_host_name_len(const char *id)
{
    return (int)strcspn(id, "\n");
}

/* What each rank of one host hash tells the others. */
typedef struct {
    int rank;       /* in comm */
    int shared_low; /* the lowest rank of its shared split (its own under dmesh_node=host) */
    char id[DMESH_HOST_ID_LEN];
} host_rec_t;

/* One finding in progress. */
typedef struct {
    int rule, rank, err;
    MPI_Comm shared, hashed, host; /* host: hashed, or a split of it (two names, one hash) */
    int shared_low, shared_size;
    dmesh_host_t me;
    host_rec_t *all; /* the records of the ranks of the caller's hash */
    int nall;
    /* from those records, of the ranks of the caller's host */
    int host_low, host_size, in_my_split, collision, finer;
} find_t;

static void keep_err(find_t *f, int err)
{
    if (f->err == DMESH_SUCCESS)
        f->err = err;
}

/* Collective over comm: the MPI's shared split; err with its failure. */
static int split_shared(MPI_Comm comm, int err, find_t *f)
{
    int rc = MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &f->shared);

    if (rc != MPI_SUCCESS && err == DMESH_SUCCESS)
        err = dmesh_error_mpi(rc, "nodes: MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)");
    if (rc != MPI_SUCCESS)
        f->shared = MPI_COMM_NULL;
    return err;
}

/* Collective over comm: the split by host hash, with room for the records
 * of the ranks of the hash, agreed with err. */
static int split_host(MPI_Comm comm, int err, find_t *f)
{
    int e = dmesh_host_mine(&f->me), rc;

    if (err == DMESH_SUCCESS)
        err = e;
    rc = MPI_Comm_split(comm, (int)(f->me.hash & INT_MAX), f->rank, &f->hashed);
    if (rc != MPI_SUCCESS && err == DMESH_SUCCESS)
        err = dmesh_error_mpi(rc, "nodes: MPI_Comm_split by host identity");
    if (rc == MPI_SUCCESS)
        MPI_Comm_size(f->hashed, &f->nall);
    if (rc == MPI_SUCCESS &&
        (f->all = DMESH_FAULT_MALLOC((size_t)f->nall * sizeof(*f->all))) == NULL &&
        err == DMESH_SUCCESS)
        err = dmesh_error_set(DMESH_ERR_NOMEM, "nodes: out of memory");
    return dmesh_agree_outcome(comm, err, "nodes (the split by host)");
}

/* Collective over comm (rule auto): whether some host may have ranks in
 * two shared splits, from one MPI_Allreduce of a fixed table: for each
 * bucket of host hashes, the lowest and the highest shared split of its
 * ranks; its last entry says whether every rank got this far without a
 * failure (err): where one did not, *failed is set on every rank alike.
 * No bucket with two splits: no host has two (the common case of a few
 * hosts, one collective). Two hosts in one bucket say "maybe" where no
 * host has two (likely from about 20 hosts on): spread_exact tells then.
 * The same answer on every rank. */
#define SPREAD_BUCKETS 256
static int spread_hosts(MPI_Comm comm, int err, find_t *f, int *failed)
{
    int in[2 * SPREAD_BUCKETS + 1], out[2 * SPREAD_BUCKETS + 1], b, rc;

    if (dmesh_host_mine(&f->me) != DMESH_SUCCESS)
        f->me.hash = 0; /* the full check, which fails the same way, reports it */
    b = (int)(f->me.hash % SPREAD_BUCKETS);
    for (int i = 0; i < 2 * SPREAD_BUCKETS; i++)
        in[i] = INT_MAX;
    in[2 * b] = f->shared_low;
    in[2 * b + 1] = -f->shared_low;
    in[2 * SPREAD_BUCKETS] = err == DMESH_SUCCESS;
    rc = MPI_Allreduce(in, out, 2 * SPREAD_BUCKETS + 1, MPI_INT, MPI_MIN, comm);
    if (rc != MPI_SUCCESS) { /* an MPI that fails here fails dmesh_agree too */
        keep_err(f, dmesh_error_mpi(rc, "nodes: MPI_Allreduce of the hosts' splits"));
        *failed = 1;
        return 1;
    }
    *failed = out[2 * SPREAD_BUCKETS] == 0;
    for (int i = 0; i < SPREAD_BUCKETS; i++)
        if (out[2 * i] != INT_MAX && out[2 * i] != -out[2 * i + 1])
            return 1;
    return 0;
}

/* Collective over the split: its host hash (f->me, as spread_hosts found
 * it), 0 where its ranks disagree (several hosts in one split) or a rank's
 * is unknown; -1 with f->err set where the MPI failed. */
static int split_host_hash(find_t *f, uint64_t *hash)
{
    uint64_t in[2], out[2];
    int rc;

    *hash = 0;
    in[0] = f->me.hash;
    in[1] = ~f->me.hash;
    rc = f->shared == MPI_COMM_NULL ? MPI_ERR_COMM
                                    : MPI_Allreduce(in, out, 2, MPI_UINT64_T, MPI_MIN, f->shared);
    if (rc != MPI_SUCCESS) {
        keep_err(f, dmesh_error_mpi(rc, "nodes: MPI_Allreduce of the host on the shared split"));
        return -1;
    }
    *hash = out[0] == ~out[1] ? out[0] : 0;
    return 0;
}

static int cmp_hash(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

    return (x > y) - (x < y);
}

/* Whether two of the n hashes are equal (h sorted in place). */
static int any_twice(uint64_t h[], size_t n)
{
    qsort(h, n, sizeof(*h), cmp_hash);
    for (size_t i = 1; i < n; i++)
        if (h[i] == h[i - 1])
            return 1;
    return 0;
}

/* Collective over comm (rule auto), where spread_hosts said "maybe":
 * whether some host has ranks in two shared splits, exactly, at O(splits)
 * per rank and no exchange of size O(world) (before it, the check by host,
 * a split of the whole communicator, ran on every "maybe", almost always
 * past some 20 hosts).
 * Each split's ranks agree on its host (the lowest and highest host hash,
 * on the split); the splits' leaders (their lowest ranks) number
 * themselves (MPI_Exscan); allreduces of SPLITS_CHUNK hashes at a time,
 * each leader's at its number, give every rank the host of every split,
 * the first with the number of splits, whether a rank failed and whether
 * a split has several hosts. Up to SPLITS_CHUNK splits every rank sees
 * the whole table and finds a host hash that two splits share; past it
 * each rank counts its own split's hash and one more allreduce tells all.
 * A split of several hosts (a virtual node), an unknown host or a hash
 * that two splits share answers 1: the full check by host, exact whatever
 * the layout, runs then. *failed: some rank failed (the same on every
 * rank, as is the answer). */
#ifndef DMESH_NODE_SPLITS_CHUNK /* a test build sets 1: test/comm.mk's test_node_find_chunk */
#define DMESH_NODE_SPLITS_CHUNK 512
#endif
#define SPLITS_CHUNK DMESH_NODE_SPLITS_CHUNK
static int spread_exact(MPI_Comm comm, int err, find_t *f, int *failed)
{
    uint64_t hash = 0, buf[SPLITS_CHUNK + 3], n = 0;
    long long one = f->rank == f->shared_low, at = 0;
    int ok = split_host_hash(f, &hash) == 0 && err == DMESH_SUCCESS, rc, mine = 0;

    rc = MPI_Exscan(&one, &at, 1, MPI_LONG_LONG, MPI_SUM, comm);
    if (rc != MPI_SUCCESS)
        keep_err(f, dmesh_error_mpi(rc, "nodes: MPI_Exscan of the splits"));
    ok &= rc == MPI_SUCCESS;
    at = f->rank == 0 ? 0 : at; /* MPI_Exscan leaves rank 0's undefined */
    for (uint64_t first = 0; first == 0 || first < n; first += SPLITS_CHUNK) {
        uint64_t k;
        memset(buf, 0, sizeof(buf));
        if (one && ok && (uint64_t)at >= first && (uint64_t)at < first + SPLITS_CHUNK)
            buf[at - (long long)first] = hash;
        buf[SPLITS_CHUNK] = one && ok ? (uint64_t)at + 1 : 0; /* the splits */
        buf[SPLITS_CHUNK + 1] = !ok;
        buf[SPLITS_CHUNK + 2] = hash == 0;
        rc = MPI_Allreduce(MPI_IN_PLACE, buf, SPLITS_CHUNK + 3, MPI_UINT64_T, MPI_MAX, comm);
        if (rc != MPI_SUCCESS) { /* an MPI that fails here fails dmesh_agree too */
            keep_err(f, dmesh_error_mpi(rc, "nodes: MPI_Allreduce of the splits' hosts"));
            *failed = 1;
            return 1;
        }
        if (first == 0 && ((*failed = buf[SPLITS_CHUNK + 1] != 0) || buf[SPLITS_CHUNK + 2] != 0))
            return 1;
        n = first == 0 ? buf[SPLITS_CHUNK] : n;
        k = n - first < SPLITS_CHUNK ? n - first : SPLITS_CHUNK;
        if (n <= SPLITS_CHUNK) /* the whole table here: the same answer on every rank */
            return any_twice(buf, (size_t)k);
        for (uint64_t i = 0; i < k; i++)
            mine += buf[i] == hash;
    }
    mine = mine > 1;
    rc = MPI_Allreduce(MPI_IN_PLACE, &mine, 1, MPI_INT, MPI_MAX, comm);
    if (rc != MPI_SUCCESS) {
        keep_err(f, dmesh_error_mpi(rc, "nodes: MPI_Allreduce of the splits' hosts"));
        *failed = 1;
        return 1;
    }
    return mine;
}

/* Local: the facts of the caller's host from the records of its hash. */
static void find_host_facts(find_t *f)
{
    f->host_low = f->rank;
    for (int i = 0; i < f->nall; i++) {
        const host_rec_t *r = &f->all[i];
        if (strcmp(r->id, f->me.id) != 0) {
            f->collision = 1;
            continue;
        }
        f->host_size++;
        f->in_my_split += r->shared_low == f->shared_low;
        f->finer |= r->shared_low != f->shared_low; /* the same on every rank of the host */
        if (r->rank < f->host_low)
            f->host_low = r->rank;
    }
    if (f->rule != DMESH_NODE_AUTO)
        f->finer = 0;
}

/* Collective over the ranks of the caller's hash: their records, and the
 * host among them (a second split where two names share the hash). */
static void find_host(find_t *f)
{
    host_rec_t me;
    int rc;

    memset(&me, 0, sizeof(me));
    me.rank = f->rank;
    me.shared_low = f->shared_low;
    memcpy(me.id, f->me.id, sizeof(me.id));
    rc =
        MPI_Allgather(&me, (int)sizeof(me), MPI_BYTE, f->all, (int)sizeof(me), MPI_BYTE, f->hashed);
    if (rc != MPI_SUCCESS)
        keep_err(f, dmesh_error_mpi(rc, "nodes: MPI_Allgather of the host identities"));
    else
        find_host_facts(f);
    if (!f->collision) {
        f->host = f->hashed;
        f->hashed = MPI_COMM_NULL;
        return;
    }
    /* every rank of the hash saw the same records: all of them split */
    rc = MPI_Comm_split(f->hashed, f->host_low, f->rank, &f->host);
    if (rc != MPI_SUCCESS) {
        keep_err(f, dmesh_error_mpi(rc, "nodes: MPI_Comm_split of a host hash by name"));
        f->host = f->hashed;
        f->hashed = MPI_COMM_NULL;
    }
}

/* Local: the lowest rank of comm in the shared split, its rank 0 (one key
 * for all: in the order of comm's ranks), by the groups. */
static int shared_low(MPI_Comm comm, find_t *f)
{
    MPI_Group s = MPI_GROUP_NULL, c = MPI_GROUP_NULL;
    int zero = 0, low = f->rank, rc = MPI_Comm_group(f->shared, &s);

    if (rc == MPI_SUCCESS)
        rc = MPI_Comm_group(comm, &c);
    if (rc == MPI_SUCCESS)
        rc = MPI_Group_translate_ranks(s, 1, &zero, c, &low);
    if (rc != MPI_SUCCESS)
        keep_err(f, dmesh_error_mpi(rc, "nodes: the lowest rank of the shared-memory split"));
    if (c != MPI_GROUP_NULL)
        MPI_Group_free(&c);
    if (s != MPI_GROUP_NULL)
        MPI_Group_free(&s);
    return low;
}

/* Collective over the shared split: whether one of its hosts saw it finer
 * than the host (op MPI_MAX). */
static int any_on_shared(find_t *f, int value)
{
    int out = value, rc = MPI_Allreduce(&value, &out, 1, MPI_INT, MPI_MAX, f->shared);

    if (rc != MPI_SUCCESS)
        keep_err(f, dmesh_error_mpi(rc, "nodes: MPI_Allreduce on the shared-memory split"));
    return out;
}

static void find_detail(const find_t *f, int use_host, dmesh_node_t *node)
{
    int k = dmesh_host_name_len(f->me.id);
    const char *name = f->me.id;

    if (f->rule == DMESH_NODE_SHARED)
        snprintf(node->detail, sizeof(node->detail),
                 "the MPI's shared-memory split (dmesh_node=shared): %d rank(s) here",
                 f->shared_size);
    else if (f->rule == DMESH_NODE_HOST)
        snprintf(node->detail, sizeof(node->detail),
                 "host identity (dmesh_node=host): %d rank(s) on host %.*s", f->host_size, k, name);
    else if (use_host && f->finer)
        snprintf(node->detail, sizeof(node->detail),
                 "host identity: the MPI's shared-memory split is finer than host %.*s (its %d "
                 "ranks in more than one split, %d in this rank's): dmesh_node=shared keeps "
                 "the split",
                 k, name, f->host_size, f->in_my_split);
    else if (use_host)
        snprintf(node->detail, sizeof(node->detail),
                 "host identity: the MPI's shared-memory split mixes part of host %.*s with "
                 "another host whose ranks it splits: %d rank(s) on this host",
                 k, name, f->host_size);
    else if (f->host == MPI_COMM_NULL)
        snprintf(node->detail, sizeof(node->detail),
                 "the MPI's shared-memory split, which no host spans with another split: %d "
                 "rank(s)",
                 f->shared_size);
    else if (f->shared_size > f->in_my_split)
        snprintf(node->detail, sizeof(node->detail),
                 "the MPI's shared-memory split: %d ranks of several hosts (a virtual node), "
                 "%d of them on host %.*s",
                 f->shared_size, f->in_my_split, k, name);
    else
        snprintf(node->detail, sizeof(node->detail),
                 "the MPI's shared-memory split, the same as host %.*s: %d rank(s)", k, name,
                 f->shared_size);
}

/* Local: the node the facts choose; the other communicators are freed. */
static void find_choose(find_t *f, dmesh_node_t *node)
{
    int use_host = f->rule == DMESH_NODE_HOST || f->finer;

    /* a split that a finer host crosses is not kept either */
    if (f->rule == DMESH_NODE_AUTO && f->host != MPI_COMM_NULL)
        use_host = any_on_shared(f, f->finer);
    find_detail(f, use_host, node);
    node->rule = use_host ? DMESH_NODE_HOST : DMESH_NODE_SHARED;
    node->low = use_host ? f->host_low : f->shared_low;
    node->comm = use_host ? f->host : f->shared;
    if (use_host)
        f->host = MPI_COMM_NULL;
    else
        f->shared = MPI_COMM_NULL;
}

static void find_free(find_t *f)
{
    free(f->all);
    if (f->host != MPI_COMM_NULL)
        MPI_Comm_free(&f->host);
    if (f->hashed != MPI_COMM_NULL)
        MPI_Comm_free(&f->hashed);
    if (f->shared != MPI_COMM_NULL)
        MPI_Comm_free(&f->shared);
}

/* Collective over comm: the shared split (rules auto and shared), agreed
 * with err: under auto by spread_hosts, whose collectives every rank makes
 * anyway (dmesh_agree then runs only where a rank failed, to give every
 * rank its class and detail); *spread: some host has ranks in two splits,
 * or the check by host must tell. */
static int find_shared(MPI_Comm comm, int err, find_t *f, int *spread)
{
    int failed = 0;

    err = split_shared(comm, err, f);
    if (f->shared != MPI_COMM_NULL) {
        MPI_Comm_size(f->shared, &f->shared_size);
        f->shared_low = shared_low(comm, f);
    }
    if (f->rule == DMESH_NODE_SHARED)
        return dmesh_agree_outcome(comm, err, "nodes (the shared-memory split)");
    *spread = spread_hosts(comm, err, f, &failed);
    if (*spread && !failed) /* the same on every rank */
        *spread = spread_exact(comm, err, f, &failed);
    /* failed is the same on every rank, but under fault tolerance, where
     * the table's allreduce can fail on some ranks only (a process died)
     * and leave the others with a table: every rank agrees then, on comm,
     * so that none goes on to the node's communicator while another is in
     * the agreement here */
    if (failed || dmesh_ulfm_enabled(comm))
        return dmesh_agree_outcome(comm, err != DMESH_SUCCESS ? err : f->err,
                                   "nodes (the shared-memory split)");
    return DMESH_SUCCESS;
}

/* Collective over comm: the splits and steps of rule, the first failure in
 * f->err once the splits are agreed. */
static int find_steps(MPI_Comm comm, int err, find_t *f, dmesh_node_t *node)
{
    int spread = 0;

    if (f->rule != DMESH_NODE_HOST && (err = find_shared(comm, err, f, &spread)) != DMESH_SUCCESS)
        return err;
    if ((f->rule == DMESH_NODE_HOST || spread) &&
        (err = split_host(comm, err != DMESH_SUCCESS ? err : f->err, f)) != DMESH_SUCCESS)
        return err;
    node->agreed = 1;
    /* every step below on every rank, whatever failed before it here */
    if (f->hashed != MPI_COMM_NULL)
        find_host(f);
    else
        f->host_size = f->in_my_split = f->shared_size;
    find_choose(f, node);
    return f->err;
}

int dmesh_node_find(MPI_Comm comm, int rule, int err, dmesh_node_cache_t *cache, dmesh_node_t *node)
{
    find_t f;

    memset(node, 0, sizeof(*node));
    node->comm = MPI_COMM_NULL;
    if (cache != NULL && cache->known[rule]) { /* on every rank alike */
        if ((err = dmesh_agree_outcome(comm, err, "nodes")) == DMESH_SUCCESS)
            *node = cache->node[rule];
        return err;
    }
    memset(&f, 0, sizeof(f));
    f.rule = rule;
    f.shared = f.hashed = f.host = MPI_COMM_NULL;
    MPI_Comm_rank(comm, &f.rank);
    f.shared_low = f.host_low = f.rank;
    err = find_steps(comm, err, &f, node);
    find_free(&f);
    node->owned = 1;
    return err;
}

void dmesh_node_keep(dmesh_node_cache_t *cache, int rule, dmesh_node_t *node)
{
    if (cache == NULL || !node->owned || node->comm == MPI_COMM_NULL || cache->known[rule])
        return;
    node->owned = 0;
    cache->node[rule] = *node;
    cache->known[rule] = 1;
}

void dmesh_node_cache_free(dmesh_node_cache_t *cache)
{
    for (int r = 0; r < DMESH_NODE_RULES; r++)
        if (cache->known[r] && cache->node[r].comm != MPI_COMM_NULL)
            MPI_Comm_free(&cache->node[r].comm);
    memset(cache, 0, sizeof(*cache));
}

void dmesh_node_free(dmesh_node_t *node)
{
    if (node->owned && node->comm != MPI_COMM_NULL)
        MPI_Comm_free(&node->comm);
    node->comm = MPI_COMM_NULL;
}
