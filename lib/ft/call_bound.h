/* SPDX-License-Identifier: BSD-3-Clause */
/* Fault tolerance (lib/ft/): the bound on one blocking MPI call that the
 * MPI may never return from (call_bound.c). */
#ifndef DMESH_FT_CALL_BOUND_H
#define DMESH_FT_CALL_BOUND_H

#include <pthread.h>

typedef struct {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t done_cond;
    int started, done;
    double seconds;
    const char *what; /* a static text: the call and why it may not return */
} dmesh_call_bound_t;

/* Starts the bound: unless dmesh_call_bound_stop is called within seconds,
 * what is written to stderr and the process ends (status 1). seconds <= 0,
 * or a thread that cannot be started: no bound. */
void dmesh_call_bound_start(dmesh_call_bound_t *b, double seconds, const char *what);

/* The call returned: the bound ends (joined). */
void dmesh_call_bound_stop(dmesh_call_bound_t *b);

#endif /* DMESH_FT_CALL_BOUND_H */
