/* SPDX-License-Identifier: BSD-3-Clause */
/* Copies in memory against a model, through the real calls, without fault
 * tolerance: every process runs the same pseudo-random sequence of events
 * made from a seed (stores, losses, shrinks, grows, restores, opens that
 * fail), each change on a new mesh of MPI_COMM_WORLD's processes, as
 * dmesh_respawn, dmesh_shrink and dmesh_grow make new meshes, and every
 * call is checked against a model of which owners' copies survive. A lost
 * process is stood in for as in test_copies: it frees its handle (and so
 * its copies) and zeroes its buffer; every process opens the name on the
 * new mesh and frees its old handle; the lost one registers its buffer
 * again and keeps its predecessor's place and state.
 *   test_copies_seq [SEEDS [FIRST]]   seeds FIRST .. FIRST+SEEDS-1 (1000 from
 *       1 at 4 ranks, 500 at 5 to 8), both schemes each, then regressions[];
 *       4 to 8 processes. A failed sequence prints its case as an entry of
 *       regressions[]. */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <mpi.h>

#include "dmesh.h"

#define MAXP 8                       /* processes */
#define MAXL 160                     /* owners of a sequence */
#define MAXEV 12                     /* events of a sequence */
#define MAXPL 12                     /* placements of a stored copy */
#define LEN(l) (50 + 37 * ((l) % 7)) /* doubles of owner l's buffer */
#define MAXLEN LEN(6)
#define NONE DMESH_COPIES_NONE

static int failures, me, np;
static char where[160];

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "test_copies_seq: rank %d: %s: ", me, where);                          \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

/* ---- the events ---------------------------------------------------------- */

enum { EV_STORE, EV_LOSE, EV_SHRINK, EV_GROW, EV_RESTORE, EV_FAILOPEN };
static const char kinds[] = "slxgrf"; /* an event's letter, by type */

typedef struct {
    int type;
    int n;           /* places lost or leaving; processes that join */
    int place[MAXP]; /* ascending */
    int dom;         /* lose: the lost processes' new domain, -1: theirs */
    int bad;         /* an open that fails comes first (one member's info) */
} event_t;

/* "s" store, "r" restore, "f" an open that fails, "l1,4" places 1 and 4
 * lost ("l1>9": their replacements in domain d9), "x6,7" places 6 and 7
 * leave, "g2" two processes join; "!": an open that fails first. */
static void event_text(const event_t *e, char *s, size_t len)
{
    int at = snprintf(s, len, "%c", kinds[e->type]);

    if (e->type == EV_GROW)
        at += snprintf(s + at, len - (size_t)at, "%d", e->n);
    for (int i = 0; (e->type == EV_LOSE || e->type == EV_SHRINK) && i < e->n; i++)
        at += snprintf(s + at, len - (size_t)at, "%s%d", i ? "," : "", e->place[i]);
    if (e->dom >= 0)
        at += snprintf(s + at, len - (size_t)at, ">%d", e->dom);
    if (e->bad)
        snprintf(s + at, len - (size_t)at, "!");
}

/* The events of text (event_text's form): how many. */
static int parse_events(const char *t, event_t *ev)
{
    int n = 0;

    while (*t != '\0' && n < MAXEV) {
        event_t *e = &ev[n++];
        char *end;
        memset(e, 0, sizeof(*e));
        e->type = (int)(strchr(kinds, *t++) - kinds);
        while (*t >= '0' && *t <= '9' && e->n < MAXP) {
            e->place[e->n++] = (int)strtol(t, &end, 10);
            t = *end == ',' ? end + 1 : end;
        }
        if (e->type == EV_GROW)
            e->n = e->place[0];
        e->dom = *t == '>' ? (int)strtol(t + 1, &end, 10) : -1;
        t = *t == '>' ? end : t;
        e->bad = *t == '!';
        t += e->bad;
        t += strspn(t, " ");
    }
    return n;
}

/* ---- the model (plain C: the same on every process) ---------------------- */

/* Each owner (a member's place's state) has its newest stored version and
 * whether its process still holds that copy; its placements are the
 * holders dmesh_copies_get_partners gave after a store, a restore, or an
 * open that placed the copies anew (every member holds its own copy and
 * the holders changed); a holder that lost its memory since is gone. A
 * lost copy surely comes back when its newest placement survives, maybe
 * when only an older one does (a holder keeps a copy until it holds
 * another), or an XOR set whose gone members had nothing stored. */

