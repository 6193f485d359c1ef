/* SPDX-License-Identifier: BSD-3-Clause */
/* Copies in memory (dmesh_copies_*): a process's state kept in the memory
 * of other members of a mesh. copies.c holds the objects (the process's
 * named copies, the handles that open them on a mesh, the packing of the
 * registered buffers), copies_xfer.c the collective store and restore,
 * copies_plan.c the pure parts: who holds whose copy, the XOR sets and
 * their parity, and which version a restore can give every member. */
#ifndef DMESH_COPIES_H
#define DMESH_COPIES_H

#include <stddef.h>
#include <stdint.h>

#include <mpi.h>

#include "dmesh.h"

enum { DMESH_COPIES_PARTNER = 0, DMESH_COPIES_XOR = 1 };

/* Where the copies go (a plan's dim): along one dimension of the mesh
 * (dmesh_copies_dim, >= 0), along the flattened mesh (the next member), or
 * by failure domain over the whole mesh (the default where the members span
 * more than one domain). DMESH_COPIES_DIM_DEFAULT: not chosen yet. */
enum { DMESH_COPIES_DIM_FLAT = -1, DMESH_COPIES_DIM_DEFAULT = -2, DMESH_COPIES_DIM_DOMAINS = -3 };

/* ---- pure: copies_place.c (placement) and copies_plan.c (restore) ------- */

/* Where the copies of a mesh's members go: the members in row-major order
 * of the mesh's shape (flat index). Made by dmesh_copies_plan_make, which
 * fills the tables; freed by dmesh_copies_plan_free. */
typedef struct {
    int ndims, shape[DMESH_MAX_DIMS];
    int n;               /* members */
    int dim;             /* >= 0 or DMESH_COPIES_DIM_* */
    int scheme;          /* DMESH_COPIES_PARTNER or _XOR */
    int k;               /* XOR set size asked for */
    int *holder, *owner; /* partner: who holds r's copy (r: nobody), whose r holds */
    int *set_first;      /* xor: where r's set starts in sets[] */
    int *set_size;       /* xor: its members */
    int *set_pos;        /* xor: r's place in it */
    int *sets;           /* xor: the members, set after set, each ascending */
} dmesh_copies_plan_t;

/* The tables of p (ndims, shape, n, dim, scheme and k set) for members in
 * failure domains domain[] (n values, equal values one domain; NULL: one
 * domain). DMESH_COPIES_DIM_DOMAINS places every copy (partner), every
 * set member (xor), in another domain than its owner wherever the domains
 * allow it: SCR's rule, the members ordered by domain and each copy held
 * by the member as many places further as the largest domain has members
 * (so no domain of at most half the members holds its own copies); sets
 * dealt over that order so that no set has two members of a domain when
 * every domain has at most as many members as there are sets.
 * DMESH_ERR_NOMEM. */
int dmesh_copies_plan_make(dmesh_copies_plan_t *p, const uint64_t domain[]);
void dmesh_copies_plan_free(dmesh_copies_plan_t *p);

/* The default placement for members in domain[]: DMESH_COPIES_DIM_DOMAINS
 * when they span more than one domain, else DMESH_COPIES_DIM_FLAT. */
int dmesh_copies_pick_dim(int n, const uint64_t domain[]);

/* Partner: the member holding r's copy (r itself on a plan of one member),
 * and the member whose copy r holds. */
static inline int dmesh_copies_holder(const dmesh_copies_plan_t *p, int r)
{
    return p->holder[r];
}
static inline int dmesh_copies_owner(const dmesh_copies_plan_t *p, int r)
{
    return p->owner[r];
}

/* XOR: r's set as members (*members points into p), *m of them, and r's
 * place in it. */
void dmesh_copies_set(const dmesh_copies_plan_t *p, int r, const int **members, int *m, int *pos);
#define DMESH_COPIES_MAX_GROUP 512 /* dmesh_copies_group's bound */

/* What a member's copies survive (dmesh.h DMESH_COPIES_SURVIVES_*): the
 * loss of its failure domain when no other holder of them (its partner,
 * the other members of its set) shares its domain. */
int dmesh_copies_survives(const dmesh_copies_plan_t *p, const uint64_t domain[], int r);

/* XOR: the chunk of member j that the parity held by member i covers, in a
 * set of m (i != j): a bijection of the others onto 0 .. m - 2 for each j. */
