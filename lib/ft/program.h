/* SPDX-License-Identifier: BSD-3-Clause */
/* Fault tolerance (lib/ft/): the program that dmesh_respawn and dmesh_grow
 * start (program.c): the one the caller names, or the one the launcher
 * started, with this program's own arguments byte for byte. */
#ifndef DMESH_FT_PROGRAM_H
#define DMESH_FT_PROGRAM_H

#include <mpi.h>

typedef struct {
    char *cmd;     /* what MPI_Comm_spawn starts */
    char **args;   /* its arguments, NULL-terminated (MPI_ARGV_NULL: none) */
    char *cmdline; /* the command line's strings, which own points into */
    char **own;    /* args when taken from the process */
    char *cmdbuf;  /* cmd when taken from the process */
} dmesh_program_t;

/* The program to start: command and argv as given; command NULL: the
 * command of dmesh_respawn_command (info) or DMESH_RESPAWN_COMMAND, else
 * the one that started this program (MPI_INFO_ENV's "command", a wrapper
 * kept; else /proc/self/exe), and then, with argv MPI_ARGV_NULL, this
 * program's own arguments from /proc/self/cmdline (no length limit, no
 * splitting; argv[0] too where the launcher started a wrapper with this
 * program's command line), or where it cannot be read MPI_INFO_ENV's
 * "argv" split at spaces (none where it is "command" itself: Open MPI 5
 * without arguments). Local; fn names the call for the detail. */
int dmesh_program(const char *fn, const char *command, char *const argv[], MPI_Info info,
                  dmesh_program_t *p);

/* dmesh_program with the launch's keys ("command", "argv", "wdir") read
 * from env instead of MPI_INFO_ENV, and the command line from the file
 * cmdline instead of /proc/self/cmdline: for the tests, which pass another
 * MPI's keys and a file that does not exist (where the system gives no
 * command line, the arguments come from env's "argv"). */
int dmesh_program_from(const char *fn, const char *command, char *const argv[], MPI_Info info,
                       MPI_Info env, const char *cmdline, dmesh_program_t *p);

void dmesh_program_free(dmesh_program_t *p);

#endif /* DMESH_FT_PROGRAM_H */
