/* SPDX-License-Identifier: BSD-3-Clause */
/* Communicators that dmesh owns and hands to the program (handout.c): a
 * dimension's (dmesh_get_comm), a Cartesian one (dmesh_get_cart_comm). */
#ifndef DMESH_HANDOUT_H
#define DMESH_HANDOUT_H

#include <mpi.h>

/* In the header for dmesh_handout_freed only (inline: the hand-out of a
 * communicator the program holds already reads freed, and nothing else). */
typedef struct dmesh_handout {
    int freed;     /* by the program (MPI_Comm_free of the borrowed handle) */
    int releasing; /* dmesh frees it: the callback has nothing to say */
    int debug;
    char what[96];
} dmesh_handout_t;

/* Local, at the first hand-out of c: c gets the error handler eh (that of
 * the communicator the mesh was made from, as MPI_Comm_split's result
 * inherits its parent's; MPI_ERRHANDLER_NULL: none to give) and an
 * attribute whose delete callback notices when the program frees c. what
 * names c in messages (copied); debug: say on stderr when the program
 * frees it. *h is set once, under a lock, so that threads handing out one
 * communicator together attach it once. */
int dmesh_handout_attach(dmesh_handout_t **h, MPI_Comm c, MPI_Errhandler eh, const char *what,
                         int debug);

/* Local: DMESH_ERR_ARG (fn names the call) when the program freed the
 * communicator of h with MPI_Comm_free; DMESH_SUCCESS otherwise, and for
 * h NULL (never handed out). */
int dmesh_handout_check(const dmesh_handout_t *h, const char *fn);

/* Local: whether the program freed the communicator of h (0 for NULL). */
static inline int dmesh_handout_freed(const dmesh_handout_t *h)
{
    return h != NULL && __atomic_load_n(&h->freed, __ATOMIC_ACQUIRE);
}

/* Local: around dmesh's own calls on a handed-out communicator c (the
 * bootstrap of a paired communicator after the program has it), so that
 * they return their errors instead of running the program's handler:
 * MPI_ERRORS_RETURN on c, then eh again. Nothing for h NULL. */
int dmesh_handout_own_begin(const dmesh_handout_t *h, MPI_Comm c);
int dmesh_handout_own_end(const dmesh_handout_t *h, MPI_Comm c, MPI_Errhandler eh);

/* Local: the end of c, owned by dmesh: freed unless the program freed it
 * already (then only forgotten), *c = MPI_COMM_NULL; h (may be NULL) goes. */
void dmesh_handout_free(dmesh_handout_t *h, MPI_Comm *c);

#endif /* DMESH_HANDOUT_H */
