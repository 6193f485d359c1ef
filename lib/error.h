/* SPDX-License-Identifier: BSD-3-Clause */
/* Internal error helpers: every failure records a detail message on the
 * calling thread and returns its error class. */
#ifndef DMESH_ERROR_H
#define DMESH_ERROR_H

#include <stdatomic.h>

#include "dmesh.h"

#if defined(__GNUC__)
#define DMESH_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define DMESH_PRINTF(f, a)
#endif

/* Record "detail" (printf format) for dmesh_last_error() and return err. */
int dmesh_error_set(int err, const char *fmt, ...) DMESH_PRINTF(2, 3);

/* The detail just set (dmesh_error_set) is the same on every rank of the
 * communicator the agreement was over (an agreed outcome): of them, one
 * alone writes it before a fatal handler (raise.c); is_writer: whether
 * this process is that one. Kept as a yes or no, not as a rank: the
 * handler may be raised on another communicator than the agreement's (a
 * group's agreement, raised on the mesh's communicator), where the
 * agreement's rank would name another process. Returns err. A detail set
 * later on this thread is no longer agreed. */
int dmesh_error_agreed(int err, int is_writer);

/* Whether this process writes the current detail when it is agreed (1),
 * another does (0), or it is not agreed (-1: every rank that failed
 * writes its own). */
int dmesh_error_writer(void);

/* Record an MPI failure: "what: <MPI's error string>"; returns DMESH_ERR_MPI. */
int dmesh_error_mpi(int mpi_err, const char *what);

/* The MPI error code of class err (raise.c passes it to error handlers):
 * every class is registered with MPI (MPI_Add_error_class, _code,
 * _string) at the first call; MPI_ERR_OTHER where that failed. */
int dmesh_error_code(int err);

/* Forget the registered codes: the MPI they were registered with ended
 * (the last session of a program without MPI_Init; pcomm.c). */
void dmesh_error_forget_codes(void);

/* A language binding rejected its own arguments of a collective call
 * (binding.h): the class and detail the call takes instead of its own
 * local outcome (dmesh_error_reject_take, create.c), so that every rank
 * still joins the agreement. Thread-local; dropped at the end of the call
 * whatever happened (dmesh_error_reject_drop). */
int dmesh_error_reject(int err, const char *detail);
int dmesh_error_rejected(void);

/* Whether any thread holds a rejection: the entry points' test after a
 * call that succeeded (nothing else to do then), one relaxed load. */
extern atomic_int dmesh_error_rejections;
static inline int dmesh_error_any_rejected(void)
{
    return atomic_load_explicit(&dmesh_error_rejections, memory_order_relaxed) != 0;
}
int dmesh_error_reject_take(int err);
void dmesh_error_reject_drop(void);

/* Checks a binding makes for itself raise nothing while quiet (raise.c). */
void dmesh_error_quiet(int on);
int dmesh_error_quieted(void);

/* Return err after an inner call that recorded its own detail already. */
#define DMESH_TRY(call)                                                                            \
    do {                                                                                           \
        int dmesh_try_err_ = (call);                                                               \
        if (dmesh_try_err_ != DMESH_SUCCESS)                                                       \
            return dmesh_try_err_;                                                                 \
    } while (0)

/* Validate a pointer argument at the API boundary. */
#define DMESH_CHECK_PTR(p) DMESH_CHECK_PTR_OF(__func__, p)
/* The same in the implementation of a public call (api_impl.h), whose
 * details name the call (fn), not the implementation. */
#define DMESH_CHECK_PTR_OF(fn, p)                                                                  \
    do {                                                                                           \
        if ((p) == NULL)                                                                           \
            return dmesh_error_set(DMESH_ERR_ARG, "%s: argument '%s' is NULL", fn, #p);            \
    } while (0)

#endif /* DMESH_ERROR_H */
