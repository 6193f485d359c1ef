/* SPDX-License-Identifier: BSD-3-Clause */
/* Fault tolerance (lib/ft/): owns the parents' spawn of meshes that come
 * back whole, which dmesh_respawn (respawn.c) and dmesh_grow (grow.c)
 * share (spawn.h); the new processes' side, dmesh_join, is join.c's.
 *
 * The parents (the survivors of a universe for a respawn, its processes
 * for a grow) start the new processes with MPI_Comm_spawn and send them,
 * from their rank 0, one message (join_message.h: a magic number, a
 * version, the reason, each new process's rank, the mesh as
 * dmesh_serialize's text and the dmesh_ info keys), packed before the
 * spawn is agreed. Once a new process has it, both sides always merge
 * (MPI_Intercomm_merge) and agree on the outcome over the
 * intercommunicator, so that no side waits in a merge the other side left;
 * a spawn that failed sends a message that cancels instead. The merged
 * communicator is split into the old order (each new process at its rank),
 * and the mesh is made on it by dmesh_deserialize on both sides, from the
 * same text and the same keys (join_merge.c: what both sides do alike).
 *
 * Every step that can fail on some processes only is followed by an
 * agreement: over the parents (dmesh_agree), over both sides on the
 * spawn's intercommunicator (dmesh_agree_both), or over the new
 * communicator. The communicators that hold processes of two launches and
 * are not handed out (the intercommunicator, the merged one) are freed
 * before returning: Open MPI disconnects those left at MPI_Finalize from
 * every peer, which fails (and crashes) for a peer it never talked to. */
#include "config.h"

#include "api_impl.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agree.h"
#include "error.h"
#include "fault.h"
#include "ft/join_merge.h"
#include "ft/join_message.h"
#include "ft/program.h"
#include "ft/spawn.h"
#include "options.h"
#include "ulfm.h"

#define SPAWN_HINT                                                                                 \
    "(the launcher needs free slots: give more with Open MPI's --map-by :oversubscribe (5, 6) "    \
    "or --oversubscribe (4), or hosts through the info keys host / add-hostfile)"

/* MPI_Comm_spawn_multiple's arguments: one command per host that gets new
 * processes, each with the call's info and that host. */
typedef struct {
    int m;
    char **cmds;
    char ***argvs;
    int *n;
    MPI_Info *infos;
} spawn_hosts_t;

int dmesh_spawn_text(dmesh_t mesh, char **out)
{
    size_t need = 0;
    char *t;

    DMESH_TRY(dmesh_serialize_impl(mesh, NULL, 0, &need));
    if ((t = DMESH_FAULT_MALLOC(need + 1)) == NULL)
        return dmesh_error_set(DMESH_ERR_NOMEM, "the mesh's text: out of memory");
    DMESH_TRY(dmesh_serialize_impl(mesh, t, need + 1, NULL));
    *out = t;
    return DMESH_SUCCESS;
}

/* The class of MPI_Comm_spawn's outcome. */
static int spawn_error(const char *fn, int rc, int n, const int codes[], const char *cmd)
{
    int i, bad = MPI_SUCCESS;

    for (i = 0; rc == MPI_SUCCESS && i < n && bad == MPI_SUCCESS; i++)
        bad = codes[i];
    if (rc == MPI_SUCCESS && bad == MPI_SUCCESS)
        return DMESH_SUCCESS;
    if (rc != MPI_SUCCESS && dmesh_ulfm_is_failure(rc))
        return dmesh_error_mpi(rc, "MPI_Comm_spawn");
    {
        char msg[MPI_MAX_ERROR_STRING];
        int len = 0;
        if (MPI_Error_string(rc != MPI_SUCCESS ? rc : bad, msg, &len) != MPI_SUCCESS)
            snprintf(msg, sizeof(msg), "MPI error %d", rc != MPI_SUCCESS ? rc : bad);
        return dmesh_error_set(DMESH_ERR_SPAWN,
                               "%s: MPI_Comm_spawn of %d process%s of \"%s\": %s %s", fn, n,
                               n == 1 ? "" : "es", cmd, msg, SPAWN_HINT);
    }
}

/* The bound on the parents' merge: the call's dmesh_timeout, or the
 * new processes' default wait. */
static double merge_bound(MPI_Info info)
{
    double t = 0;

    if (dmesh_options_timeout(info, &t) != DMESH_SUCCESS || t <= 0)
        t = DMESH_JOIN_WAIT_DEFAULT;
    return t;
}

/* Rank 0 of the parents sends the message to every new process at once
 * (MPI_Isend each, then one wait), so that a slow process holds up none of
 * the others; each gets it whatever happened to the others' (a process
 * that got it merges). The first failure is returned. */