typedef struct {
    int nh; /* holders of something of a copy (world ranks) */
    int holder[MAXP];
    int gone[MAXP];  /* ... that lost their memory since */
    int empty[MAXP]; /* ... that had nothing stored of their own then */
} placement_t;

typedef struct {
    int stored; /* the version of its newest stored state, NONE */
    int own;    /* the process at its place holds that copy */
    int npl;    /* the placements that copy was held in since, newest last */
    placement_t pl[MAXPL];
} owner_t;

typedef struct {
    int np, parity, ndom;
    int n, rank[MAXP], owner[MAXP]; /* the members by place */
    int npool, pool[MAXP];          /* processes outside the mesh */
    int dom[MAXP];                  /* each process's failure domain */
    int next_owner, version;
    owner_t o[MAXL];
} model_t;

static int place_of(const model_t *m, int rank)
{
    for (int p = 0; p < m->n; p++)
        if (m->rank[p] == rank)
            return p;
    return -1;
}

static void model_init(model_t *m, int size, int parity, int ndom, int n0)
{
    memset(m, 0, sizeof(*m));
    m->np = size;
    m->parity = parity;
    m->ndom = ndom;
    for (int r = 0; r < size; r++) {
        m->dom[r] = r * ndom / size;
        if (r < n0) {
            m->rank[m->n] = r;
            m->owner[m->n++] = r;
        } else
            m->pool[m->npool++] = r;
    }
    for (int l = 0; l < MAXL; l++)
        m->o[l].stored = NONE;
    m->next_owner = n0;
}

/* Process rank loses its memory: its own copy and what it held. */
static void model_forget(model_t *m, int rank)
{
    int p = place_of(m, rank);

    for (int l = 0; l < m->next_owner; l++)
        for (int i = 0; i < m->o[l].npl; i++)
            for (int j = 0; j < m->o[l].pl[i].nh; j++)
                m->o[l].pl[i].gone[j] |= m->o[l].pl[i].holder[j] == rank;
    if (p >= 0)
        m->o[m->owner[p]].own = 0;
}

static void model_lose(model_t *m, const event_t *e)
{
    for (int i = 0; i < e->n; i++) {
        int r = m->rank[e->place[i]];
        model_forget(m, r);
        if (e->dom >= 0)
            m->dom[r] = e->dom;
    }
}

static void model_shrink(model_t *m, const event_t *e)
{
    int leave[MAXP] = {0}, keep = 0;

    model_lose(m, e);
    for (int i = 0; i < e->n; i++)
        leave[e->place[i]] = 1;
    for (int p = 0; p < m->n; p++)
        if (leave[p])
            m->pool[m->npool++] = m->rank[p];
        else {
            m->rank[keep] = m->rank[p];
            m->owner[keep++] = m->owner[p];
        }
    m->n = keep;
}

static void model_grow(model_t *m, int k)
{
    for (int i = 0; i < k; i++) {
        m->rank[m->n] = m->pool[i];
        m->owner[m->n++] = m->next_owner++;
    }
    m->npool -= k;
    memmove(m->pool, m->pool + k, (size_t)m->npool * sizeof(int));
}

/* After a store of version v, or a restore (v NONE): every member owner
 * with something stored holds its copy. */
static void model_stored(model_t *m, int v)
{
    for (int p = 0; p < m->n; p++) {
        owner_t *o = &m->o[m->owner[p]];
        o->stored = v != NONE ? v : o->stored;
        o->own = o->stored != NONE;
        o->npl = v != NONE ? 0 : o->npl; /* the older version's copies go */
    }
}

/* Whether owner l's holders (its newest placement) differ from ranks. */
static int model_differs(const model_t *m, int l, int nh, const int *ranks)
{
    const placement_t *q = m->o[l].npl > 0 ? &m->o[l].pl[m->o[l].npl - 1] : NULL;

    return q == NULL || q->nh != nh || memcmp(q->holder, ranks, nh * sizeof(int)) != 0;
}

/* Owner l's copy held again (made anew) at ranks: a new placement. The
 * older ones may still hold it (a holder keeps a copy until it holds
 * another). */
