/* SPDX-License-Identifier: BSD-3-Clause */
/* Error classes, their strings, and the thread-local detail of the last failure. */
#include "config.h"

#include "api_impl.h"

#include <stdarg.h>
#include <stdio.h>

#include "error.h"
#include "ulfm.h"

#define DMESH_DETAIL_LEN 512

static _Thread_local char last_detail[DMESH_DETAIL_LEN];

static const char *const error_strings[DMESH_ERR_LASTCODE] = {
    [DMESH_SUCCESS] = "DMESH_SUCCESS: no error",
    [DMESH_ERR_ARG] = "DMESH_ERR_ARG: invalid argument",
    [DMESH_ERR_SIZE] = "DMESH_ERR_SIZE: invalid size",
    [DMESH_ERR_NAME] = "DMESH_ERR_NAME: invalid dimension name",
    [DMESH_ERR_LAYOUT] = "DMESH_ERR_LAYOUT: invalid layout",
    [DMESH_ERR_MISMATCH] = "DMESH_ERR_MISMATCH: ranks passed different arguments",
    [DMESH_ERR_NOT_MEMBER] = "DMESH_ERR_NOT_MEMBER: calling rank is not in the mesh",
    [DMESH_ERR_NO_DEVICE] = "DMESH_ERR_NO_DEVICE: no usable device",
    [DMESH_ERR_BACKEND] = "DMESH_ERR_BACKEND: backend not available",
    [DMESH_ERR_MPI] = "DMESH_ERR_MPI: MPI call failed",
    [DMESH_ERR_NCCL] = "DMESH_ERR_NCCL: NCCL call failed",
    [DMESH_ERR_CUDA] = "DMESH_ERR_CUDA: CUDA runtime call failed",
    [DMESH_ERR_HWLOC] = "DMESH_ERR_HWLOC: hwloc call failed",
    [DMESH_ERR_NOMEM] = "DMESH_ERR_NOMEM: out of memory",
    [DMESH_ERR_INTERNAL] = "DMESH_ERR_INTERNAL: internal error (a bug in dmesh)",
    [DMESH_ERR_TIMEOUT] = "DMESH_ERR_TIMEOUT: a bounded wait (dmesh_timeout) ran out",
    [DMESH_ERR_PROC_FAILED] = "DMESH_ERR_PROC_FAILED: a process failed or the universe was revoked",
    [DMESH_ERR_UNSUPPORTED] = "DMESH_ERR_UNSUPPORTED: no fault tolerance in this MPI or launch",
};

const char *dmesh_error_string(int err)
{
    if (err < 0 || err >= DMESH_ERR_LASTCODE)
        return "unknown dmesh error class";
    return error_strings[err];
}

const char *dmesh_last_error(void)
{
    return last_detail;
}

int dmesh_error_set(int err, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(last_detail, sizeof(last_detail), fmt, ap);
    va_end(ap);
    return err;
}

int dmesh_error_mpi(int mpi_err, const char *what)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;

    if (MPI_Error_string(mpi_err, msg, &len) != MPI_SUCCESS)
        snprintf(msg, sizeof(msg), "MPI error %d", mpi_err);
    /* A lost process or a revoked communicator (fault tolerance on): the
     * class the survivors recover from, whichever call met it. */
    if (dmesh_ulfm_is_failure(mpi_err))
        return dmesh_error_set(DMESH_ERR_PROC_FAILED, "%s: %s", what, msg);
    return dmesh_error_set(DMESH_ERR_MPI, "%s: %s", what, msg);
}