static int send_plan(MPI_Comm ic, int nnewcomers, const char *buf, int len)
{
    MPI_Request *req = DMESH_FAULT_MALLOC((size_t)nnewcomers * sizeof(MPI_Request));
    int i, rc, err = DMESH_SUCCESS;

    if (req == NULL) { /* one after the other, then */
        for (i = 0; i < nnewcomers; i++)
            if ((rc = MPI_Send(buf, len, MPI_BYTE, i, DMESH_JOIN_TAG, ic)) != MPI_SUCCESS &&
                err == DMESH_SUCCESS)
                err = dmesh_error_mpi(rc, "sending the new processes their plan");
        return err;
    }
    for (i = 0; i < nnewcomers; i++)
        if ((rc = MPI_Isend(buf, len, MPI_BYTE, i, DMESH_JOIN_TAG, ic, &req[i])) != MPI_SUCCESS) {
            req[i] = MPI_REQUEST_NULL;
            if (err == DMESH_SUCCESS)
                err = dmesh_error_mpi(rc, "sending the new processes their plan");
        }
    if ((rc = MPI_Waitall(nnewcomers, req, MPI_STATUSES_IGNORE)) != MPI_SUCCESS &&
        err == DMESH_SUCCESS)
        err = dmesh_error_mpi(rc, "sending the new processes their plan");
    free(req);
    return err;
}

static void hosts_free(spawn_hosts_t *a)
{
    for (int i = 0; a->infos != NULL && i < a->m; i++)
        if (a->infos[i] != MPI_INFO_NULL)
            MPI_Info_free(&a->infos[i]);
    free(a->cmds);
    free(a->argvs);
    free(a->n);
    free(a->infos);
    memset(a, 0, sizeof(*a));
}

/* Whether the MPI's host key carries a count: Open MPI reads it as its
 * launcher's --host, where "h" is one slot and "h:N" is N (measured with
 * Open MPI 5.0.7: two processes with host "h3" are refused for want of
 * slots, with "h3:2" both start on h3). MPICH's is a host name. */
static int host_key_counts(void)
{
    char v[MPI_MAX_LIBRARY_VERSION_STRING];
    int len = 0;

    return MPI_Get_library_version(v, &len) == MPI_SUCCESS && strstr(v, "Open MPI") != NULL;
}

/* The arguments of MPI_Comm_spawn_multiple for w (prog's command and
 * arguments on every host; info's keys and the host key in each info). */
static int hosts_args(const char *fn, const dmesh_program_t *prog, MPI_Info info,
                      const dmesh_spawn_where_t *w, spawn_hosts_t *a)
{
    char val[MPI_MAX_INFO_VAL + 16]; /* a name and ":count" */
    const char *name = w->names;
    int h, rc = MPI_SUCCESS, counts = host_key_counts();

    memset(a, 0, sizeof(*a));
    a->cmds = DMESH_FAULT_MALLOC((size_t)w->nhosts * sizeof(char *));
    a->argvs = DMESH_FAULT_MALLOC((size_t)w->nhosts * sizeof(char **));
    a->n = DMESH_FAULT_MALLOC((size_t)w->nhosts * sizeof(int));
    a->infos = calloc((size_t)w->nhosts, sizeof(MPI_Info));
    if (a->cmds == NULL || a->argvs == NULL || a->n == NULL || a->infos == NULL) {
        hosts_free(a);
        return dmesh_error_set(DMESH_ERR_NOMEM, "%s: out of memory", fn);
    }
    for (h = 0; h < w->nhosts && rc == MPI_SUCCESS; h++, name += strlen(name) + 1) {
        if (w->count[h] == 0)
            continue;
        a->cmds[a->m] = prog->cmd;
        a->argvs[a->m] = prog->args;
        a->n[a->m] = w->count[h];
        a->infos[a->m] = MPI_INFO_NULL;
        rc = info != MPI_INFO_NULL ? MPI_Info_dup(info, &a->infos[a->m])
                                   : MPI_Info_create(&a->infos[a->m]);
        if (rc != MPI_SUCCESS)
            break;
        if (counts)
            snprintf(val, sizeof(val), "%s:%d", name, w->count[h]);
        else
            snprintf(val, sizeof(val), "%s", name);
        a->m++;
        rc = MPI_Info_set(a->infos[a->m - 1], "host", val);
    }
    if (rc != MPI_SUCCESS) {
        hosts_free(a);
        return dmesh_error_mpi(rc, "dmesh_respawn: the info of a host (MPI_Info_dup, _set)");
    }
    return DMESH_SUCCESS;
}

/* Start nnewcomers processes: where w says (MPI_Comm_spawn_multiple, a's
 * arguments), else with MPI_Comm_spawn. */