static inline int dmesh_copies_chunk(int i, int j, int m)
{
    return (i - j - 1 + m) % m;
}

/* XOR: the chunk size (a multiple of 8 bytes) for the longest copy of a set
 * of m members. */
size_t dmesh_copies_chunk_size(size_t longest, int m);

/* XOR: the contribution of member me (its copy of len bytes, chunks of c)
 * to parity block i of a set of m (c bytes into out): its chunk for i, or
 * zeros for i == me. */
void dmesh_copies_contribution(const char *copy, size_t len, size_t c, int me, int i, int m,
                               char *out);

/* Owners. Every process's copies carry its identity (nonzero): made at its
 * first open from a number it drew, or taken over from its predecessor
 * (the process that held its place, table[r], at the last open) when that
 * identity is no live member's. A held copy is used only for the identity
 * it was made for, a parity only for the set (its members' identities in
 * order, dmesh_copies_set_sign) it was made for.
 *
 * dmesh_copies_adopt: ids[] (n; 0: none yet) completed, from table (tn
 * entries, NULL: none) or drawn[] (n, nonzero); born[r] set where r drew
 * its own (no predecessor). DMESH_ERR_NOMEM. */
int dmesh_copies_adopt(int n, uint64_t ids[], const uint64_t drawn[], const uint64_t *table, int tn,
                       int born[]);

/* XOR: the sign of r's set: its members' identities in order. */
uint64_t dmesh_copies_set_sign(const dmesh_copies_plan_t *p, const uint64_t ids[], int r);

/* What each member holds, as a restore gathers it. */
typedef struct {
    int64_t own;       /* version of its own copy, DMESH_COPIES_NONE */
    int64_t held;      /* partner: version of the copy it holds; xor: of its parity */
    int64_t own_len;   /* bytes of its own copy */
    int64_t held_len;  /* partner: bytes of the copy it holds; xor: the chunk size */
    uint64_t id;       /* its identity */
    uint64_t held_for; /* partner: the identity of the copy's owner; xor: its set's sign */
    int64_t born;      /* no predecessor and nothing stored: nothing to give back */
} dmesh_copies_record_t;

enum {
    DMESH_COPIES_SRC_SELF = 0, /* its own copy */
    DMESH_COPIES_SRC_HOLDER,   /* partner: a copy another member keeps for it */
    DMESH_COPIES_SRC_PARITY,   /* xor: rebuilt from its set */
    DMESH_COPIES_SRC_LOST,
    DMESH_COPIES_SRC_NONE /* no predecessor: nothing to give back, buffers untouched */
};

/* The restore of the n members of p holding rec: *version, the newest that
 * every member with a predecessor can get back (DMESH_COPIES_NONE when none
 * stored any); src[r] how member r gets it; from[r] (partner, src HOLDER)
 * the member that sends it; refresh[r]: partner: r's holder must receive
 * r's copy again; xor: r's set computes its parity again.
 * DMESH_ERR_DATA_LOST when some member can get back no version that the
 * others can (src[] then marks the members without the newest one LOST);
 * DMESH_ERR_NOMEM. */
int dmesh_copies_plan_restore(const dmesh_copies_plan_t *p, const dmesh_copies_record_t rec[],
                              int64_t *version, int src[], int from[], int refresh[]);

/* ---- objects: copies.c -------------------------------------------------- */

typedef struct {
    int id;
    void *buf;
    MPI_Count count; /* elements; a sized buffer's room */
    MPI_Datatype type;
    MPI_Count *sized; /* dmesh_copies_add_sized: the elements it holds now; NULL */
    int contiguous;
    int device; /* device memory (a "cuda" mesh's copies): copied with cudaMemcpy */
} dmesh_copies_buf_t;

/* One stored version as this process keeps it. */
typedef struct {
    int64_t version; /* DMESH_COPIES_NONE: nothing */
    char *own;       /* this process's copy (copies.c's packed form) */
    size_t own_len;
    char *held;      /* partner: the copy held for its owner; xor: parity */
    size_t held_len; /* partner: bytes; xor: the chunk size */
    int64_t held_version;
    uint64_t held_for; /* partner: the identity of held's owner; xor: its set's sign */
} dmesh_copies_slot_t;

