/* SPDX-License-Identifier: BSD-3-Clause */
/* Without dmesh: the first launch (N processes, Open MPI 5 with --with-ft
 * ulfm) grows by 2 processes in one MPI_Comm_spawn and merges with them;
 * one of the 2 dies; the survivors revoke, shrink and start a replacement
 * for each process the shrink left out (MPI_Comm_spawn over the shrunk
 * communicator), as the ULFM tutorial's replace does. Each survivor prints
 * what the spawn returned; a survivor that never prints it waits in the
 * spawn. Measured in the Debian 13 chroot (Open MPI 5.0.7), 2 runs of 2:
 * the other first-launch survivors' spawn returns 75 (a process failed),
 * rank 0's (the spawn's root) and the surviving grown process's never
 * return, and the job does not end (timeout). dmesh_respawn after a
 * dmesh_grow of several processes meets the same (user guide, "A process
 * that dmesh_grow added dies").
 *   mpicc grow-kill.c -o grow-kill
 *   mpiexec --with-ft ulfm --map-by :oversubscribe -n 4 ./grow-kill */
#include <mpi.h>
#include <mpi-ext.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    MPI_Comm parent, ic, all, shr, ric;
    int rank, wrank, size, ssize, rc, grown = 0;
    char *child[] = {"child", NULL}, *repl[] = {"replacement", NULL};

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &wrank);
    MPI_Comm_get_parent(&parent);
    if (parent != MPI_COMM_NULL && argc > 1 && strcmp(argv[1], "replacement") == 0) {
        MPI_Comm_set_errhandler(parent, MPI_ERRORS_RETURN);
        rc = MPI_Intercomm_merge(parent, 1, &all);
        printf("replacement %d: merged (%d)\n", wrank, rc);
        fflush(stdout);
        MPI_Finalize();
        return 0;
    }
    if (parent == MPI_COMM_NULL) {
        MPI_Comm_spawn(argv[0], child, 2, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &ic,
                       MPI_ERRCODES_IGNORE);
        MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN);
        MPI_Intercomm_merge(ic, 0, &all);
    } else {
        grown = 1;
        MPI_Comm_set_errhandler(parent, MPI_ERRORS_RETURN);
        MPI_Intercomm_merge(parent, 1, &all);
    }
    MPI_Comm_set_errhandler(all, MPI_ERRORS_RETURN);
    MPI_Comm_rank(all, &rank);
    MPI_Barrier(all);
    if (grown && wrank == 0)
        raise(SIGKILL); /* the first of the 2 grown processes dies */
    rc = MPI_Barrier(all);
    if (rc == MPI_SUCCESS)
        rc = MPI_Barrier(all); /* a second round, so that every survivor meets the failure */
    MPIX_Comm_revoke(all);
    MPIX_Comm_shrink(all, &shr);
    MPI_Comm_set_errhandler(shr, MPI_ERRORS_RETURN);
    MPI_Comm_size(all, &size);
    MPI_Comm_size(shr, &ssize);
    printf("%s %d (rank %d of %d): shrunk to %d; spawning %d\n", grown ? "grown" : "first", wrank,
           rank, size, ssize, size - ssize);
    fflush(stdout);
    rc = MPI_Comm_spawn(argv[0], repl, size - ssize, MPI_INFO_NULL, 0, shr, &ric,
                        MPI_ERRCODES_IGNORE);
    printf("%s %d (rank %d): the replacements' MPI_Comm_spawn returned %d\n",
           grown ? "grown" : "first", wrank, rank, rc);
    fflush(stdout);
    MPI_Finalize();
    return 0;
}
