/* SPDX-License-Identifier: BSD-3-Clause */
/* Without dmesh: a process started by MPI_Comm_spawn dies (SIGKILL right
 * after MPI_Init) while its parents, launched with Open MPI 5 and
 * --with-ft ulfm, carry on and end well. A launcher that treats the
 * started processes as it treats the first launch's (recoverable under
 * --with-ft ulfm) exits 0; Open MPI 5.0.7's prterun reports "process rank
 * 0 ... exited on signal 9" and exits 137, also with
 * --report-child-jobs-separately, --enable-recovery, an info key
 * PMIX_JOB_RECOVERABLE on the spawn or PRTE_MCA_prte_enable_recovery=1
 * (measured in the Debian 13 chroot). The parents print "parent N: done".
 *   mpicc spawn-kill.c -o spawn-kill
 *   mpiexec --with-ft ulfm --map-by :oversubscribe -n 2 ./spawn-kill; echo $?
 *   (root: OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1) */
#include <mpi.h>
#include <signal.h>
#include <stdio.h>
#include <unistd.h>

int main(int argc, char **argv)
{
    MPI_Comm parent, ic;
    int rank, rc;

    MPI_Init(&argc, &argv);
    MPI_Comm_get_parent(&parent);
    if (parent != MPI_COMM_NULL)
        raise(SIGKILL);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    rc = MPI_Comm_spawn(argv[0], MPI_ARGV_NULL, 1, MPI_INFO_NULL, 0, MPI_COMM_WORLD, &ic,
                        MPI_ERRCODES_IGNORE);
    sleep(3); /* the started process is dead by now */
    MPI_Barrier(MPI_COMM_WORLD);
    printf("parent %d: spawn returned %d; done\n", rank, rc);
    MPI_Finalize();
    return 0;
}