static int spawn_where(const dmesh_program_t *prog, MPI_Info info, int nnewcomers,
                       const spawn_hosts_t *a, MPI_Comm comm, MPI_Comm *ic, int codes[])
{
    if (a->m == 0)
        return MPI_Comm_spawn(prog->cmd, prog->args, nnewcomers, info, 0, comm, ic, codes);
    return MPI_Comm_spawn_multiple(a->m, a->cmds,
                                   prog->args == MPI_ARGV_NULL ? MPI_ARGVS_NULL : a->argvs, a->n,
                                   a->infos, 0, comm, ic, codes);
}

/* The parents' pieces of one spawn, made before it is agreed. */
typedef struct {
    dmesh_program_t prog;
    spawn_hosts_t hosts;
    int *codes; /* per new process, MPI_Comm_spawn's error code */
    char *plan; /* rank 0: the parents' message, packed; len bytes */
    int len;
} spawn_call_t;

/* Local: the pieces of the spawn in s (which it clears first), the
 * message packed on rank 0 only; the first failure's class. */
static int prepare_spawn(const char *fn, const char *command, char *const argv[], MPI_Info info,
                         const dmesh_spawn_where_t *w, const dmesh_join_message_t *p, int rank,
                         spawn_call_t *s)
{
    int err;

    memset(s, 0, sizeof(*s));
    s->codes = DMESH_FAULT_MALLOC((size_t)p->nnewcomers * sizeof(int));
    err = s->codes == NULL ? dmesh_error_set(DMESH_ERR_NOMEM, "%s: out of memory", fn)
                           : dmesh_program(fn, command, argv, info, &s->prog);
    if (err == DMESH_SUCCESS && w != NULL && w->nhosts > 0)
        err = hosts_args(fn, &s->prog, info, w, &s->hosts);
    if (err == DMESH_SUCCESS && rank == 0)
        err = dmesh_join_pack(p, &s->plan, &s->len);
    return err;
}

/* Start the new processes, then agree on the outcome over the parents
 * (comm); *ic: the spawn's intercommunicator wherever this parent got
 * one, even where the spawn failed elsewhere. */
static int start_newcomers(MPI_Comm comm, const char *fn, MPI_Info info, int nnewcomers,
                           spawn_call_t *s, MPI_Comm *ic)
{
    int i, rc, err;

    for (i = 0; i < nnewcomers; i++)
        s->codes[i] = MPI_SUCCESS;
    rc = spawn_where(&s->prog, info, nnewcomers, &s->hosts, comm, ic, s->codes);
    err = spawn_error(fn, rc, nnewcomers, s->codes, s->prog.cmd);
    if (*ic != MPI_COMM_NULL)
        MPI_Comm_set_errhandler(*ic, MPI_ERRORS_RETURN);
    return dmesh_agree_outcome(comm, err, fn);
}

/* What the spawn itself needed (all of s but the packed message). */
static void spawn_call_free(spawn_call_t *s)
{
    hosts_free(&s->hosts);
    dmesh_program_free(&s->prog);
    free(s->codes);
}

/* Rank 0, where processes started but the spawn failed elsewhere: tell
 * them (best effort; without it they give up after dmesh_timeout). */
static void send_cancel(MPI_Comm ic, const dmesh_join_message_t *p, int err)
{
    dmesh_join_message_t c = *p; /* the plan, its status the failure */
    char *cancel = NULL;
    int n = 0;

    c.status = err;
    if (dmesh_join_pack(&c, &cancel, &n) == DMESH_SUCCESS)
        send_plan(ic, p->nnewcomers, cancel, n);
    free(cancel);
}

int dmesh_spawn_join(MPI_Comm comm, const char *fn, const char *command, char *const argv[],
                     MPI_Info info, const dmesh_spawn_where_t *w, const dmesh_join_message_t *p,
                     int key, MPI_Comm *newcomm)
{
    MPI_Comm ic = MPI_COMM_NULL;
    spawn_call_t s;
    int rank = 0, err, sent = DMESH_SUCCESS;

    MPI_Comm_rank(comm, &rank);
    err = prepare_spawn(fn, command, argv, info, w, p, rank, &s);
    err = dmesh_agree_outcome(comm, err, fn);
    if (err == DMESH_SUCCESS)
        err = start_newcomers(comm, fn, info, p->nnewcomers, &s, &ic);
    spawn_call_free(&s);
    if (ic != MPI_COMM_NULL && err != DMESH_SUCCESS && rank == 0)
        send_cancel(ic, p, err);
    if (ic != MPI_COMM_NULL && err == DMESH_SUCCESS) {
        if (rank == 0)
            sent = send_plan(ic, p->nnewcomers, s.plan, s.len);
        err = dmesh_join_merge(ic, 0, key, sent, fn, merge_bound(info), newcomm);
    }
    free(s.plan);
    if (ic != MPI_COMM_NULL)
        dmesh_join_leave(&ic);
    return err;
}
