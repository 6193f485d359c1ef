/* SPDX-License-Identifier: BSD-3-Clause */
/* The creation driver (create.h). */
#include "config.h"

#include "api_impl.h"

#include "create.h"
#include "error.h"
#include "universe_comms.h"

void dmesh_creation_begin(dmesh_creation_t *c, const dmesh_creation_ops_t *ops, const char *fn,
                          dmesh_universe_t *u, int check, void *call)
{
    c->ops = ops;
    c->fn = fn;
    c->u = u;
    c->creating = 1;
    c->over = MPI_COMM_NULL;
    c->call = call;
    dmesh_request_begin(&c->request, fn, check);
}

int dmesh_creation_run(dmesh_creation_t *c, int err)
{
    const dmesh_creation_ops_t *ops = c->ops;
    uint64_t hash;

    /* a binding that rejected its own arguments (raise.h) fails here */
    err = dmesh_error_reject_take(err);
    if (err != DMESH_SUCCESS && !c->request.check)
        return err; /* the check off: the others are trusted to fail alike */
    if (ops->join != NULL)
        err = ops->join(c, err);
    if (err == DMESH_SUCCESS && ops->reserve != NULL && (err = ops->reserve(c)) != DMESH_SUCCESS)
        c->creating = 1; /* a failed reservation counts as a miss: the others may create */
    if (c->request.check || c->creating) {
        hash = dmesh_request_hash(&c->request);
        if (ops->agree == NULL)
            c->over = dmesh_universe_comm(c->u);
        err = ops->agree != NULL ? ops->agree(c, hash, err)
                                 : dmesh_universe_agree(c->u, hash, err, c->fn);
        /* the same on every rank: which rank passed what (error path only) */
        if (err == DMESH_ERR_MISMATCH && c->over != MPI_COMM_NULL) {
            int rank = 0;
            MPI_Comm_rank(c->over, &rank);
            err = dmesh_error_agreed(dmesh_request_explain(c->over, &c->request, c->fn), rank == 0);
        }
    }
    if (err == DMESH_SUCCESS && ops->make != NULL)
        err = ops->make(c);
    if (err != DMESH_SUCCESS && ops->rollback != NULL)
        ops->rollback(c);
    return err;
}