static void model_set_holders(model_t *m, int l, int nh, const int *ranks)
{
    owner_t *o = &m->o[l];
    int fresh = model_differs(m, l, nh, ranks);
    placement_t *q;

    if (fresh && o->npl == MAXPL) { /* the oldest forgotten: stricter */
        o->npl--;
        memmove(o->pl, o->pl + 1, (size_t)o->npl * sizeof(placement_t));
    }
    o->npl += fresh;
    q = &o->pl[o->npl - 1];
    q->nh = nh;
    for (int j = 0; j < nh; j++) {
        int h = place_of(m, ranks[j]);
        q->holder[j] = ranks[j];
        q->gone[j] = 0;
        q->empty[j] = h < 0 || m->o[m->owner[h]].stored == NONE;
    }
}

/* Whether owner l's copy survives in its placement i. partner: one holder
 * with its memory is enough; xor: every other member of the set is needed
 * (each keeps a part of the parity), but maybe (lenient) not one that had
 * nothing stored. */
static int model_survives(const model_t *m, int l, int i, int lenient)
{
    const placement_t *q = &m->o[l].pl[i];
    int gone = 0;

    for (int j = 0; j < q->nh; j++)
        gone += q->gone[j] && !(lenient && m->parity && q->empty[j]);
    return q->nh > 0 && (m->parity ? gone == 0 : gone < q->nh);
}

/* Whether every member owner with something stored gets it back: 2 surely
 * (its own copy, or its newest placement survives), 1 maybe (an older
 * placement survives, or one leniently), 0 not (DMESH_ERR_DATA_LOST). */
static int model_restorable(const model_t *m)
{
    int worst = 2;

    for (int p = 0; p < m->n; p++) {
        const owner_t *o = &m->o[m->owner[p]];
        int back = o->stored == NONE || o->own ? 2 : 0;
        for (int i = 0; i < o->npl && back < 2; i++)
            if (i == o->npl - 1 && model_survives(m, m->owner[p], i, 0))
                back = 2;
            else if (model_survives(m, m->owner[p], i, 1))
                back = 1;
        worst = back < worst ? back : worst;
    }
    return worst;
}

/* The places whose owner lost the copy it stored (into places, unless
 * NULL): how many. */
static int model_pending(const model_t *m, int *places)
{
    int k = 0, none[MAXP];

    places = places != NULL ? places : none;
    for (int p = 0; p < m->n; p++)
        if (m->o[m->owner[p]].stored != NONE && !m->o[m->owner[p]].own)
            places[k++] = p;
    return k;
}

/* ---- the events a seed makes (each valid for the model as it is) -------- */

static uint64_t next_u64(uint64_t *s) /* splitmix64 */
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static int pick(uint64_t *s, int n)
{
    return (int)(next_u64(s) % (uint64_t)n);
}

/* count of the places 0 .. n-1, ascending (selection sampling). */
static void random_places(uint64_t *s, int n, int count, event_t *e)
{
    for (int p = 0; p < n && e->n < count; p++)
        if (pick(s, n - p) < count - e->n)
            e->place[e->n++] = p;
}

/* A whole domain lost (when it is at most max places). */
static void lose_domain(const model_t *m, uint64_t *s, event_t *e, int max)
{
    int d = m->dom[m->rank[pick(s, m->n)]];

    for (int p = 0; p < m->n; p++)
        if (m->dom[m->rank[p]] == d)
            e->place[e->n++] = p;
    e->n = e->n <= max ? e->n : 0;
}

/* The holder of another's copy lost, sometimes with that owner. */
static void lose_holder(const model_t *m, uint64_t *s, event_t *e, int max)
{
    int p = pick(s, m->n), l = m->owner[p], q;
    const placement_t *h = m->o[l].npl > 0 ? &m->o[l].pl[m->o[l].npl - 1] : NULL;

    if (h == NULL || h->nh == 0 || (q = place_of(m, h->holder[pick(s, h->nh)])) < 0)
        return;
    e->place[e->n++] = q;
    if (max >= 2 && p != q && pick(s, 2))
        e->place[e->n++] = p;
}

