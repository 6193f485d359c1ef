/* SPDX-License-Identifier: BSD-3-Clause */
/* Soft checks and the program frame shared by the MPI test programs of
 * test/gpu.mk (test_nccl_pairing, test_topo_bind, test_gpu_mesh). They link
 * only the parts of lib/ they test (lib/error.c at least), so the helpers of
 * mesh_testutil.h, which need the whole mesh API, do not fit them.
 *
 * Checks are "soft": a failed check prints the rank, file, line, what failed
 * and dmesh_last_error() to stderr and counts, and the test goes on, so that
 * a failing rank never leaves the others waiting in a collective call. A
 * test (GT_TEST) fails through Check at its end, after a barrier, when any
 * of its checks failed on that rank. */
#ifndef DMESH_GPU_TESTUTIL_H
#define DMESH_GPU_TESTUTIL_H

#include <check.h>
#include <mpi.h>

extern int world_rank;  /* rank in MPI_COMM_WORLD */
extern int world_size;  /* size of MPI_COMM_WORLD */
extern int gt_failures; /* failed checks of the current test on this rank */

/* Report a failed check (file:line, the message, dmesh_last_error()). */
void gt_fail(const char *file, int line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* dmesh_last_error() contains part. */
void gt_check_msg(const char *file, int line, const char *part);
/* Every rank of MPI_COMM_WORLD passed the same value (collective). */
void gt_check_same(const char *file, int line, int value);

#define CHECK(c)                                                                                   \
    do {                                                                                           \
        if (!(c))                                                                                  \
            gt_fail(__FILE__, __LINE__, "check failed: %s", #c);                                   \
    } while (0)
#define CHECK_EQ(a, b)                                                                             \
    do {                                                                                           \
        long long a_ = (long long)(a), b_ = (long long)(b);                                        \
        if (a_ != b_)                                                                              \
            gt_fail(__FILE__, __LINE__, "%s == %s: got %lld, expected %lld", #a, #b, a_, b_);      \
    } while (0)
#define CHECK_MSG(part) gt_check_msg(__FILE__, __LINE__, (part))
#define CHECK_SAME(value) gt_check_same(__FILE__, __LINE__, (value))

/* A Check test with soft checks: fails at its end if any check failed. */
#define GT_TEST(name)                                                                              \
    static void name##_body(void);                                                                 \
    START_TEST(name)                                                                               \
    {                                                                                              \
        gt_failures = 0;                                                                           \
        name##_body();                                                                             \
        MPI_Barrier(MPI_COMM_WORLD);                                                               \
        ck_assert_msg(gt_failures == 0, "%d checks failed on rank %d", gt_failures, world_rank);   \
    }                                                                                              \
    END_TEST                                                                                       \
    static void name##_body(void)

/* MPI_Init, then world_rank and world_size. */
void gt_init(int *argc, char ***argv);
/* The same with MPI_Init_thread(required); returns the level provided. */
int gt_init_thread(int *argc, char ***argv, int required);

/* Run suite s with CK_NOFORK on every rank; rank 0 prints Check's summary.
 * Returns the number of failed tests summed over all ranks (collective over
 * MPI_COMM_WORLD). */
int gt_run_suite(Suite *s);

#endif /* DMESH_GPU_TESTUTIL_H */