/* A process's copies of one name (kept by the process). */
typedef struct dmesh_copies_data {
    char name[DMESH_MAX_NAME];
    dmesh_copies_buf_t *bufs; /* ascending ids */
    int nbufs, capbufs;
    dmesh_copies_slot_t slot;
    int dim, scheme, k; /* the plan's, dim as asked (DMESH_COPIES_DIM_DEFAULT) */
    uint64_t id;        /* the owner's identity (0: none yet) */
    int born;           /* id drawn here: no predecessor */
    uint64_t *table;    /* the members' identities at the last open */
    int table_n;
    struct dmesh_copies_s *open; /* the handle that has them */
    struct dmesh_copies_data *next;
} dmesh_copies_data_t;

struct dmesh_copies_s {
    uint64_t magic;
    dmesh_copies_data_t *d; /* NULL once opened again elsewhere */
    MPI_Comm comm;          /* the members, by flat index; MPI_COMM_NULL outside */
    MPI_Comm set;           /* xor: this member's set */
    MPI_Comm raise;         /* MPI_COMM_SELF's duplicate with the handler of the
                               communicator the mesh was made from: failures
                               are raised there */
    dmesh_copies_plan_t plan;
    uint64_t *ids;        /* the members' identities */
    uint64_t *domain;     /* the members' failure domains */
    int cuda;             /* the mesh is a "cuda" one: buffers may be device memory */
    int me;               /* flat index */
    int *ranks;           /* the members as ranks of the mesh's communicator */
    const void *universe; /* of the mesh opened on (compared, never read) */
    struct dmesh_copies_s *next_live;
};

/* The handle h checked (a freed or foreign one is DMESH_ERR_ARG, found
 * without reading it), with its copies; fn: the call. */
int dmesh_copies_get(dmesh_copies_t h, const char *fn, struct dmesh_copies_s **c);

/* Where the entry points raise a failure of a call on h: its private
 * communicator with the user's handler, MPI_COMM_NULL (MPI_COMM_SELF) for a
 * handle that is not valid. */
MPI_Comm dmesh_copies_raise_comm(dmesh_copies_t h);

/* Pack the registered buffers (with their ids and sizes) into a new
 * malloc'd copy; *len its bytes. */
int dmesh_copies_pack(dmesh_copies_data_t *d, int64_t version, char **copy, size_t *len);

/* DMESH_ERR_MISMATCH unless copy (of len bytes at least, maybe padded)
 * holds the registered ids and sizes; *len_out: its own length. */
int dmesh_copies_check(const dmesh_copies_data_t *d, const char *copy, size_t len, size_t *len_out);

/* Copy a checked copy into the registered buffers (a copy made by
 * dmesh_copies_pack from them). */
int dmesh_copies_unpack(const dmesh_copies_data_t *d, const char *copy);

/* Replace the slot by a new one (the old one freed). */
void dmesh_copies_slot_set(dmesh_copies_slot_t *s, const dmesh_copies_slot_t *n);

/* The copies' memory (copies_mem.c). n bytes for a copy (NULL when there is
 * no memory); large ones aligned to and advised for huge pages (first touch
 * of fresh memory costs a page fault per page, which dominated a new
 * process's restore), and taken from the spares a version left when one has
 * the size. */
char *dmesh_copies_alloc(size_t n);

/* Give back p (from dmesh_copies_alloc, or NULL): a large one becomes a spare,
 * kept mapped (never handed to the kernel: safe for RDMA writes), the spares
 * kept within the large buffers in use; else it is freed. */
void dmesh_copies_release(char *p);

/* The bytes of the spares. */
size_t dmesh_copies_spare_bytes(void);

/* Device memory (copies_device.c with CUDA, copies_device_none.c without):
 * whether buf is device (or managed) memory, and a copy between device and
 * host memory (DMESH_ERR_CUDA, fn in the detail). */
int dmesh_copies_device_of(const void *buf, int *device);
int dmesh_copies_device_copy(void *dst, const void *src, size_t n, const char *fn);

/* The device's work all done (cudaDeviceSynchronize): before a store's
 * copies from device memory, after a restore's copies to it
 * (DMESH_ERR_CUDA, fn in the detail). */
int dmesh_copies_device_sync(const char *fn);

void dmesh_copies_slot_free(dmesh_copies_slot_t *s);

#endif /* DMESH_COPIES_H */
