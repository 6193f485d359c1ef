/* SPDX-License-Identifier: BSD-3-Clause */
/* Fault tolerance (lib/ft/): owns the bound on one blocking MPI call that
 * the MPI may never return from. Under Open MPI 5.0.7 with --with-ft ulfm,
 * MPI_Intercomm_merge never returns on the parents when a process that
 * MPI_Comm_spawn started dies before or during the merge
 * (test/trixie/merge-dead-peer.c shows it without dmesh: the communicator id
 * allocation retries a nonblocking allreduce that fails, without end). A
 * blocking call cannot be cancelled, and revoking its communicator from
 * another thread needs MPI_THREAD_MULTIPLE, which the program may not have;
 * so a thread waits beside the call and, if it has not returned within the
 * bound, says which call and why on stderr, flushes the program's streams
 * and ends the process with status 1: the job ends, with a failing status,
 * instead of hanging. The bound is the call's dmesh_timeout (spawn.c). */
#include "config.h"

#include "ft/call_bound.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static void *watch(void *arg)
{
    dmesh_call_bound_t *b = arg;
    struct timespec until;
    int rc = 0;

    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += (time_t)b->seconds;
    until.tv_nsec += (long)((b->seconds - (double)(time_t)b->seconds) * 1e9);
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    pthread_mutex_lock(&b->lock);
    while (!b->done && rc != ETIMEDOUT)
        rc = pthread_cond_timedwait(&b->done_cond, &b->lock, &until);
    if (!b->done) {
        char msg[512];
        ssize_t w;
        int n = snprintf(msg, sizeof(msg),
                         "dmesh: %s did not return within %.0f s: the process ends (status 1)\n",
                         b->what, b->seconds);

        w = write(2, msg, n > 0 && (size_t)n < sizeof(msg) ? (size_t)n : strlen(msg));
        (void)w;
        fflush(NULL);
        _exit(1);
    }
    pthread_mutex_unlock(&b->lock);
    return NULL;
}

void dmesh_call_bound_start(dmesh_call_bound_t *b, double seconds, const char *what)
{
    memset(b, 0, sizeof(*b));
    b->seconds = seconds;
    b->what = what;
    if (seconds <= 0)
        return;
    if (pthread_mutex_init(&b->lock, NULL) != 0)
        return;
    if (pthread_cond_init(&b->done_cond, NULL) != 0) {
        pthread_mutex_destroy(&b->lock);
        return;
    }
    if (pthread_create(&b->thread, NULL, watch, b) != 0) {
        pthread_cond_destroy(&b->done_cond);
        pthread_mutex_destroy(&b->lock);
        return;
    }
    b->started = 1;
}

void dmesh_call_bound_stop(dmesh_call_bound_t *b)
{
    if (!b->started)
        return;
    pthread_mutex_lock(&b->lock);
    b->done = 1;
    pthread_cond_signal(&b->done_cond);
    pthread_mutex_unlock(&b->lock);
    pthread_join(b->thread, NULL);
    pthread_cond_destroy(&b->done_cond);
    pthread_mutex_destroy(&b->lock);
    b->started = 0;
}