static void gen_lose(const model_t *m, uint64_t *s, event_t *e)
{
    int how = pick(s, 3), max = m->n / 2;

    e->type = EV_LOSE;
    if (how == 1)
        lose_domain(m, s, e, max);
    else if (how == 2)
        lose_holder(m, s, e, max);
    if (e->n == 0)
        random_places(s, m->n, 1 + pick(s, max), e);
    if (pick(s, 3) == 0) { /* replacements on another host: another domain, or d9 */
        int d = pick(s, m->ndom + 1);
        e->dom = d == m->ndom || d == m->dom[m->rank[e->place[0]]] ? 9 : d;
    }
}

/* Members leave: 1 to n-2 of them, sometimes those that lost their copies
 * (a shrink after a failure). */
static int gen_shrink(const model_t *m, uint64_t *s, event_t *e)
{
    e->type = EV_SHRINK;
    e->n = pick(s, 2) ? model_pending(m, e->place) : 0;
    if (e->n == 0 && m->n >= 3)
        random_places(s, m->n, 1 + pick(s, m->n - 2), e);
    return e->n > 0 && e->n <= m->n - 2;
}

static void gen_event(const model_t *m, uint64_t *s, event_t *e, int first)
{
    int r = first && pick(s, 4) ? 0 : pick(s, 20); /* most sequences start with a store */
    event_t other = {r < 5 ? EV_STORE : r == 14 ? EV_FAILOPEN : EV_RESTORE, 0, {0}, -1, 0};

    *e = other;
    if (r >= 5 && r < 10)
        gen_lose(m, s, e);
    else if ((r == 10 || r == 11) && !gen_shrink(m, s, e))
        *e = other;
    else if ((r == 12 || r == 13) && m->npool > 0) {
        e->type = EV_GROW;
        e->n = 1 + pick(s, m->npool);
    }
    if (e->type == EV_LOSE || e->type == EV_SHRINK || e->type == EV_GROW)
        e->bad = pick(s, 8) == 0;
}

/* ---- the driver: the real calls on every process ------------------------- */

typedef struct {
    dmesh_t mesh;
    dmesh_copies_t h;
    const char *scheme; /* the case's */
    int k;
    char name[32]; /* of the copies: one per case */
    double buf[MAXLEN];
} driver_t;

/* The class if every process that takes part (part) returned the same;
 * else a failure and -1. Collective over the world. */
