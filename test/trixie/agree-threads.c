/* SPDX-License-Identifier: BSD-3-Clause */
/* Without dmesh: THREADS threads of each process, each on its own
 * duplicate of MPI_COMM_WORLD, call MPIX_Comm_agree ROUNDS times at once
 * (MPI_THREAD_MULTIPLE), each followed by an MPI_Allreduce and, every tenth
 * round, a 1 MiB MPI_Sendrecv round the ring (the traffic of a program
 * between its agreements); thread t passes 7 | 256 << t. No process fails,
 * so every agreement must return MPI_SUCCESS and the flag it was given.
 * Open MPI 5.0.7 (Debian 13 chroot, 2 processes, 3 threads, 2000 rounds,
 * 2 busy loops beside): some agreements return MPI_SUCCESS with another
 * flag: 0, another thread's flag, or bytes no process gave; on one process
 * only or on both. Wrong in 4 runs of 10. Variants measured the same way:
 * 3 runs of 6 with each agreement started under one process-wide lock
 * (MPIX_Comm_iagree, then MPI_Wait outside it), 1 of 6 with every MPI_Test
 * of it under the lock too, 1 of 6 without the traffic, 0 of 6 when one
 * thread agrees and the others only communicate. A process-wide lock held
 * across the agreement cannot be the fix: two processes whose threads take
 * it for agreements on different communicators wait for each other.
 *   mpicc -pthread agree-threads.c -o agree-threads
 *   mpiexec --with-ft ulfm --map-by :oversubscribe -n 2 ./agree-threads [ROUNDS]
 *   (root: OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1)
 * It prints each wrong agreement and "N wrong" on rank 0; exit 1 if any. */
#include <mpi.h>
#include <mpi-ext.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#define THREADS 3

static int rounds = 2000;
static MPI_Comm comms[THREADS];
static int wrong[THREADS];

#define BIG (1 << 20)

static void *agree_loop(void *arg)
{
    int t = (int)(uintptr_t)arg, rank, size;
    char *out = calloc(BIG, 1), *in = calloc(BIG, 1);

    MPI_Comm_rank(comms[t], &rank);
    MPI_Comm_size(comms[t], &size);
    for (int i = 0; i < rounds && out != NULL && in != NULL; i++) {
        int want = 7 | 256 << t, flag = want, rc = MPIX_Comm_agree(comms[t], &flag);
        long one = 1, sum = 0;
        if (rc != MPI_SUCCESS || flag != want) {
            fprintf(stderr,
                    "rank %d thread %d round %d: MPIX_Comm_agree returned %d, flag %d "
                    "(given %d)\n",
                    rank, t, i, rc, flag, want);
            wrong[t]++;
        }
        MPI_Allreduce(&one, &sum, 1, MPI_LONG, MPI_SUM, comms[t]);
        if (i % 10 == 0)
            MPI_Sendrecv(out, BIG, MPI_BYTE, (rank + 1) % size, 0, in, BIG, MPI_BYTE,
                         (rank + size - 1) % size, 0, comms[t], MPI_STATUS_IGNORE);
    }
    free(out);
    free(in);
    return NULL;
}

int main(int argc, char **argv)
{
    pthread_t th[THREADS];
    int provided = 0, rank, mine = 0, all = 0;

    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (provided < MPI_THREAD_MULTIPLE) {
        if (rank == 0)
            printf("agree-threads: no MPI_THREAD_MULTIPLE\n");
        MPI_Finalize();
        return 77;
    }
    if (argc > 1)
        rounds = atoi(argv[1]);
    for (int t = 0; t < THREADS; t++) {
        MPI_Comm_dup(MPI_COMM_WORLD, &comms[t]);
        MPI_Comm_set_errhandler(comms[t], MPI_ERRORS_RETURN);
    }
    for (int t = 0; t < THREADS; t++)
        pthread_create(&th[t], NULL, agree_loop, (void *)(uintptr_t)t);
    for (int t = 0; t < THREADS; t++) {
        pthread_join(th[t], NULL);
        mine += wrong[t];
    }
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("agree-threads: %d threads x %d agreements: %d wrong\n", THREADS, rounds, all);
    for (int t = 0; t < THREADS; t++)
        MPI_Comm_free(&comms[t]);
    MPI_Finalize();
    return all != 0;
}
