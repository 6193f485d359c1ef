/* SPDX-License-Identifier: BSD-3-Clause */
/* Error classes, their strings, the thread-local detail of the last
 * failure, the classes' MPI error codes (registered at the first need), and
 * a language binding's rejection waiting for the next agreement. */
#include "config.h"

#include "api_impl.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include "error.h"
#include "ulfm.h"

#define DMESH_DETAIL_LEN 512

static _Thread_local char last_detail[DMESH_DETAIL_LEN];

/* Which detail the ranks agreed on: the count of details set so far on
 * this thread when it was marked, and the rank that writes it. */
static _Thread_local unsigned long details_set, agreed_at;
static _Thread_local int agreed_writer = -1;

/* The MPI codes of the classes (0: not registered); codes[0] unused. */
static int codes[DMESH_ERR_LASTCODE];
static int registered;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* A binding's rejection for the next agreement, and its quiet checks;
 * how many threads hold a rejection (the entry points look at this
 * counter only, a plain load, on the path of a call that succeeds). */
static _Thread_local int rejected, quiet;
atomic_int dmesh_error_rejections;
static _Thread_local char rejected_detail[DMESH_DETAIL_LEN];

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
    [DMESH_ERR_SPAWN] = "DMESH_ERR_SPAWN: the MPI or its launcher refused to start processes",
    [DMESH_ERR_DATA_LOST] =
        "DMESH_ERR_DATA_LOST: a process and every holder of its copy failed together",
};

const char *dmesh_error_string_impl(int err)
{
    if (err < 0 || err >= DMESH_ERR_LASTCODE)
        return "unknown dmesh error class";
    return error_strings[err];
}

const char *dmesh_last_error_impl(void)
{
    return last_detail;
}

int dmesh_error_set(int err, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(last_detail, sizeof(last_detail), fmt, ap);
    va_end(ap);
    details_set++;
    return err;
}

int dmesh_error_agreed(int err, int is_writer)
{
    agreed_at = details_set;
    agreed_writer = is_writer != 0;
    return err;
}

int dmesh_error_writer(void)
{
    return details_set != 0 && agreed_at == details_set ? agreed_writer : -1;
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

/* Under the lock: every class gets an MPI class, a code of it and its
 * string. A failure leaves the rest unregistered (raised as MPI_ERR_OTHER). */
static void register_codes(void)
{
    int c, cls, code;

    for (c = 1; c < DMESH_ERR_LASTCODE; c++) {
        /* an MPI without these calls may return success and write nothing
         * (SimGrid's SMPI 3.32): the values must have changed */
        cls = code = MPI_UNDEFINED;
        if (MPI_Add_error_class(&cls) != MPI_SUCCESS || cls == MPI_UNDEFINED ||
            MPI_Add_error_code(cls, &code) != MPI_SUCCESS || code == MPI_UNDEFINED)
            return;
        MPI_Add_error_string(cls, (char *)dmesh_error_string_impl(c));
        MPI_Add_error_string(code, (char *)dmesh_error_string_impl(c));
        codes[c] = code;
    }
}

int dmesh_error_code(int err)
{
    int code;

    pthread_mutex_lock(&lock);
    if (!registered) {
        registered = 1;
        register_codes();
    }
    code = err > 0 && err < DMESH_ERR_LASTCODE ? codes[err] : 0;
    pthread_mutex_unlock(&lock);
    return code != 0 ? code : MPI_ERR_OTHER;
}

void dmesh_error_forget_codes(void)
{
    pthread_mutex_lock(&lock);
    registered = 0;
    memset(codes, 0, sizeof(codes));
    pthread_mutex_unlock(&lock);
}

int dmesh_error_class_impl(int errorcode, int *errorclass)
{
    int c, found = 0;

    if (errorclass == NULL)
        return dmesh_error_set(DMESH_ERR_ARG, "dmesh_error_class: argument 'errorclass' is NULL");
    pthread_mutex_lock(&lock);
    for (c = 1; c < DMESH_ERR_LASTCODE && !found; c++)
        if (codes[c] != 0 && codes[c] == errorcode)
            found = c;
    pthread_mutex_unlock(&lock);
    if (!found)
        return dmesh_error_set(DMESH_ERR_ARG,
                               "dmesh_error_class: %d is not an error code that dmesh raised",
                               errorcode);
    *errorclass = found;
    return DMESH_SUCCESS;
}

int dmesh_error_reject(int err, const char *detail)
{
    dmesh_error_set(err, "%s", detail != NULL ? detail : "");
    snprintf(rejected_detail, sizeof(rejected_detail), "%s", last_detail);
    if (rejected == 0)
        atomic_fetch_add(&dmesh_error_rejections, 1);
    rejected = err;
    return err;
}

int dmesh_error_rejected(void)
{
    return rejected;
}

void dmesh_error_reject_drop(void)
{
    if (rejected != 0)
        atomic_fetch_sub(&dmesh_error_rejections, 1);
    rejected = 0;
}

int dmesh_error_reject_take(int err)
{
    int r = rejected;

    if (r == 0)
        return err;
    dmesh_error_reject_drop();
    return dmesh_error_set(r, "%s", rejected_detail);
}

void dmesh_error_quiet(int on)
{
    quiet = on;
}

int dmesh_error_quieted(void)
{
    return quiet;
}