static int classes(int rc, int part)
{
    int in[2] = {part ? rc : INT_MAX, part ? -rc : INT_MAX}, out[2];

    MPI_Allreduce(in, out, 2, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    CHECK(rc != DMESH_ERR_INTERNAL, "DMESH_ERR_INTERNAL (%s)", dmesh_last_error());
    if (out[0] == INT_MAX)
        return rc;
    CHECK(out[0] == -out[1], "classes differ: %d to %d", out[0], -out[1]);
    return out[0] == -out[1] ? out[0] : -1;
}

/* Owner l's state at version v (v NONE: the scribble a restore must leave
 * untouched, negative where states are positive). */
static void state(double *b, int l, int v)
{
    for (int i = 0; i < LEN(l); i++)
        b[i] = v == NONE ? -1.0 - l - 0.5 * i : l * 1e6 + v * 1e3 + i + 0.125;
}

static void add_buf(driver_t *d, const model_t *m)
{
    int rc = dmesh_copies_add(d->h, 0, d->buf, LEN(m->owner[place_of(m, me)]), MPI_DOUBLE);

    CHECK(rc == DMESH_SUCCESS, "add: %d (%s)", rc, dmesh_last_error());
}

static int open_on(const driver_t *d, const model_t *m, dmesh_t mesh, int bad, dmesh_copies_t *h)
{
    char dom[16], k[16];
    MPI_Info info;
    int rc;

    snprintf(dom, sizeof(dom), "d%d", m->dom[me]);
    snprintf(k, sizeof(k), "%d", bad ? 1 : d->k); /* group 1: refused */
    MPI_Info_create(&info);
    MPI_Info_set(info, "dmesh_copies_scheme", d->scheme);
    MPI_Info_set(info, "dmesh_copies_domain", dom);
    if (m->parity || bad)
        MPI_Info_set(info, "dmesh_copies_group", k);
    rc = dmesh_copies_open(mesh, d->name, info, h);
    MPI_Info_free(&info);
    return rc;
}

/* Every member owner's holders, from its process (dmesh_copies_get_partners
 * is local): one allgather. After an open (open), the model takes them only
 * where they differ somewhere: the open placed the copies anew and made the
 * held ones again there. */
static void take_holders(const driver_t *d, model_t *m, int open)
{
    int mine[2 + MAXP] = {-1, 0}, all[MAXP][2 + MAXP], p = place_of(m, me), rc, differs = !open;

    if (p >= 0) {
        int some = m->o[m->owner[p]].stored != NONE; /* something to keep */
        mine[0] = m->owner[p];
        rc = dmesh_copies_get_partners(d->h, MAXP, mine + 2, &mine[1]);
        CHECK(rc == DMESH_SUCCESS && mine[1] >= some && mine[1] < m->n &&
                  (m->parity || mine[1] <= 1),
              "get_partners: %d, %d holders", rc, mine[1]);
        for (int j = 0; j < mine[1] && j < MAXP; j++)
            CHECK(mine[2 + j] != me && place_of(m, mine[2 + j]) >= 0, "holder %d", mine[2 + j]);
    }
    MPI_Allgather(mine, 2 + MAXP, MPI_INT, all, 2 + MAXP, MPI_INT, MPI_COMM_WORLD);
    for (int r = 0; r < m->np; r++)
        all[r][1] = all[r][1] < MAXP ? all[r][1] : MAXP;
    for (int r = 0; r < m->np; r++) /* owners with something stored tell */
        differs |= all[r][0] >= 0 && m->o[all[r][0]].stored != NONE &&
                   model_differs(m, all[r][0], all[r][1], all[r] + 2);
    for (int r = 0; r < m->np && differs; r++)
        if (all[r][0] >= 0)
            model_set_holders(m, all[r][0], all[r][1], all[r] + 2);
}

/* A new mesh of the model's members; every process opens the name on it
 * (after an open that fails first when bad: one member passes a group of
 * 1, and every process frees its old handle whatever the open returned, as
 * a repair loop does), then frees its old handle and the old mesh; the
 * holders taken again where the open placed the copies anew. */
static void remesh(driver_t *d, model_t *m, int bad)
{
    dmesh_t mesh = DMESH_NULL;
    dmesh_copies_t h = DMESH_COPIES_NULL;
    int rc = dmesh_create(MPI_COMM_WORLD, "cpu", 1, &m->n, m->rank, NULL, MPI_INFO_NULL, &mesh);

    CHECK(classes(rc, 1) == DMESH_SUCCESS, "dmesh_create: %d (%s)", rc, dmesh_last_error());
    if (bad) {
        rc = open_on(d, m, mesh, me == m->rank[m->n - 1], &h);
        CHECK(classes(rc, 1) > DMESH_SUCCESS && h == DMESH_COPIES_NULL,
              "the open with a group of 1 on one member: %d", rc);
        dmesh_copies_free(&h);
        dmesh_copies_free(&d->h);
    }
    rc = open_on(d, m, mesh, 0, &h);
    CHECK(classes(rc, 1) == DMESH_SUCCESS, "open: %d (%s)", rc, dmesh_last_error());
    dmesh_copies_free(&d->h);
    dmesh_free(&d->mesh);
    d->h = h;
    d->mesh = mesh;
    if (model_pending(m, NULL) == 0) /* every member holds its own copy */
        take_holders(d, m, 1);
}

static void ev_store(driver_t *d, model_t *m, const event_t *e)
{
    int v = ++m->version, p = place_of(m, me), rc;

    (void)e;
    if (p >= 0)
        state(d->buf, m->owner[p], v);
    rc = dmesh_copies_store(d->h, v);
    CHECK(classes(rc, p >= 0) == DMESH_SUCCESS && rc == DMESH_SUCCESS, "store %d: %d (%s)", v, rc,
          dmesh_last_error());
    model_stored(m, v);
    take_holders(d, m, 0);
}

static int among(const model_t *m, const event_t *e)
{
    for (int i = 0; i < e->n; i++)
        if (m->rank[e->place[i]] == me)
            return 1;
    return 0;
}

static void ev_lose(driver_t *d, model_t *m, const event_t *e)
{
    int lost = among(m, e);

    if (lost) {
        dmesh_copies_free(&d->h);
        memset(d->buf, 0, sizeof(d->buf));
    }
    model_lose(m, e);
    remesh(d, m, e->bad);
    if (lost)
        add_buf(d, m);
}

static void ev_shrink(driver_t *d, model_t *m, const event_t *e)
{
    if (among(m, e))
        dmesh_copies_free(&d->h);
    model_shrink(m, e);
    remesh(d, m, e->bad);
}

static void ev_grow(driver_t *d, model_t *m, const event_t *e)
{
    int p, was = place_of(m, me) >= 0;

    model_grow(m, e->n);
    remesh(d, m, e->bad);
    if (!was && (p = place_of(m, me)) >= 0) {
        state(d->buf, m->owner[p], NONE); /* a marker: never a state */
        add_buf(d, m);
    }
}

/* A restore: success and each member's owner's stored state back (a
 * member whose owner has nothing stored: DMESH_COPIES_NONE, its scribble
 * untouched), or DMESH_ERR_DATA_LOST and every scribble untouched; either
 * where only an older placement of a lost copy survives. */
static void ev_restore(driver_t *d, model_t *m, const event_t *e)
{
    int p = place_of(m, me), l = p >= 0 ? m->owner[p] : 0, ok = model_restorable(m), ver = -99;
    int rc, cls, back, v;
    double want[MAXLEN];

    (void)e;
    state(d->buf, l, NONE);
    rc = dmesh_copies_restore(d->h, &ver);
    cls = classes(rc, p >= 0);
    back = ok == 2 || (ok == 1 && cls == DMESH_SUCCESS); /* agreed: cls is */
    v = back ? m->o[l].stored : NONE;
    state(want, l, v);
    if (p < 0)
        CHECK(rc == DMESH_SUCCESS && ver == NONE, "restore outside the mesh: %d, %d", rc, ver);
    CHECK(p < 0 || cls == (back ? DMESH_SUCCESS : DMESH_ERR_DATA_LOST), "restore: %d, want %s (%s)",
          cls, (const char *[]){"data lost", "either", "success"}[ok], dmesh_last_error());
    CHECK(p < 0 || !back || ver == v, "owner %d restored version %d, want %d", l, ver, v);
    CHECK(p < 0 || memcmp(d->buf, want, (size_t)LEN(l) * sizeof(double)) == 0,
          "owner %d: buffer is not %s", l, v == NONE ? "untouched" : "its stored state");
    if (back) {
        model_stored(m, NONE);
        take_holders(d, m, 0);
    }
}

static void ev_failopen(driver_t *d, model_t *m, const event_t *e)
{
    (void)e;
    remesh(d, m, 1); /* the copies stay where they are */
}

static void (*const run_event[])(driver_t *, model_t *, const event_t *) = {
    ev_store, ev_lose, ev_shrink, ev_grow, ev_restore, ev_failopen};

/* ---- the cases ----------------------------------------------------------- */

typedef struct {
    int np;             /* the world size it needs */
    const char *scheme; /* partner, xor */
    int k, ndom, n0;    /* xor group, domains, first members (ranks 0 .. n0-1) */
    const char *events; /* event_text's form; NULL: from the seed */
} case_t;

/* The regressions: sequences that once failed (a failing seed prints its
 * case in this form). */
static const case_t regressions[] = {
    /* a replacement in another domain than its predecessor's: the XOR set
     * its parity was made for rebuilds it */
    {8, "xor", 4, 2, 8, "s l1>1 r"},
    {8, "xor", 4, 2, 8, "s l1>9 r"},
    {8, "xor", 4, 2, 8, "s l1>1 l5 r"},
    /* a grown process lost before its first store gets nothing back */
    {4, "partner", 0, 1, 3, "s g1 r l3 r"},
    {4, "xor", 4, 1, 3, "s g1 r l3 r"},
    /* XOR after a shrink (parities made again by the open), then a loss */
    {8, "xor", 4, 1, 8, "s x6,7 r l4 r"},
    {8, "xor", 4, 1, 8, "s x6,7 l4 r"},
    /* an open that fails in a repair, the old handles freed anyway */
    {8, "partner", 0, 2, 8, "s l2! r"},
    {8, "xor", 4, 2, 8, "s l2! r"},
    /* a shrink while a replacement had not restored: the restore left a set
     * of one (no holder), and a loss after it lost that member's state */
    {4, "xor", 3, 4, 4, "s r l1 x2 r l0 r"},
    {4, "xor", 2, 1, 4, "s r r l2>9 x0 r l0 r"},
    {8, "xor", 3, 2, 6, "s s l0,4 g1 x1,4,5,6 f l0 r"},
};

static void start(driver_t *d, model_t *m, const case_t *c)
{
    static int count;

    d->mesh = DMESH_NULL;
    d->h = DMESH_COPIES_NULL;
    d->scheme = c->scheme;
    d->k = c->k;
    snprintf(d->name, sizeof(d->name), "seq%d", count++); /* none left by a failed case */
    model_init(m, np, strcmp(c->scheme, "xor") == 0, c->ndom, c->n0);
    remesh(d, m, 0);
    if (place_of(m, me) >= 0) {
        memset(d->buf, 0, sizeof(d->buf));
        add_buf(d, m);
    }
}

/* One sequence: the case's events, or up to MAXEV made from rng as the
 * model goes; it stops at the first event a process failed. */
static void run_case(const case_t *c, uint64_t *rng, const char *label)
{
    static model_t m;
    static char text[MAXEV * 40], one[40];
    event_t ev[MAXEV];
    driver_t d;
    int n = c->events ? parse_events(c->events, ev) : 6 + pick(rng, MAXEV - 5), before = failures;
    int i, mine, bad = 0;

    snprintf(where, sizeof(where), "%s start", label);
    start(&d, &m, c);
    for (i = 0; i < n && !bad; i++) {
        if (c->events == NULL)
            gen_event(&m, rng, &ev[i], i == 0);
        event_text(&ev[i], one, sizeof(one));
        snprintf(where, sizeof(where), "%s event %d (%s)", label, i, one);
        run_event[ev[i].type](&d, &m, &ev[i]);
        mine = failures > before;
        MPI_Allreduce(&mine, &bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    }
    dmesh_copies_free(&d.h);
    dmesh_free(&d.mesh);
    if (!bad)
        return;
    failures += failures == before;
    text[0] = '\0';
    for (int j = 0; j < i; j++) {
        event_text(&ev[j], one, sizeof(one));
        snprintf(text + strlen(text), sizeof(text) - strlen(text), "%s%s", j ? " " : "", one);
    }
    if (me == 0)
        printf("test_copies_seq: %s failed at event %d: {%d, \"%s\", %d, %d, %d, \"%s\"}\n", label,
               i - 1, c->np, c->scheme, c->k, c->ndom, c->n0, text);
}

static void run_seed(int seed, int parity)
{
    uint64_t s = (uint64_t)seed;
    case_t c = {np, parity ? "xor" : "partner", 0, 0, 0, NULL};
    char label[64];

    c.ndom = 1 + pick(&s, 4);
    c.n0 = np / 2 + pick(&s, np / 2 + 1);
    c.k = parity ? 2 + pick(&s, 3) : 0;
    s ^= parity ? 0x5851f42d4c957f2dull : 0;
    snprintf(label, sizeof(label), "seed %d %s", seed, c.scheme);
    run_case(&c, &s, label);
}

int main(int argc, char **argv)
{
    int seeds, first, nreg = (int)(sizeof(regressions) / sizeof(regressions[0]));
    double t0;

    MPI_Init(&argc, &argv);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN); /* dmesh raises on it */
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &me);
    MPI_Comm_size(MPI_COMM_WORLD, &np);
    if (np < 4 || np > MAXP) {
        if (me == 0)
            printf("test_copies_seq: skipped: %d processes (it needs 4 to %d)\n", np, MAXP);
        MPI_Finalize();
        return 77;
    }
    seeds = argc > 1 ? atoi(argv[1]) : np <= 4 ? 1000 : 500;
    first = argc > 2 ? atoi(argv[2]) : 1;
    t0 = MPI_Wtime();
    for (int s = first; s < first + seeds; s++)
        for (int parity = 0; parity < 2; parity++)
            run_seed(s, parity);
    for (int i = 0; i < nreg; i++) {
        char label[32];
        uint64_t none = 0;
        snprintf(label, sizeof(label), "regression %d", i);
        if (regressions[i].np <= np)
            run_case(&regressions[i], &none, label);
    }
    if (me == 0)
        printf("test_copies_seq: %d seeds and %d regressions at %d ranks in %.1f s\n", seeds, nreg,
               np, MPI_Wtime() - t0);
    MPI_Finalize();
    if (failures == 0)
        printf("test_copies_seq: passed\n");
    return failures ? 1 : 0;
}
