/* SPDX-License-Identifier: BSD-3-Clause */
/* The value parsers of options, shared by options.c and the backends'
 * parsers (backend.h); below both, so that neither calls the other. */
#ifndef DMESH_OPTION_VALUE_H
#define DMESH_OPTION_VALUE_H

#include <mpi.h>

/* An integer of [lo, hi]; DMESH_ERR_ARG naming key otherwise. */
/* The value of key in info (val: MPI_MAX_INFO_VAL + 1 bytes), *flag 0
 * when absent or info is MPI_INFO_NULL; fn names the call in an MPI
 * failure's detail. */
int dmesh_option_get(MPI_Info info, const char *key, const char *fn, char *val, int *flag);

int dmesh_option_int(const char *key, const char *val, int lo, int hi, int *out);

/* a (0) or b (1); DMESH_ERR_ARG naming key and both otherwise. */
int dmesh_option_choice(const char *key, const char *val, const char *a, const char *b, int *out);

/* The index of val in the n names of list; DMESH_ERR_ARG naming key and
 * every name otherwise. */
int dmesh_option_choices(const char *key, const char *val, int n, const char *const list[],
                         int *out);

/* A comma list of host names (dmesh_respawn_hosts): the names into names
 * (each NUL-terminated, one after the other; at least strlen(val) + 1
 * bytes) and their number into *n; DMESH_ERR_ARG naming key and the bad
 * entry for an empty one or a character that no host name has. */
int dmesh_option_hosts(const char *key, const char *val, char *names, int *n);

#endif /* DMESH_OPTION_VALUE_H */
