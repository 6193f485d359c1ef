/* SPDX-License-Identifier: BSD-3-Clause */
/* Without dmesh: a process started by MPI_Comm_spawn dies before the
 * merge, and its parents then call MPI_Intercomm_merge on the spawn's
 * intercommunicator, under Open MPI 5 launched with --with-ft ulfm. An
 * MPI that notices the failure returns an error from the merge on every
 * parent; Open MPI 5.0.7 never returns (its communicator id allocation,
 * ompi_comm_nextcid, retries a nonblocking allreduce that fails with
 * MPI_ERR_PROC_FAILED, printing "NBC_Progress: an error 75 was found
 * during schedule" without end). alarm() bounds the run: the parents
 * print "merge: returned" or "merge: no return in 20 s".
 *   mpicc merge-dead-peer.c -o merge-dead-peer
 *   mpiexec --with-ft ulfm --map-by :oversubscribe -n 3 ./merge-dead-peer
 *   (root: OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1) */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

static void no_return(int sig)
{
    static const char text[] = "merge: no return in 20 s\n";

    (void)sig;
    write(1, text, sizeof(text) - 1);
    _exit(2);
}

int main(int argc, char **argv)
{
    MPI_Comm parent, ic, merged;
    char *args[] = {"child", NULL};
    int rc, rank;

    MPI_Init(&argc, &argv);
    MPI_Comm_get_parent(&parent);
    if (parent != MPI_COMM_NULL) { /* the started process dies */
        raise(SIGKILL);
    }
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_spawn(argv[0], args, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &ic, MPI_ERRCODES_IGNORE);
    MPI_Comm_set_errhandler(ic, MPI_ERRORS_RETURN);
    sleep(2); /* the started process is dead by now */
    signal(SIGALRM, no_return);
    alarm(20);
    rc = MPI_Intercomm_merge(ic, 0, &merged);
    alarm(0);
    printf("merge: returned %d on rank %d\n", rc, rank);
    fflush(stdout);
    _exit(0); /* the job had a failure: MPI_Finalize is not the point here */
}
