/* SPDX-License-Identifier: BSD-3-Clause */
/* Soft checks and program frame of the test/gpu.mk programs; see
 * gpu_testutil.h. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "dmesh.h"
#include "gpu_testutil.h"

int world_rank, world_size, gt_failures;

void gt_fail(const char *file, int line, const char *fmt, ...)
{
    const char *base = strrchr(file, '/');
    va_list ap;

    fprintf(stderr, "[rank %d] %s:%d: ", world_rank, base ? base + 1 : file, line);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, " (last error: %s)\n", dmesh_last_error());
    gt_failures++;
}

void gt_check_msg(const char *file, int line, const char *part)
{
    if (strstr(dmesh_last_error(), part) == NULL)
        gt_fail(file, line, "detail lacks \"%s\"", part);
}

void gt_check_same(const char *file, int line, int value)
{
    int lo, hi;

    MPI_Allreduce(&value, &lo, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(&value, &hi, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (lo != hi)
        gt_fail(file, line, "ranks disagree: classes from %d to %d", lo, hi);
}

int gt_init_thread(int *argc, char ***argv, int required)
{
    int provided = MPI_THREAD_SINGLE;

    MPI_Init_thread(argc, argv, required, &provided);
    /* dmesh raises its failures on these handlers (fatal by default): here
     * they return, and the classes are checked. */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &world_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &world_size);
    return provided;
}

void gt_init(int *argc, char ***argv)
{
    (void)gt_init_thread(argc, argv, MPI_THREAD_SINGLE);
}

int gt_run_suite(Suite *s)
{
    SRunner *sr = srunner_create(s);
    int failed, total;

    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, world_rank == 0 ? CK_NORMAL : CK_SILENT);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    MPI_Allreduce(&failed, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    return total;
}
