/* SPDX-License-Identifier: BSD-3-Clause */
/* A model-based test of the copies' plan code (pure, every build): seeded
 * random sequences of up to 12 events (a store; the loss of processes, one,
 * a domain, a holder, some moved to another domain as a replacement that
 * lands elsewhere; a shrink; a grow; a restore) on meshes of 2 to 16
 * members in 1 to 4 failure domains, both schemes, run through the
 * library's pure calls as an open, a store and a restore run them
 * (dmesh_copies_adopt, dmesh_copies_place_open, the schemes' placement,
 * dmesh_copies_plan_restore), against a reference model of what a restore
 * must give back.
 *
 * The simulation keeps, for every process, what its memory holds as the
 * library keeps it (identity, own copy, held copy or parity with the
 * identity it serves, the table of its last open), and besides, the truth
 * the records do not say: whose state each held copy carries, which
 * processes made each parity together, and whether it was made from every
 * member's own copy. The reference model says, from that truth alone,
 * which owners' states survive: an owner's state survives while its own
 * process keeps it, or a process keeps a partner copy of it, or every
 * other maker of a parity that covers it keeps its part. A restore must
 * then give every member its own newest stored state (or nothing to a
 * member that never had one) where every state survives, and
 * DMESH_ERR_DATA_LOST exactly where one does not; never another's state,
 * never a copy or parity that does not hold it.
 *
 *   test_copies_model [SEQUENCES [FIRST]]   (default 20000 from seed 1: 0.2 s;
 *   a million passed, seeds 1 to 1000000) */
#include "config.h"

#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "copies_plan.h"
#include "copies_scheme.h"
#include "dmesh.h"

#define MAXP 24   /* processes: members and a pool for grows */
#define MAXE 12   /* events a sequence */
#define NONE (-1) /* DMESH_COPIES_NONE */

enum { EV_STORE, EV_LOSE, EV_SHRINK, EV_GROW, EV_RESTORE, EV_COUNT };

/* A held item: what the records say, and the truth behind it. */
typedef struct {
    int64_t v; /* NONE: nothing held */
    uint64_t held_for;
    size_t len;
    int group; /* partner: -1; xor: the parity's group */
    int owner; /* partner: the owner (logical) whose state it is */
    int valid; /* made from the owner's own copy (every maker's, for a parity) */
} held_t;

typedef struct {
    uint64_t id;
    int born, owner; /* owner: the logical owner at this place */
    uint64_t domain;
    int64_t own; /* the version of its own copy, NONE */
    held_t held;
    uint64_t *table; /* 3 rows of table_n, NULL */
    int table_n;
    int64_t epoch;
} proc_t;

/* A parity's makers (processes, their owners) and whether each had its own copy. */
typedef struct {
    int n, proc[DMESH_COPIES_MAX_GROUP > MAXP ? MAXP : DMESH_COPIES_MAX_GROUP];
    int owner[MAXP], had[MAXP];
} group_t;

typedef struct {
    uint64_t rng;
    const dmesh_copies_scheme_t *scheme;
    int k, np, n, mem[MAXP]; /* members: processes in mesh order */
    proc_t p[MAXP];
    dmesh_copies_plan_t plan, next;
    int64_t stored[4 * MAXP]; /* by logical owner: its newest stored version */
    uint64_t placed[MAXP];    /* the domains the plan was made with (copies.c's) */
    int owners, groups;
    group_t *group;
    int ngroups, capgroups;
    uint64_t drawn;
    char log[512];
} sim_t;

