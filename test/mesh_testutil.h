/* SPDX-License-Identifier: BSD-3-Clause */
/* Helpers shared by the MPI test programs of the mesh API (test_mesh*.c).
 *
 * Checks inside a test are "soft": a failed check prints the rank, file, line
 * and values to stderr and the test goes on, so that no rank leaves a test
 * early and leaves the others waiting in a collective call. The test fails
 * (through Check) at its end when any of its checks failed on that rank.
 *
 * A small model of a mesh (mt_model_t) gives the expected groups: a root
 * mesh of shape S over a rank map, each root dimension possibly split into
 * digits (mixed radix, outermost first) by unflatten. A mesh dimension is a
 * list of (root dimension, digit) pairs, varied in lexicographic order. */
#ifndef DMESH_MESH_TESTUTIL_H
#define DMESH_MESH_TESTUTIL_H

#include <string.h>

#include <check.h>
#include <mpi.h>

#include "dmesh.h"

#define MT_MAX_RANKS 1024

extern int mt_rank; /* rank in MPI_COMM_WORLD */
extern int mt_size; /* size of MPI_COMM_WORLD */

/* ---- soft checks -------------------------------------------------------- */

void mt_begin(const char *test);
void mt_end(void);
void mt_fail(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Check rc against the expected class; on an expected failure also check
 * that dmesh_last_error() is not empty. Returns rc. */
int mt_expect_rc(const char *file, int line, const char *call, int rc, int expected);
/* Same class on every rank of comm (collective over comm). */
void mt_expect_same(const char *file, int line, MPI_Comm comm, int value, const char *what);

#define MT_CHECK(cond)                                                                             \
    do {                                                                                           \
        if (!(cond))                                                                               \
            mt_fail(__FILE__, __LINE__, "check failed: %s", #cond);                                \
    } while (0)

#define MT_EQ(a, b)                                                                                \
    do {                                                                                           \
        long long mt_a_ = (long long)(a), mt_b_ = (long long)(b);                                  \
        if (mt_a_ != mt_b_)                                                                        \
            mt_fail(__FILE__, __LINE__, "%s == %s: got %lld, expected %lld", #a, #b, mt_a_,        \
                    mt_b_);                                                                        \
    } while (0)

#define MT_STREQ(a, b)                                                                             \
    do {                                                                                           \
        const char *mt_sa_ = (a), *mt_sb_ = (b);                                                   \
        if (mt_sa_ == NULL || mt_sb_ == NULL || strcmp(mt_sa_, mt_sb_) != 0)                       \
            mt_fail(__FILE__, __LINE__, "%s == %s: got \"%s\", expected \"%s\"", #a, #b,           \
                    mt_sa_ ? mt_sa_ : "(null)", mt_sb_ ? mt_sb_ : "(null)");                       \
    } while (0)

#define MT_RC(call, expected) mt_expect_rc(__FILE__, __LINE__, #call, (call), (expected))
#define MT_OK(call) MT_RC(call, DMESH_SUCCESS)
#define MT_SAME(comm, value) mt_expect_same(__FILE__, __LINE__, (comm), (value), #value)

/* A creation call expected to fail with class `expected` on every rank of
 * comm: checks the class, the detail message, that the output handle stays
 * DMESH_NULL, and that all ranks agree. Frees the handle if it was made. */
#define MT_FAILS_CREATE(comm, call, expected, handle)                                              \
    do {                                                                                           \
        (handle) = DMESH_NULL;                                                                     \
        int mt_rc_ = MT_RC(call, expected);                                                        \
        if (mt_rc_ != DMESH_SUCCESS && (handle) != DMESH_NULL)                                     \
            mt_fail(__FILE__, __LINE__, "output handle written by a failing call: %s", #call);     \
        MT_SAME(comm, mt_rc_);                                                                     \
        if (mt_rc_ == DMESH_SUCCESS)                                                               \
            dmesh_free(&(handle));                                                                 \
    } while (0)

/* A Check test whose body uses the soft checks above. */
#define MT_TEST(name)                                                                              \
    static void name##_body(void);                                                                 \
    START_TEST(name)                                                                               \
    {                                                                                              \
        mt_begin(#name);                                                                           \
        name##_body();                                                                             \
        mt_end();                                                                                  \
    }                                                                                              \
    END_TEST                                                                                       \
    static void name##_body(void)

/* ---- program frame ------------------------------------------------------ */

/* Run suite s with CK_NOFORK on every rank; rank 0 prints Check's summary,
 * other ranks print their own failures. Returns the number of failed tests
 * summed over all ranks (collective over MPI_COMM_WORLD). */
int mt_run_suite(Suite *s);

/* The first 8 ranks of the world as a communicator of 8 (a duplicate of the
 * world when it has 8 ranks). Returns 1 on those ranks, 0 elsewhere and when
 * the world has fewer than 8 ranks (comm is then MPI_COMM_NULL). Collective
 * over MPI_COMM_WORLD. Free with MPI_Comm_free when it returned 1. */
int mt_comm8(MPI_Comm *comm);

/* 1 when every rank of comm has rank 0's processor name
 * (MPI_Get_processor_name), else 0. Collective over comm. */
int mt_same_host(MPI_Comm comm);

/* 1 when dmesh puts every rank of MPI_COMM_WORLD on one node, as the test
 * sees it for itself: the MPI's MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)
 * holds them all, or they share one processor name (a split finer than the
 * host, as MPICH 5 built with the ch4:ucx device makes one per process, is
 * replaced by the host; DMESH_NODE=shared or host takes one of the two
 * alone), else 0 after rank 0 printed that case \p name is skipped and
 * why. Collective over MPI_COMM_WORLD. */
int mt_one_node(const char *name);

/* The nodes of MPI_COMM_WORLD as dmesh must find them under the rule that
 * DMESH_NODE names (auto when unset), worked out from what the MPI itself
 * reports (the shared split, the processor names) by the rule of
 * doc/user-guide.md ("How nodes are found"): lows[r] is the lowest world
 * rank on r's node. Returns the number of nodes; *per is the ranks per node
 * when every node holds as many, else 0. Collective over MPI_COMM_WORLD. */
int mt_node_lows(int lows[], int *per);

/* The world ranks listed by (node, rank), nodes by their lowest rank: the
 * rank map of dmesh_order=node over all ranks, from lows (mt_node_lows). */
void mt_node_order(const int lows[], int order[]);

/* An info object with one key set (free with MPI_Info_free). */
MPI_Info mt_info1(const char *key, const char *value);
MPI_Info mt_info2(const char *k1, const char *v1, const char *k2, const char *v2);

/* Ordered factorisations of n into exactly k factors (each >= 1); returns
 * the count (at most max), factors in out[i*k .. i*k+k-1]. */
int mt_factorisations(int n, int k, int max, int *out);

/* Cache figures of the universe of mesh (zero on failure, after a check). */
dmesh_cache_info_t mt_cache(dmesh_t mesh);

/* ---- model -------------------------------------------------------------- */

typedef struct {
    int ndims;                               /* root dimensions */
    int shape[DMESH_MAX_DIMS];               /* root shape */
    int ndig[DMESH_MAX_DIMS];                /* digits of each root dimension */
    int dig[DMESH_MAX_DIMS][DMESH_MAX_DIMS]; /* digit sizes, outermost first */
    int nranks;                              /* product(shape) */
    int ranks[MT_MAX_RANKS];                 /* rank map: ranks of the root comm */
} mt_model_t;

typedef struct {
    int n;                     /* number of (root dim, digit) pairs */
    int dim[DMESH_MAX_DIMS];   /* root dimension */
    int digit[DMESH_MAX_DIMS]; /* digit of that dimension */
} mt_axis_t;

/* Root mesh of shape over ranks (NULL: identity 0..product-1). */
void mt_model_init(mt_model_t *m, int ndims, const int shape[], const int ranks[]);
/* Split root dimension d into n digits of the given sizes (unflatten). */
void mt_model_split(mt_model_t *m, int d, int n, const int sizes[]);
/* Axis of the whole root dimension d (all its digits). */
mt_axis_t mt_axis_dim(const mt_model_t *m, int d);
/* Axis of one digit of root dimension d. */
mt_axis_t mt_axis_digit(int d, int k);
/* Concatenation of two axes (flatten). */
mt_axis_t mt_axis_join(mt_axis_t a, mt_axis_t b);
/* Size of an axis. */
int mt_axis_size(const mt_model_t *m, const mt_axis_t *a);
/* Index of rank in the rank map, -1 if absent. */
int mt_model_find(const mt_model_t *m, int rank);
/* Ranks met varying the given axes (concatenated) from rank map index idx. */
int mt_model_group(const mt_model_t *m, int idx, int naxes, const mt_axis_t axes[], int out[]);

/* Check everything the API says about mesh against the model, on the real
 * communicators: shape, size, names (names NULL: unnamed), coordinate,
 * local ranks, group ranks, dmesh_get_comm membership and order (group
 * translation to ref, the root communicator) and an allreduce on each dim
 * communicator, the mesh tensor, and the non-member behaviour. Collective
 * over the members of the mesh (every member must call it). */
void mt_check_mesh_at(const char *file, int line, dmesh_t mesh, MPI_Comm ref, const mt_model_t *m,
                      int naxes, const mt_axis_t axes[], const char *const names[]);
#define mt_check_mesh(...) mt_check_mesh_at(__FILE__, __LINE__, __VA_ARGS__)

/* Members of the caller's group along dim of mesh, read from the real
 * communicator and translated to ranks of ref. Returns the count, -1 when
 * dmesh_get_comm fails or gives MPI_COMM_NULL. */
int mt_comm_members(dmesh_t mesh, int dim, MPI_Comm ref, int out[]);
/* The same for any communicator (MPI_COMM_NULL: -1). */
int mt_members_in(MPI_Comm comm, MPI_Comm ref, int out[]);

/* 1 if the two int arrays are equal. */
int mt_same_ints(const int *a, const int *b, int n);

/* The main program of a suite: MPI_Init, mt_rank / mt_size, mt_run_suite,
 * MPI_Finalize; returns the exit status (0: every test passed everywhere). */
int mt_main(int *argc, char ***argv, Suite *(*make_suite)(void));

#endif /* DMESH_MESH_TESTUTIL_H */
