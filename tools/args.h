/* SPDX-License-Identifier: BSD-3-Clause */
/* Command-line helpers shared by dmesh-info and dmesh-bench: strict number
 * parsing and error messages that name the offending option. Each function
 * prints "PROG: ..." on stderr and returns -1 on a bad value, 0 otherwise. */
#ifndef DMESH_TOOLS_ARGS_H
#define DMESH_TOOLS_ARGS_H

#include <stdio.h>

/* One integer in [lo, hi], the whole of s (no trailing text). */
int tool_parse_long(const char *prog, const char *opt, const char *s, long long lo, long long hi,
                    long long *out);

/* A list of 1 to max integers in [1, INT_MAX], separated by "," (or by "x"
 * too when seps is ",x"): "2,x", "2,,4", "2," and more than max values are
 * errors. */
int tool_parse_sizes(const char *prog, const char *opt, const char *s, const char *seps, int max,
                     int out[], int *n);

/* The same with values in [lo, INT_MAX] (lo 0: a mesh shape whose entries
 * 0 the library fills). */
int tool_parse_list(const char *prog, const char *opt, const char *s, const char *seps, int max,
                    int lo, int out[], int *n);

/* Where the helpers print (stderr until set); NULL: nowhere, for the ranks
 * of an MPI program but the one that reports. */
void tool_set_error_stream(FILE *f);

/* This process's rank as the launcher announced it in the environment,
 * before MPI_Init (PMIX_RANK, OMPI_COMM_WORLD_RANK, PMI_RANK, then
 * SLURM_PROCID); 0 when none says (a process run by hand). For the options
 * that answer without MPI (--help, --version, --config): under mpiexec only
 * the first process prints. */
int tool_launcher_rank(void);

/* Collective over MPI_COMM_WORLD, the tools' last MPI call: the
 * reporting rank's lines are flushed before any rank leaves (a barrier), so
 * that a launcher which ends the job at the first non-zero exit cannot end
 * the reporting rank before its one error line is out; then MPI_Finalize.
 * Returns rc, the same on every rank (the tools agree on their outcome). */
int tool_finalize(int rc);

/* "PROG: unknown option 'OPT'"; returns -1. */
int tool_unknown_option(const char *prog, const char *opt);

/* "PROG: option 'OPT' needs a value"; returns -1. */
int tool_missing_value(const char *prog, const char *opt);

#endif /* DMESH_TOOLS_ARGS_H */
