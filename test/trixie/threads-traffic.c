/* SPDX-License-Identifier: BSD-3-Clause */
/* Without dmesh: the MPI traffic of test/test_copies_threads.c, the calls
 * that test makes through dmesh's copies and nothing else. THREADS threads
 * of each process (MPI_THREAD_MULTIPLE), each on its own duplicate of
 * MPI_COMM_WORLD, run ROUNDS rounds at once: an MPI_Comm_split of their
 * communicator, an MPI_Allreduce, then twice (two versions stored) an
 * MPI_Allreduce, a ring exchange of the thread's bytes (6 MiB for threads
 * 0 and 2, 64 bytes for thread 1) in 1 MiB MPI_Isend/MPI_Irecv messages
 * ended by MPI_Waitall, and an MPI_Allreduce; then an MPI_Allgather and an
 * MPI_Allreduce (the restore), each thread checking the bytes it got back,
 * and MPI_Comm_free. Meanwhile the main thread takes and gives back a
 * mutex in a loop with sched_yield, as that test's lookups do, and calls
 * no MPI function until the threads have ended. Every call waits only for
 * calls that every process makes in the same order on that communicator,
 * so every run must end.
 * MODE "turns" makes the splits one at a time, in the same order on every
 * process; "nosplit" makes none (each thread works on its duplicate).
 *   mpicc -pthread threads-traffic.c -o threads-traffic
 *   mpiexec --map-by :oversubscribe -n 4 ./threads-traffic [ROUNDS [MODE]]
 *   (root: OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1)
 * Prints "threads-traffic: passed" on rank 0, or the count of rounds whose
 * bytes were wrong (exit 1). A run that does not end is the hang: bound it
 * with timeout. Open MPI 6.0.0rc2 (Debian 14 chroot, 4 processes, 2 cores
 * shared with other work, each run bounded by 60 s): hung in 4 runs of 50
 * of 40 rounds, in 2 of 200 of 6 rounds, and in 1 of 50 of 40 rounds with
 * "nosplit" (0 of 40 with --mca btl self,tcp: too few to clear shared
 * memory); each time every thread of every process waited in
 * MPI_Comm_split, MPI_Allreduce or MPI_Waitall. Open MPI 4.1.4: 0 of 200 of
 * 6 rounds and 0 of 60 of 40; Open MPI 5.0.7: 0 of 100 of 40. */
#include <mpi.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define THREADS 3
#define BIG ((size_t)6 << 20)
#define CHUNK ((size_t)1 << 20)

static enum { ALL_AT_ONCE, SPLITS_IN_TURNS, NO_SPLITS } mode = ALL_AT_ONCE;
static int rounds = 6, done, bad;
static MPI_Comm comms[THREADS];
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t turn_cv = PTHREAD_COND_INITIALIZER;
static int turn;

/* splits in turns: thread t's split of round r is turn r * THREADS + t on
 * every process */
static void split(int t, int r, int rank, MPI_Comm *c)
{
    if (mode == NO_SPLITS) {
        *c = comms[t];
        return;
    }
    if (mode == SPLITS_IN_TURNS) {
        pthread_mutex_lock(&lock);
        while (turn != r * THREADS + t)
            pthread_cond_wait(&turn_cv, &lock);
        pthread_mutex_unlock(&lock);
    }
    MPI_Comm_split(comms[t], 0, rank, c);
    if (mode == SPLITS_IN_TURNS) {
        pthread_mutex_lock(&lock);
        turn++;
        pthread_cond_broadcast(&turn_cv);
        pthread_mutex_unlock(&lock);
    }
}

static void exchange(MPI_Comm c, char *out, char *in, size_t bytes)
{
    int rank, size, k = 0;
    MPI_Request r[2 * (BIG / CHUNK + 1)];

    MPI_Comm_rank(c, &rank);
    MPI_Comm_size(c, &size);
    for (size_t off = 0; off < bytes; off += CHUNK) {
        int n = (int)(bytes - off < CHUNK ? bytes - off : CHUNK);
        MPI_Irecv(in + off, n, MPI_BYTE, (rank + size - 1) % size, 7, c, &r[k++]);
        MPI_Isend(out + off, n, MPI_BYTE, (rank + 1) % size, 7, c, &r[k++]);
    }
    MPI_Waitall(k, r, MPI_STATUSES_IGNORE);
}

static void *work(void *arg)
{
    int t = (int)(uintptr_t)arg, rank, size, x = 1, y;
    size_t bytes = t % 2 == 0 ? BIG : 64;
    char *out = malloc(bytes), *in = malloc(bytes);

    MPI_Comm_rank(comms[t], &rank);
    MPI_Comm_size(comms[t], &size);
    for (int r = 0; r < rounds; r++) {
        MPI_Comm c;
        int *all = malloc(sizeof(int) * (size_t)size);
        split(t, r, rank, &c);
        MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_SUM, c);
        for (int v = 1; v <= 2; v++) {
            memset(out, (rank * 31 + t * 7 + r + v) & 0xff, bytes);
            MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_MAX, c);
            exchange(c, out, in, bytes);
            MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_MAX, c);
        }
        MPI_Allgather(&rank, 1, MPI_INT, all, 1, MPI_INT, c);
        MPI_Allreduce(&x, &y, 1, MPI_INT, MPI_MAX, c);
        for (size_t i = 0; i < bytes; i += 4093)
            if (in[i] != (char)((((rank + size - 1) % size) * 31 + t * 7 + r + 2) & 0xff)) {
                pthread_mutex_lock(&lock);
                bad++;
                pthread_mutex_unlock(&lock);
                break;
            }
        free(all);
        if (mode != NO_SPLITS)
            MPI_Comm_free(&c);
    }
    free(out);
    free(in);
    pthread_mutex_lock(&lock);
    done++;
    pthread_mutex_unlock(&lock);
    return NULL;
}

int main(int argc, char **argv)
{
    pthread_t th[THREADS];
    int provided = 0, rank, finished = 0, all = 0;

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    if (provided < MPI_THREAD_MULTIPLE) {
        printf("threads-traffic: no MPI_THREAD_MULTIPLE\n");
        MPI_Finalize();
        return 77;
    }
    if (argc > 1)
        rounds = atoi(argv[1]);
    if (argc > 2)
        mode = argv[2][0] == 't' ? SPLITS_IN_TURNS : argv[2][0] == 'n' ? NO_SPLITS : ALL_AT_ONCE;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    for (int t = 0; t < THREADS; t++)
        MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]);
    for (int t = 0; t < THREADS; t++)
        pthread_create(&th[t], NULL, work, (void *)(uintptr_t)t);
    while (!finished) {
        pthread_mutex_lock(&lock);
        finished = done == THREADS;
        pthread_mutex_unlock(&lock);
        sched_yield();
    }
    for (int t = 0; t < THREADS; t++) {
        pthread_join(th[t], NULL);
        MPI_Comm_free(&comms[t]);
    }
    MPI_Allreduce(&bad, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) {
        if (all == 0)
            printf("threads-traffic: passed\n");
        else
            printf("threads-traffic: %d wrong rounds\n", all);
    }
    MPI_Finalize();
    return all == 0 ? 0 : 1;
}
