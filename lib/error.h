/* SPDX-License-Identifier: BSD-3-Clause */
/* Internal error helpers: every failure records a detail message on the
 * calling thread and returns its error class. */
#ifndef DMESH_ERROR_H
#define DMESH_ERROR_H

#include "dmesh.h"

#if defined(__GNUC__)
#define DMESH_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define DMESH_PRINTF(f, a)
#endif

/* Record "detail" (printf format) for dmesh_last_error() and return err. */
int dmesh_error_set(int err, const char *fmt, ...) DMESH_PRINTF(2, 3);

/* Record an MPI failure: "what: <MPI's error string>"; returns DMESH_ERR_MPI. */
int dmesh_error_mpi(int mpi_err, const char *what);

/* Return err after an inner call that recorded its own detail already. */
#define DMESH_TRY(call)                                                                            \
    do {                                                                                           \
        int dmesh_try_err_ = (call);                                                               \
        if (dmesh_try_err_ != DMESH_SUCCESS)                                                       \
            return dmesh_try_err_;                                                                 \
    } while (0)

/* Validate a pointer argument at the API boundary. */
#define DMESH_CHECK_PTR(p)                                                                         \
    do {                                                                                           \
        if ((p) == NULL)                                                                           \
            return dmesh_error_set(DMESH_ERR_ARG, "%s: argument '%s' is NULL", __func__, #p);      \
    } while (0)

#endif /* DMESH_ERROR_H */
