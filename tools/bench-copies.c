/* SPDX-License-Identifier: BSD-3-Clause */
/* dmesh-bench --copies: what the copies in memory cost, against the floor
 * of the same transfer written by hand, in one run (no failure needed):
 *   1. dmesh_copies_store of B bytes per process (one contiguous buffer,
 *      scheme partner) against the floor: one memcpy of the B bytes (the
 *      copy a process keeps) and MPI_Sendrecv of them to the holder from the
 *      owner (the partner dmesh_copies_get_partners names);
 *   2. a new process's restore: one member's copies go (it frees them and
 *      opens the name again, as a process that dmesh_respawn started does)
 *      and every process times dmesh_copies_restore: the member gets its B
 *      bytes from its holder and sends nothing it had, its owner sends it
 *      its copy again; against the floor: MPI_Sendrecv of B bytes with the
 *      same partners and one memcpy (into the buffers);
 *   3. the memory the copies hold per process, as a multiple of the
 *      registered bytes, between stores and at the peak of a store, for
 *      partner and for xor (group 4), from the sizes they keep, and apart
 *      the spares (lib/copies_mem.c), memory kept for the next version.
 * B is 16 MiB and 256 MiB (--copies-mib overrides: one size). The cases
 * alternate rep by rep; times are the slowest rank's, medians over reps,
 * and each rep's store against its floor on a line of its own. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "bench.h"
#include "copies.h"
#include "copies_mem.h"
#include "copies_scheme.h"

static double slowest(double t0, MPI_Comm comm)
{
    double t = MPI_Wtime() - t0, max = t;

    MPI_Allreduce(&t, &max, 1, MPI_DOUBLE, MPI_MAX, comm);
    return max;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

/* The median of v (left in its order: each rep is printed too). */
static double median(const double *v, int n)
{
    double *w = malloc((size_t)n * sizeof(*w)), m;

    if (w == NULL)
        return 0;
    memcpy(w, v, (size_t)n * sizeof(*w));
    qsort(w, (size_t)n, sizeof(*w), cmp_double);
    m = n % 2 ? w[n / 2] : (w[n / 2 - 1] + w[n / 2]) / 2;
    free(w);
    return m;
}

/* The floor: memcpy of n bytes and MPI_Sendrecv to to, from from. */
static double floor_once(MPI_Comm comm, char *data, char *keep, char *recv, size_t n, int to,
                         int from)
{
    double t0;

    MPI_Barrier(comm);
    t0 = MPI_Wtime();
    memcpy(keep, data, n);
    MPI_Sendrecv(data, (int)n, MPI_BYTE, to, 1, recv, (int)n, MPI_BYTE, from, 1, comm,
                 MPI_STATUS_IGNORE);
    return slowest(t0, comm);
}

/* The copies' memory per process in registered bytes: between stores
 * (its own copy and what it holds; apart, the spares kept for the next
 * version) and at the peak of a store (both versions, and the scheme's
 * working memory: under xor the m blocks of the parity's contributions). */
static void memory_of(dmesh_copies_t c, size_t bytes, double *between, double *spare, double *peak)
{
    const dmesh_copies_slot_t *s = &c->d->slot;

    *between = (double)(s->own_len + s->held_len) / (double)bytes;
    *spare = (double)dmesh_copies_spare_bytes() / (double)bytes;
    *peak = (double)(2 * (s->own_len + s->held_len)) / (double)bytes +
            (double)c->plan.scheme->store_scratch(c, s) / (double)bytes;
}