static uint64_t next_u64(sim_t *s)
{
    uint64_t z = (s->rng += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static int pick(sim_t *s, int n)
{
    return (int)(next_u64(s) % (uint64_t)n);
}

static void note(sim_t *s, const char *what)
{
    size_t l = strlen(s->log);
    snprintf(s->log + l, sizeof(s->log) - l, "%s%s", l ? " " : "", what);
}

static size_t len_of(int owner)
{
    return 40 + 24 * (size_t)(owner % 5);
}

/* ---- the library's steps, simulated ---------------------------------------- */

static void plan_template(sim_t *s, dmesh_copies_plan_t *t)
{
    memset(t, 0, sizeof(*t));
    t->ndims = 1;
    t->shape[0] = s->n;
    t->n = s->n;
    t->dim = DMESH_COPIES_DIM_DEFAULT;
    t->scheme = s->scheme;
    t->k = s->k;
}

static int new_group(sim_t *s)
{
    if (s->ngroups == s->capgroups) {
        s->capgroups = s->capgroups ? 2 * s->capgroups : 64;
        s->group = realloc(s->group, (size_t)s->capgroups * sizeof(group_t));
        ck_assert_ptr_nonnull(s->group);
    }
    return s->ngroups++;
}

/* The held items of every member made under the plan for version v, from
 * the own copies (a member without one gives an empty copy): a store, an
 * open's remake, a restore's refresh of the members in mark[] (NULL: all). */
static void make_held(sim_t *s, int64_t v, const int *mark)
{
    uint64_t ids[MAXP];
    int gid[MAXP];

    for (int r = 0; r < s->n; r++) {
        ids[r] = s->p[s->mem[r]].id;
        gid[r] = -1;
    }
    for (int r = 0; r < s->n; r++) {
        proc_t *x = &s->p[s->mem[r]];
        if (mark != NULL && !mark[r])
            continue;
        if (s->scheme == &dmesh_copies_partner) {
            int o = dmesh_copies_owner(&s->plan, r);
            proc_t *y = &s->p[s->mem[o]];
            x->held =
                (held_t){o == r ? NONE : v, ids[o],     y->own == v ? len_of(y->owner) : 0, -1,
                         y->owner,          y->own == v};
        } else {
            const int *m;
            int sz, pos;
            size_t longest = 0;
            dmesh_copies_set(&s->plan, r, &m, &sz, &pos);
            if (gid[m[0]] < 0) { /* the set's parity, once */
                group_t *g;
                gid[m[0]] = new_group(s);
                g = &s->group[gid[m[0]]];
                g->n = sz;
                for (int i = 0; i < sz; i++) {
                    proc_t *y = &s->p[s->mem[m[i]]];
                    g->proc[i] = s->mem[m[i]];
                    g->owner[i] = y->owner;
                    g->had[i] = y->own == v || s->stored[y->owner] == NONE;
                }
            }
            for (int i = 0; i < sz; i++)
                if (s->p[s->mem[m[i]]].own == v && len_of(s->p[s->mem[m[i]]].owner) > longest)
                    longest = len_of(s->p[s->mem[m[i]]].owner);
            x->held = (held_t){sz < 2 ? NONE : v,
                               dmesh_copies_set_sign(&s->plan, ids, r),
                               dmesh_copies_chunk_size(longest, sz),
                               gid[m[0]],
                               -1,
                               1};
        }
    }
}

/* The newest table of the members (its member, -1: none), as an open
 * finds it, and the newest version. */
static int newest_table(sim_t *s, int64_t *epoch, int64_t *newest)
{
    int root = -1;

    *epoch = 0;
    *newest = NONE;
    for (int r = 0; r < s->n; r++) {
        proc_t *x = &s->p[s->mem[r]];
        if (x->table != NULL && (root < 0 || x->epoch > *epoch)) {
            root = r;
            *epoch = x->epoch;
        }
        if (x->own > *newest)
            *newest = x->own;
        if (x->held.v > *newest)
            *newest = x->held.v;
    }
    return root;
}

static void dump(const sim_t *s, const int *src);

/* Redundancy whole (after a store, a restore, or an open where every
 * member holds its own copy): every member's state at v is held again
 * under the plan: by its holder, or by its set's parity made by exactly
 * its set. */
static void check_whole(const sim_t *s, int64_t v, const char *after)
{
    for (int r = 0; r < s->n; r++) {
        const proc_t *x = &s->p[s->mem[r]];
        if (s->stored[x->owner] == NONE)
            continue; /* nothing to keep */
        if (s->scheme == &dmesh_copies_partner) {
            int h = dmesh_copies_holder(&s->plan, r);
            const held_t *y = &s->p[s->mem[h]].held;
            ck_assert_msg(h == r || (y->owner == x->owner && y->valid && y->v == v),
                          "%s: after %s member %d's copy is not held by its holder %d", s->log,
                          after, r, h);
        } else {
            const int *m;
            int sz, pos, g = x->held.group;
            dmesh_copies_set(&s->plan, r, &m, &sz, &pos);
            ck_assert_msg(sz > 1 || s->n < 2, "%s: after %s member %d is a set of one", s->log,
                          after, r);
            if (sz < 2)
                continue;
            ck_assert_msg(g >= 0 && s->group[g].n == sz && x->held.v == v,
                          "%s: after %s member %d holds no parity of its set", s->log, after, r);
            for (int i = 0; i < sz; i++)
                ck_assert_msg(
                    s->group[g].proc[i] == s->mem[m[i]] && s->p[s->mem[m[i]]].held.group == g,
                    "%s: after %s member %d's set %d is not its parity's", s->log, after, r, i);
        }
    }
}

/* dmesh_copies_open on the members, as copies.c runs it. */
static void open_all(sim_t *s)
{
    uint64_t ids[MAXP], drawn[MAXP], dom[MAXP], nothing[MAXP], *table = NULL;
    int born[MAXP] = {0}, root, all_own = 1, remake, kept_was, n = s->n, tn = 0;
    int64_t held[MAXP];
    uint64_t held_for[MAXP];
    int64_t epoch, newest;
    dmesh_copies_plan_t t;

    root = newest_table(s, &epoch, &newest);
    if (root >= 0) { /* the broadcast's copy */
        tn = s->p[s->mem[root]].table_n;
        table = malloc(DMESH_COPIES_TABLE_ROWS * (size_t)tn * sizeof(uint64_t));
        ck_assert_ptr_nonnull(table);
        memcpy(table, s->p[s->mem[root]].table,
               DMESH_COPIES_TABLE_ROWS * (size_t)tn * sizeof(uint64_t));
    }
    for (int r = 0; r < n; r++) {
        ids[r] = s->p[s->mem[r]].id;
        drawn[r] = ++s->drawn * 0x9e3779b97f4a7c15ull | 1;
        dom[r] = s->p[s->mem[r]].domain;
    }
    ck_assert_int_eq(dmesh_copies_adopt(n, ids, drawn, tn == n ? table : NULL,
                                        tn == n ? table + 2 * n : NULL, tn == n ? n : 0, born),
                     DMESH_SUCCESS);
    for (int r = 0; r < n; r++) {
        proc_t *x = &s->p[s->mem[r]];
        nothing[r] = x->id != 0 ? (uint64_t)(x->born && x->own == NONE) : (uint64_t)born[r];
        if (!nothing[r] && (x->id == 0 || x->own != newest))
            all_own = 0;
    }
    plan_template(s, &t);
    dmesh_copies_plan_free(&s->plan);
    dmesh_copies_plan_free(&s->next);
    s->plan = t;
    for (int r = 0; r < n; r++) {
        held[r] = s->p[s->mem[r]].held.v;
        held_for[r] = s->p[s->mem[r]].held.held_for;
    }
    ck_assert_int_eq(dmesh_copies_place_open(&s->plan, &s->next, dom, ids, table, tn, held, newest,
                                             all_own, &remake, &kept_was),
                     DMESH_SUCCESS);
    for (int r = 0; r < n; r++)
        s->placed[r] = kept_was ? table[tn + r] : dom[r];
    for (int r = 0; r < n; r++) { /* attach */
        proc_t *x = &s->p[s->mem[r]];
        uint64_t *nt = malloc(DMESH_COPIES_TABLE_ROWS * (size_t)n * sizeof(uint64_t));
        ck_assert_ptr_nonnull(nt);
        dmesh_copies_table_rows(&s->plan, ids, s->placed, nt);
        if (!remake)
            dmesh_copies_table_signs(&s->plan, ids, held_for, nt);
        memcpy(nt + 2 * n, nothing, (size_t)n * sizeof(uint64_t));
        if (x->id == 0)
            x->born = born[r];
        x->id = ids[r];
        x->epoch = epoch + 1;
        x->table_n = n;
        free(x->table);
        x->table = nt;
    }
    free(table);
    if (remake)
        make_held(s, newest, NULL);
    if (all_own && newest != NONE)
        check_whole(s, newest, "an open where every member holds its own copy");
    if (getenv("DMESH_TEST_MODEL_DUMP") != NULL) {
        printf("open: remake %d kept_was %d next %d all_own %d tn %d\n", remake, kept_was,
               s->next.n, all_own, tn);
        dump(s, NULL);
    }
}

/* ---- the reference model -------------------------------------------------- */

/* Whether the parity group g can rebuild owner o at version v: every other
 * maker still holds its part of g (and its own copy, or had none). */
static int group_rebuilds(const sim_t *s, int g, int o, int64_t v)
{
    const group_t *gr = &s->group[g];
    int covers = 0;

    for (int i = 0; i < gr->n; i++) {
        const proc_t *q = &s->p[gr->proc[i]];
        if (gr->owner[i] == o) {
            covers = 1;
            continue;
        }
        if (!gr->had[i] || q->held.group != g || q->held.v != v ||
            (q->own != v && s->stored[q->owner] != NONE))
            return 0;
    }
    return covers;
}

/* Whether owner o's stored state (version v) survives anywhere. */
static int survives(const sim_t *s, int o, int64_t v)
{
    for (int i = 0; i < s->np; i++) {
        const proc_t *q = &s->p[i];
        if (q->owner == o && q->own == v && q->id != 0)
            return 1;
        if (q->held.v == v && q->held.valid && q->held.group < 0 && q->held.owner == o)
            return 1;
        if (q->held.v == v && q->held.group >= 0 && group_rebuilds(s, q->held.group, o, v))
            return 1;
    }
    return 0;
}

/* ---- events ----------------------------------------------------------------- */

static int64_t version_now(const sim_t *s)
{
    int64_t v = NONE;

    for (int r = 0; r < s->n; r++)
        if (s->stored[s->p[s->mem[r]].owner] > v)
            v = s->stored[s->p[s->mem[r]].owner];
    return v;
}

static void store(sim_t *s, int64_t v)
{
    int moved = s->next.n > 0;
    uint64_t ids[MAXP];

    if (moved) { /* the store's copies go where the domains ask */
        dmesh_copies_plan_free(&s->plan);
        s->plan = s->next;
        s->next.n = 0;
        s->next.holder = NULL;
    }
    for (int r = 0; r < s->n; r++) {
        proc_t *x = &s->p[s->mem[r]];
        x->own = v;
        s->stored[x->owner] = v;
    }
    make_held(s, v, NULL);
    check_whole(s, v, "a store");
    for (int r = 0; r < s->n; r++) { /* copies_xfer.c's stored(): the table's rows */
        ids[r] = s->p[s->mem[r]].id;
        if (moved)
            s->placed[r] = s->p[s->mem[r]].domain;
    }
    for (int r = 0; r < s->n; r++) {
        proc_t *x = &s->p[s->mem[r]];
        dmesh_copies_table_rows(&s->plan, ids, s->placed, x->table);
        memset(x->table + 2 * s->n, 0, (size_t)s->n * sizeof(uint64_t));
    }
}

/* A process's memory gone; a new one in its place (same owner), maybe in
 * another domain. */
static void lose(sim_t *s, int i, uint64_t domain)
{
    proc_t *x = &s->p[i];

    free(x->table);
    *x = (proc_t){0, 0, x->owner, domain, NONE, {NONE, 0, 0, -1, -1, 0}, NULL, 0, 0};
}

/* DMESH_TEST_MODEL_DUMP: each member's records and truth before a restore. */
static void dump(const sim_t *s, const int *src)
{
    printf("%s\n", s->log);
    for (int r = 0; r < s->n; r++) {
        const proc_t *x = &s->p[s->mem[r]];
        const int *m;
        int sz, pos;
        printf("  member %d: proc %d owner %d id %llx own %lld held v %lld group %d owner %d "
               "valid %d src %d",
               r, s->mem[r], x->owner, (unsigned long long)(x->id & 0xffff), (long long)x->own,
               (long long)x->held.v, x->held.group, x->held.owner, x->held.valid,
               src != NULL ? src[r] : -9);
        if (s->scheme->grouped) {
            dmesh_copies_set(&s->plan, r, &m, &sz, &pos);
            printf(" set");
            for (int i = 0; i < sz; i++)
                printf(" %d", m[i]);
        }
        printf("\n");
    }
    for (int g = 0; g < s->ngroups; g++) {
        printf("  group %d:", g);
        for (int i = 0; i < s->group[g].n; i++)
            printf(" p%d/o%d%s", s->group[g].proc[i], s->group[g].owner[i],
                   s->group[g].had[i] ? "" : "!");
        printf("\n");
    }
}

static void restore(sim_t *s)
{
    dmesh_copies_record_t rec[MAXP];
    int src[MAXP], from[MAXP], refresh[MAXP], lost = 0, n = s->n, err;
    int64_t want = version_now(s), v = 0;

    for (int r = 0; r < n; r++) {
        proc_t *x = &s->p[s->mem[r]];
        rec[r] = (dmesh_copies_record_t){x->own,
                                         x->held.v,
                                         x->own == NONE ? 0 : (int64_t)len_of(x->owner),
                                         (int64_t)x->held.len,
                                         x->id,
                                         x->held.held_for,
                                         x->born && x->own == NONE};
        if (s->stored[x->owner] != NONE && !survives(s, x->owner, s->stored[x->owner]))
            lost = 1;
    }
    err = dmesh_copies_plan_restore(&s->plan, rec, &v, src, from, refresh);
    if (getenv("DMESH_TEST_MODEL_DUMP") != NULL)
        dump(s, src);
    ck_assert_msg(err != DMESH_ERR_INTERNAL, "%s: DMESH_ERR_INTERNAL", s->log);
    ck_assert_msg((err == DMESH_ERR_DATA_LOST) == lost, "%s: restore %d, the model says %s", s->log,
                  err, lost ? "a state is lost" : "every state survives");
    if (err != DMESH_SUCCESS)
        return;
    for (int r = 0; r < n; r++) {
        proc_t *x = &s->p[s->mem[r]];
        if (src[r] == DMESH_COPIES_SRC_NONE) { /* its restore: DMESH_COPIES_NONE */
            ck_assert_msg(s->stored[x->owner] == NONE, "%s: member %d: nothing, but stored", s->log,
                          r);
            continue;
        }
        ck_assert_msg(v == want && s->stored[x->owner] == v,
                      "%s: member %d given version %lld, the model %lld", s->log, r, (long long)v,
                      (long long)want);
        if (src[r] == DMESH_COPIES_SRC_HOLDER) {
            const held_t *h = &s->p[s->mem[from[r]]].held;
            ck_assert_msg(h->owner == x->owner && h->valid && h->v == v,
                          "%s: member %d given the copy of owner %d (valid %d)", s->log, r,
                          h->owner, h->valid);
        }
        if (src[r] == DMESH_COPIES_SRC_PARITY) {
            const int *m;
            int sz, pos, g = -1;
            dmesh_copies_set(&s->plan, r, &m, &sz, &pos);
            for (int i = 0; i < sz && g < 0; i++)
                if (m[i] != r)
                    g = s->p[s->mem[m[i]]].held.group;
            ck_assert_msg(g >= 0 && group_rebuilds(s, g, x->owner, v),
                          "%s: member %d rebuilt from a parity that does not hold it", s->log, r);
        }
        x->own = v;
    }
    if (s->scheme == &dmesh_copies_partner) { /* r's holder receives r's copy */
        int mark[MAXP] = {0};
        for (int r = 0; r < n; r++)
            if (refresh[r])
                mark[dmesh_copies_holder(&s->plan, r)] = 1;
        make_held(s, v, mark);
    } else {
        make_held(s, v, refresh);
    }
    if (s->next.n > 0) { /* place_anew: the domains' placement, made there */
        dmesh_copies_plan_free(&s->plan);
        s->plan = s->next;
        s->next.n = 0;
        s->next.holder = NULL;
        for (int r = 0; r < n; r++)
            s->placed[r] = s->p[s->mem[r]].domain;
        make_held(s, v, NULL);
    }
    check_whole(s, v, "a restore");
    for (int r = 0; r < n; r++) { /* copies_xfer.c: the table as placed */
        uint64_t ids[MAXP];
        for (int i = 0; i < n; i++)
            ids[i] = s->p[s->mem[i]].id;
        dmesh_copies_table_rows(&s->plan, ids, s->placed, s->p[s->mem[r]].table);
    }
}

/* Members at places x[] (nx of them) lose their memory; moved: their
 * replacements land in another domain (an existing one, or a new one). */
static void ev_lose(sim_t *s, const int *x, int nx, int moved)
{
    for (int i = 0; i < nx; i++) {
        proc_t *q = &s->p[s->mem[x[i]]];
        uint64_t d = q->domain;
        if (moved)
            d = pick(s, 3) == 0 ? 90 + (uint64_t)pick(s, 2) : s->p[s->mem[pick(s, s->n)]].domain;
        lose(s, s->mem[x[i]], d);
    }
    open_all(s);
}

/* The members at places x[] leave (dead); the others, in order, open. */
static void ev_shrink(sim_t *s, const int *x, int nx)
{
    int keep[MAXP], nk = 0, out[MAXP] = {0};

    for (int i = 0; i < nx; i++)
        out[x[i]] = 1;
    for (int r = 0; r < s->n; r++)
        if (!out[r])
            keep[nk++] = s->mem[r];
        else
            lose(s, s->mem[r], s->p[s->mem[r]].domain);
    memcpy(s->mem, keep, (size_t)nk * sizeof(int));
    s->n = nk;
    open_all(s);
}

/* k processes of the pool join at the end, new owners with nothing stored. */
static void ev_grow(sim_t *s, int k)
{
    int in[MAXP] = {0};

    for (int r = 0; r < s->n; r++)
        in[s->mem[r]] = 1;
    for (int i = 0; i < s->np && k > 0; i++)
        if (!in[i]) {
            lose(s, i, s->p[pick(s, s->np)].domain);
            s->p[i].owner = s->owners++;
            s->stored[s->p[i].owner] = NONE;
            s->mem[s->n++] = i;
            k--;
        }
    open_all(s);
}

/* Some places: one, a domain, the holder of one's copy and the one, or a few. */
static int victims(sim_t *s, int *x)
{
    int nx = 0, a = pick(s, s->n), how = pick(s, 4), partners[MAXP];

    x[nx++] = a;
    if (how == 1) { /* a's whole domain */
        nx = 0;
        for (int r = 0; r < s->n; r++)
            if (s->p[s->mem[r]].domain == s->p[s->mem[a]].domain)
                x[nx++] = r;
    } else if (how == 2) { /* a and a member holding something of a's */
        int np = 0, h;
        while ((h = s->plan.scheme->partner(&s->plan, a, np)) >= 0 && np < MAXP)
            partners[np++] = h;
        if (np > 0)
            x[nx++] = partners[pick(s, np)];
    } else if (how == 3 && s->n > 3) {
        int b = pick(s, s->n);
        if (b != a)
            x[nx++] = b;
    }
    /* a survivor at least: without one nothing says what was stored (a
     * respawn needs survivors; a job that lost every process is gone) */
    return nx < s->n ? nx : s->n - 1;
}

static void run_event(sim_t *s, int64_t *v)
{
    int x[MAXP], nx, e = pick(s, EV_COUNT), pool = s->np - s->n;
    char what[32];

    if (e == EV_STORE) {
        snprintf(what, sizeof(what), "store(%lld)", (long long)++*v);
        note(s, what);
        store(s, *v);
    } else if (e == EV_LOSE) {
        int moved = pick(s, 2);
        nx = victims(s, x);
        snprintf(what, sizeof(what), "lose(%d%s%s)", x[0], nx > 1 ? "+" : "",
                 moved ? ",moved" : "");
        note(s, what);
        ev_lose(s, x, nx, moved);
    } else if (e == EV_SHRINK && s->n > 2) {
        nx = victims(s, x);
        if (s->n - nx < 2)
            nx = 1;
        snprintf(what, sizeof(what), "shrink(%d%s)", x[0], nx > 1 ? "+" : "");
        note(s, what);
        ev_shrink(s, x, nx);
    } else if (e == EV_GROW && pool > 0 && s->n < 16) {
        int k = 1 + pick(s, pool < 3 ? pool : 3);
        if (s->n + k > 16)
            k = 16 - s->n;
        snprintf(what, sizeof(what), "grow(%d)", k);
        note(s, what);
        ev_grow(s, k);
    } else {
        note(s, "restore");
        restore(s);
    }
}

/* One sequence of seed's: a mesh, a scheme, up to MAXE events, then a
 * restore. */
static void sequence(uint64_t seed)
{
    sim_t s;
    int nd, events;
    int64_t v = 0;

    memset(&s, 0, sizeof(s));
    s.rng = seed * 0x2545f4914f6cdd1dull + 7;
    s.scheme = pick(&s, 2) ? &dmesh_copies_xor : &dmesh_copies_partner;
    s.k = 2 + pick(&s, 3);
    s.n = 2 + pick(&s, 15);
    s.np = s.n + pick(&s, 5);
    if (s.np > MAXP)
        s.np = MAXP;
    nd = 1 + pick(&s, 4);
    snprintf(s.log, sizeof(s.log),
             "seed %llu: %s k %d, %d members of %d, %d domains:", (unsigned long long)seed,
             s.scheme->name, s.k, s.n, s.np, nd);
    for (int i = 0; i < s.np; i++) {
        lose(&s, i, (uint64_t)(i * nd / s.np));
        s.p[i].owner = i;
        s.stored[i] = NONE;
    }
    s.owners = s.np;
    for (int r = 0; r < s.n; r++)
        s.mem[r] = r;
    open_all(&s);
    events = 1 + pick(&s, MAXE);
    for (int e = 0; e < events; e++)
        run_event(&s, &v);
    note(&s, "restore");
    restore(&s);
    for (int i = 0; i < s.np; i++)
        free(s.p[i].table);
    dmesh_copies_plan_free(&s.plan);
    dmesh_copies_plan_free(&s.next);
    free(s.group);
}

static int sequences = 20000, first = 1;

START_TEST(model_sequences)
{
    for (int i = 0; i < sequences; i++)
        sequence((uint64_t)(first + i));
}
END_TEST

/* The sequences that once failed, kept (each was a seed above). */
START_TEST(model_regressions)
{
    /* 50: every copy lost looked like nothing stored (a silent start over);
     * 55: a shrink while a replacement had not restored dealt the XOR sets
     * again (its parity served another set); 478: a restore gives nothing
     * to members with nothing while others hold a version; 11497, 107057:
     * the only owner of the version lost, the others holding parities only:
     * the open took the version for none stored and dealt the sets again */
    static const uint64_t seeds[] = {50, 55, 478, 11497, 107057};
    for (size_t i = 0; i < sizeof(seeds) / sizeof(seeds[0]); i++)
        sequence(seeds[i]);
}
END_TEST

int main(int argc, char **argv)
{
    Suite *su = suite_create("copies_model");
    TCase *tc = tcase_create("model");
    SRunner *sr;
    int failed;

    if (argc > 1)
        sequences = atoi(argv[1]);
    if (argc > 2)
        first = atoi(argv[2]);
    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, model_sequences);
    tcase_add_test(tc, model_regressions);
    suite_add_tcase(su, tc);
    sr = srunner_create(su);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    printf("test_copies_model: %d sequences from seed %d\n", sequences, first);
    return failed != 0;
}