static void one_size(dmesh_t mesh, MPI_Comm comm, int rank, size_t bytes, int reps)
{
    char *data = malloc(bytes), *keep, *recv;
    double *fs = calloc(4 * (size_t)reps, sizeof(double)), *st = fs + reps, *fr = st + reps,
           *rs = fr + reps, between, spare, peak;
    dmesh_copies_t c = DMESH_COPIES_NULL, old;
    int holder = -1, n = 0, size, ver, x = 1, me, owner, kind = 0, domains = 0;
    struct rusage ru0, ru1;
    long faults;

    MPI_Comm_size(comm, &size);
    memset(data, rank + 1, bytes);
    dmesh_copies_open(mesh, "bench", MPI_INFO_NULL, &c);
    dmesh_copies_add(c, 0, data, (MPI_Count)bytes, MPI_BYTE);
    dmesh_copies_get_partners(c, 1, &holder, &n);
    me = c->me;
    owner = c->ranks[dmesh_copies_owner(&c->plan, me)];
    keep = malloc(bytes); /* the floor's buffers are touched once, before the reps */
    recv = malloc(bytes);
    memset(keep, 0, bytes);
    memset(recv, 0, bytes);
    getrusage(RUSAGE_SELF, &ru0);
    for (int r = 0; r < reps; r++) { /* stores: the steady state of a program */
        fs[r] = floor_once(comm, data, keep, recv, bytes, holder, owner);
        MPI_Barrier(comm);
        double t0 = MPI_Wtime();
        dmesh_copies_store(c, r + 1);
        st[r] = slowest(t0, comm);
    }
    getrusage(RUSAGE_SELF, &ru1);
    faults = (long)(ru1.ru_minflt - ru0.ru_minflt) + (long)(ru1.ru_majflt - ru0.ru_majflt);
    MPI_Reduce(rank == 0 ? MPI_IN_PLACE : &faults, &faults, 1, MPI_LONG, MPI_SUM, 0, comm);
    memory_of(c, bytes, &between, &spare, &peak);
    dmesh_copies_get_survival(c, &kind);
    kind = kind == DMESH_COPIES_SURVIVES_DOMAIN;
    MPI_Reduce(&kind, &domains, 1, MPI_INT, MPI_SUM, 0, comm);
    for (int r = 0; r < reps; r++) { /* a new process's restore, one per rep */
        fr[r] = floor_once(comm, data, keep, recv, bytes, owner, holder);
        double t0;
        old = c;
        if (rank == x)
            dmesh_copies_free(&c);
        dmesh_copies_open(mesh, "bench", MPI_INFO_NULL, &c);
        if (rank == x)
            dmesh_copies_add(c, 0, data, (MPI_Count)bytes, MPI_BYTE);
        else
            dmesh_copies_free(&old);
        MPI_Barrier(comm);
        t0 = MPI_Wtime();
        dmesh_copies_restore(c, &ver);
        rs[r] = slowest(t0, comm);
    }
    free(keep);
    free(recv);
    if (rank == 0) {
        double f1 = median(fs, reps), s1 = median(st, reps), f2 = median(fr, reps),
               r2 = median(rs, reps);
        printf("copies, %zu MiB per process, %d ranks, partner, %d reps (medians, slowest rank):\n",
               bytes >> 20, size, reps);
        printf("  store    %9.3f ms   floor (memcpy + MPI_Sendrecv) %9.3f ms   ratio %.2f%s\n",
               s1 * 1e3, f1 * 1e3, s1 / f1, s1 / f1 <= 1.25 ? "" : "  (goal <= 1.25)");
        printf("  restore  %9.3f ms   floor (MPI_Sendrecv + memcpy) %9.3f ms   ratio %.2f%s\n",
               r2 * 1e3, f2 * 1e3, r2 / f2, r2 / f2 <= 1.25 ? "" : "  (goal <= 1.25)");
        printf("  memory: partner %.2f x the registered bytes between stores (and %.2f x of "
               "spares kept for the next version), %.2f x at a store's peak\n",
               between, spare, peak);
        printf("  placement: the copies of %d of %d processes survive the loss of their node "
               "(dmesh_copies_get_survival)\n",
               domains, size);
        printf("  each store, ms (its floor, ratio):");
        for (int r = 0; r < reps; r++)
            printf(" %.1f (%.1f, %.2f)", st[r] * 1e3, fs[r] * 1e3, st[r] / fs[r]);
        printf("\n  page faults of the stores and floors, all ranks: %ld (%.2f per 4 KiB "
               "stored)\n",
               faults, (double)faults / ((double)reps * (double)size * (double)(bytes >> 12)));
    }
    dmesh_copies_free(&c);
    /* xor: memory only (one store) */
    {
        MPI_Info info;
        MPI_Info_create(&info);
        MPI_Info_set(info, "dmesh_copies_scheme", "xor");
        MPI_Info_set(info, "dmesh_copies_group", "4");
        dmesh_copies_open(mesh, "bench-xor", info, &c);
        MPI_Info_free(&info);
        dmesh_copies_add(c, 0, data, (MPI_Count)bytes, MPI_BYTE);
        MPI_Barrier(comm);
        double t0 = MPI_Wtime(), t;
        dmesh_copies_store(c, 1);
        t = slowest(t0, comm);
        memory_of(c, bytes, &between, &spare, &peak);
        if (rank == 0)
            printf("  memory: xor (group 4) %.2f x between stores (and %.2f x of spares), "
                   "%.2f x at a store's peak; one store %.3f ms\n",
                   between, spare, peak, t * 1e3);
        dmesh_copies_free(&c);
    }
    free(fs);
    free(data);
}

int bench_copies(const bench_args_t *a, MPI_Comm comm, int rank)
{
    dmesh_t mesh = DMESH_NULL;
    int size, reps = a->reps > 0 && a->reps < 1000 ? a->reps : 5;

    MPI_Comm_size(comm, &size);
    if (dmesh_init(comm, "cpu", 1, &size, NULL, MPI_INFO_NULL, &mesh) != DMESH_SUCCESS) {
        if (rank == 0)
            fprintf(stderr, "dmesh-bench --copies: dmesh_init: %s\n", dmesh_last_error());
        return 1;
    }
    if (a->copies_mib > 0)
        one_size(mesh, comm, rank, (size_t)a->copies_mib << 20, reps);
    else {
        one_size(mesh, comm, rank, (size_t)16 << 20, reps);
        one_size(mesh, comm, rank, (size_t)256 << 20, reps > 3 ? 3 : reps);
    }
    dmesh_free(&mesh);
    return 0;
}
