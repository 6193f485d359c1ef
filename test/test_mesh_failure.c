/* SPDX-License-Identifier: BSD-3-Clause */
/* Failure semantics of the collective calls (doc/user-guide.md, "Failure
 * semantics"): a rank whose own arguments are rejected, an aborted universe,
 * bad input that used to get through, and, in a build configured with
 * --enable-fault-injection, a fault injected at every site on one rank, on
 * several and on all, for every collective call. In every case every rank
 * must return the same class (a hang fails the run: test/mpirun.sh runs it
 * under timeout), nothing stays half made, and the communicator and the
 * universe are still usable afterwards. */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mesh_testutil.h"

static const char *const W[] = {"w"};
static const char *const AB[] = {"a", "b"};

/* Sum of the ranks of comm over its communicator along dim 0: a real
 * collective on what the library made. */
static void check_allreduce(dmesh_t mesh, MPI_Comm ref)
{
    MPI_Comm c = MPI_COMM_NULL;
    int members[MT_MAX_RANKS], n, sum = 0, expect = 0, me;

    MT_OK(dmesh_get_comm(mesh, 0, &c));
    if (c == MPI_COMM_NULL)
        return;
    n = mt_comm_members(mesh, 0, ref, members);
    for (int i = 0; i < n; i++)
        expect += members[i];
    MPI_Comm_rank(ref, &me);
    MPI_Allreduce(&me, &sum, 1, MPI_INT, MPI_SUM, c);
    MT_EQ(sum, expect);
}

/* A 1-D mesh over all of comm works, with a real allreduce on it. */
static void comm_still_works(MPI_Comm comm)
{
    int size, shape[1];
    dmesh_t m = DMESH_NULL;

    MPI_Comm_size(comm, &size);
    shape[0] = size;
    MT_OK(dmesh_init(comm, "cpu", 1, shape, W, MPI_INFO_NULL, &m));
    if (m != DMESH_NULL)
        check_allreduce(m, comm);
    MT_OK(dmesh_free(&m));
}

#define WORLD_FAILS(call, expected, handle) MT_FAILS_CREATE(MPI_COMM_WORLD, call, expected, handle)

/* ---- one rank rejects its own arguments --------------------------------- */

MT_TEST(null_output_on_one_rank)
{
    int shape[2] = {2, mt_size / 2}, sizes[2] = {1, mt_size / 2}, bad = mt_size - 1;
    dmesh_t root, h;

    if (mt_size < 2 || mt_size % 2)
        return;
    MT_OK(dmesh_init(MPI_COMM_WORLD, "cpu", 2, shape, AB, MPI_INFO_NULL, &root));
    WORLD_FAILS(dmesh_flatten(root, "f", MPI_INFO_NULL, mt_rank == bad ? NULL : &h), DMESH_ERR_ARG,
                h);
    WORLD_FAILS(dmesh_unflatten(root, 1, 2, sizes, (const char *[]){"x", "y"}, MPI_INFO_NULL,
                                mt_rank == bad ? NULL : &h),
                DMESH_ERR_ARG, h);
    /* nothing was made or registered: the same calls work now */
    MT_OK(dmesh_flatten(root, "f", MPI_INFO_NULL, &h));
    check_allreduce(h, MPI_COMM_WORLD);
    MT_OK(dmesh_free(&h));
    MT_OK(dmesh_free(&root));
}

MT_TEST(from_comms_bad_on_one_rank)
{
    int shape[1] = {mt_size}, shape2[2] = {1, mt_size}, bad = mt_size - 1;
    MPI_Comm comms[2] = {MPI_COMM_SELF, MPI_COMM_WORLD};
    dmesh_t h;

    if (mt_size < 2)
        return;
    /* dim_comms NULL on one rank */
    WORLD_FAILS(dmesh_from_comms(MPI_COMM_WORLD, "cpu", 1, mt_rank == bad ? NULL : &comms[1], shape,
                                 NULL, W, &h),
                DMESH_ERR_ARG, h);
    /* ranks NULL with ndims 2 on one rank, a rank list elsewhere */
    {
        int id[MT_MAX_RANKS];
        for (int i = 0; i < mt_size; i++)
            id[i] = i;
        WORLD_FAILS(dmesh_from_comms(MPI_COMM_WORLD, "cpu", 2, comms, shape2,
                                     mt_rank == bad ? NULL : id, AB, &h),
                    DMESH_ERR_ARG, h);
    }
    comm_still_works(MPI_COMM_WORLD);
}

/* ---- bad input that used to get through --------------------------------- */

MT_TEST(dim_int_min)
{
    int shape[1] = {mt_size}, v = -42, arr[MT_MAX_RANKS], n = -42;
    const char *name = "untouched";
    MPI_Comm c = MPI_COMM_WORLD;
    dmesh_t m = DMESH_NULL, h;

    MT_OK(dmesh_init(MPI_COMM_WORLD, "cpu", 1, shape, W, MPI_INFO_NULL, &m));
    MT_RC(dmesh_get_local_rank(m, INT_MIN, &v), DMESH_ERR_ARG);
    MT_RC(dmesh_get_group_ranks(m, INT_MIN, MT_MAX_RANKS, arr, &n), DMESH_ERR_ARG);
    MT_RC(dmesh_get_comm(m, INT_MIN, &c), DMESH_ERR_ARG);
    MT_RC(dmesh_get_dim_name(m, INT_MIN, &name), DMESH_ERR_ARG);
    MT_EQ(v, -42);
    MT_EQ(n, -42);
    MT_CHECK(c == MPI_COMM_NULL); /* an output handle: its null on failure */
    MT_STREQ(name, "untouched");
    WORLD_FAILS(dmesh_unflatten(m, INT_MIN, 1, shape, W, MPI_INFO_NULL, &h), DMESH_ERR_ARG, h);
    MT_OK(dmesh_free(&m));
}

MT_TEST(from_comms_foreign_or_null)
{
    int shape[1] = {mt_size}, half = mt_size / 2;
    MPI_Comm sub = MPI_COMM_NULL, pair = MPI_COMM_NULL, nulls[1] = {MPI_COMM_NULL};
    dmesh_t h;

    if (mt_size < 4 || mt_size % 2)
        return;
    /* comm is the lower half; dim_comms[0] pairs rank r with r + half, which
     * is not in comm */
    MPI_Comm_split(MPI_COMM_WORLD, mt_rank < half ? 0 : MPI_UNDEFINED, mt_rank, &sub);
    MPI_Comm_split(MPI_COMM_WORLD, mt_rank % half, mt_rank, &pair);
    if (sub != MPI_COMM_NULL) {
        MT_FAILS_CREATE(sub, dmesh_from_comms(sub, "cpu", 1, &pair, (int[]){2}, NULL, W, &h),
                        DMESH_ERR_LAYOUT, h);
        comm_still_works(sub);
        MPI_Comm_free(&sub);
    }
    MPI_Comm_free(&pair);
    /* MPI_COMM_NULL on every rank: a mesh without a member */
    WORLD_FAILS(dmesh_from_comms(MPI_COMM_WORLD, "cpu", 1, nulls, shape, NULL, W, &h),
                DMESH_ERR_LAYOUT, h);
    comm_still_works(MPI_COMM_WORLD);
}

MT_TEST(intercommunicator)
{
    int half = mt_size / 2, shape[1] = {1};
    MPI_Comm local, inter;
    dmesh_t h;

    if (mt_size < 2)
        return;
    MPI_Comm_split(MPI_COMM_WORLD, mt_rank < half, mt_rank, &local);
    MPI_Intercomm_create(local, 0, MPI_COMM_WORLD, mt_rank < half ? half : 0, 7, &inter);
    h = DMESH_NULL;
    MT_RC(dmesh_init(inter, "cpu", 1, shape, NULL, MPI_INFO_NULL, &h), DMESH_ERR_ARG);
    MT_RC(dmesh_create(inter, "cpu", 1, shape, (int[]){0}, NULL, MPI_INFO_NULL, &h), DMESH_ERR_ARG);
    MT_CHECK(h == DMESH_NULL);
    dmesh_free(&h);
    MPI_Comm_free(&inter);
    MPI_Comm_free(&local);
}

/* Names given twice are DMESH_ERR_NAME on every path that takes names, a
 * size-1 dimension included; a mesh concatenated with itself overlaps. */
MT_TEST(names_and_overlap)
{
    int shape[2] = {1, mt_size};
    dmesh_t root, a, h = DMESH_NULL;

    MT_OK(dmesh_init(MPI_COMM_WORLD, "cpu", 2, shape, AB, MPI_INFO_NULL, &root));
    MT_RC(dmesh_slice(root, 2, (const char *[]){"a", "a"}, &h), DMESH_ERR_NAME);
    MT_RC(dmesh_slice(root, 2, (const char *[]){"b", "b"}, &h), DMESH_ERR_NAME);
    MT_CHECK(h == DMESH_NULL);
    MT_OK(dmesh_slice(root, 1, (const char *[]){"a"}, &a));
    MT_RC(dmesh_concatenate(2, (dmesh_t[]){a, a}, &h), DMESH_ERR_LAYOUT);
    MT_RC(dmesh_concatenate(2, (dmesh_t[]){root, root}, &h), DMESH_ERR_LAYOUT);
    MT_CHECK(h == DMESH_NULL);
    MT_OK(dmesh_free(&a));
    MT_OK(dmesh_free(&root));
}

/* One "by name or by index" table per key: dmesh_backend.0 and
 * nccl_max_ctas.a name dim 0 in two keys, which is allowed. */
MT_TEST(per_key_dim_forms)
{
    int shape[1] = {mt_size};
    MPI_Info info = mt_info2("dmesh_backend.0", "mpi", "nccl_max_ctas.w", "4");
    dmesh_t h = DMESH_NULL;

    MT_OK(dmesh_init(MPI_COMM_WORLD, "cpu", 1, shape, W, info, &h));
    MT_OK(dmesh_free(&h));
    MPI_Info_free(&info);
    /* within one key, both forms for one dim stay an error */
    info = mt_info2("dmesh_backend.0", "mpi", "dmesh_backend.w", "mpi");
    WORLD_FAILS(dmesh_init(MPI_COMM_WORLD, "cpu", 1, shape, W, info, &h), DMESH_ERR_ARG, h);
    MPI_Info_free(&info);
}

/* The DMESH_* variables are read once per process, so this case runs twice:
 * in every run (none set) and from test/mesh-env.sh (test/mesh-env-np2.mpi), which starts the
 * processes with DMESH_CHECK=bogus and DMESH_TIMEOUT=never (CK_RUN_CASE=env).
 * The info keys override bad variables; changing the environment after the
 * first call changes nothing. */
MT_TEST(env_read_once)
{
    int shape[1] = {mt_size}, bad = getenv("DMESH_CHECK") != NULL;
    MPI_Info off = mt_info1("dmesh_check", "false"),
             both = mt_info2("dmesh_check", "false", "dmesh_timeout", "2.5");
    dmesh_t h = DMESH_NULL;

    MT_CHECK(!bad || strcmp(getenv("DMESH_CHECK"), "bogus") == 0);
    MT_OK(dmesh_init(MPI_COMM_WORLD, "cpu", 1, shape, W, both, &h)); /* the keys win */
    MT_OK(dmesh_free(&h));
    if (bad) { /* DMESH_TIMEOUT=never, overridden by no key here */
        WORLD_FAILS(dmesh_init(MPI_COMM_WORLD, "cpu", 1, shape, W, off, &h), DMESH_ERR_ARG, h);
        unsetenv("DMESH_CHECK");
        WORLD_FAILS(dmesh_init(MPI_COMM_WORLD, "cpu", 1, shape, W, MPI_INFO_NULL, &h),
                    DMESH_ERR_ARG, h);
        MT_CHECK(strstr(dmesh_last_error(), "DMESH_CHECK") != NULL);
    } else {
        setenv("DMESH_CHECK", "bogus", 1);
        MT_OK(dmesh_init(MPI_COMM_WORLD, "cpu", 1, shape, W, MPI_INFO_NULL, &h));
        MT_OK(dmesh_free(&h));
        unsetenv("DMESH_CHECK");
    }
    MPI_Info_free(&both);
    MPI_Info_free(&off);
}

/* dmesh_timeout takes seconds > 0 (info key, else DMESH_TIMEOUT); a bad
 * value is DMESH_ERR_ARG on every rank. */
MT_TEST(timeout_option)
{
    int shape[1] = {mt_size};
    const char *bad[] = {"0", "-1", "soon", "1e99"};
    MPI_Info info;
    dmesh_t h = DMESH_NULL;

    for (int i = 0; i < (int)(sizeof(bad) / sizeof(bad[0])); i++) {
        info = mt_info1("dmesh_timeout", bad[i]);
        WORLD_FAILS(dmesh_init(MPI_COMM_WORLD, "cpu", 1, shape, W, info, &h), DMESH_ERR_ARG, h);
        MPI_Info_free(&info);
    }
    info = mt_info1("dmesh_timeout", "2.5");
    MT_OK(dmesh_init(MPI_COMM_WORLD, "cpu", 1, shape, W, info, &h));
    MT_OK(dmesh_free(&h));
    MPI_Info_free(&info); /* DMESH_TIMEOUT: env_read_once */
    MT_STREQ(dmesh_error_string(DMESH_ERR_TIMEOUT),
             "DMESH_ERR_TIMEOUT: a bounded wait (dmesh_timeout) ran out");
}

/* ---- dmesh_abort --------------------------------------------------------- */

MT_TEST(abort_honoured)
{
    int shape[2] = {1, mt_size}, sizes[2] = {1, mt_size}, v = -1, ndims = 0;
    dmesh_t root, sub, h;
    dmesh_cache_info_t before, after;

    MT_OK(dmesh_init(MPI_COMM_WORLD, "cpu", 2, shape, AB, MPI_INFO_NULL, &root));
    MT_OK(dmesh_slice(root, 1, (const char *[]){"b"}, &sub));
    MT_OK(dmesh_abort(sub));
    before = mt_cache(root);
    WORLD_FAILS(dmesh_flatten(root, "f", MPI_INFO_NULL, &h), DMESH_ERR_ARG, h);
    MT_CHECK(strstr(dmesh_last_error(), "universe aborted") != NULL);
    WORLD_FAILS(dmesh_unflatten(sub, 0, 2, sizes, (const char *[]){"x", "y"}, MPI_INFO_NULL, &h),
                DMESH_ERR_ARG, h);
    MT_CHECK(strstr(dmesh_last_error(), "universe aborted") != NULL);
    after = mt_cache(root);
    MT_EQ(after.comms_mpi, before.comms_mpi); /* nothing new was made */
    /* queries still answer */
    MT_OK(dmesh_get_ndims(root, &ndims));
    MT_EQ(ndims, 2);
    MT_OK(dmesh_get_local_rank(sub, 0, &v));
    MT_EQ(v, mt_rank);
    MT_OK(dmesh_free(&sub));
    MT_OK(dmesh_free(&root));
    comm_still_works(MPI_COMM_WORLD);
}

/* ---- fault injection ----------------------------------------------------- */

#ifdef DMESH_FAULT_INJECTION

long dmesh_fault_hits(void); /* exported by a fault-injection build only */

/* The calls from C_FLATTEN on start from a root mesh made before the fault
 * is armed. */
enum {
    C_INIT,
    C_INIT_NODE,
    C_INIT_HYBRID,
    C_CREATE,
    C_FROM_COMMS,
    C_FLATTEN,
    C_UNFLATTEN,
    C_CART,
    C_SUB,
    C_DESERIALIZE,
    NCALLS
};
static const char *const call_names[NCALLS] = {
    "dmesh_init",         "dmesh_init (dmesh_order=node)",
    "dmesh_init_hybrid",  "dmesh_create",
    "dmesh_from_comms",   "dmesh_flatten",
    "dmesh_unflatten",    "dmesh_get_cart_comm",
    "dmesh_get_sub_comm", "dmesh_deserialize"};
/* "colour": a split colour past INT_MAX on the chosen ranks, as at about
 * 50,000 ranks; the ranks concerned must still enter the split. */
static const char *const sites[] = {"dup",        "split",  "create_group", "group",
                                    "errhandler", "malloc", "cart",         "colour"};
enum { P_ONE, P_SEVERAL, P_ALL, NPATTERNS };
static const char *const pattern_names[NPATTERNS] = {"one rank", "several ranks", "all ranks"};
#define NSITES ((int)(sizeof(sites) / sizeof(sites[0])))
#define MAX_NTH 40

static long combinations;

/* DMESH_FAULT for site, pattern and nth, on every rank. */
static void arm(const char *site, int pattern, int nth)
{
    char spec[512] = "";
    size_t len = 0;

    if (pattern == P_ALL)
        snprintf(spec, sizeof(spec), "%s:*:%d", site, nth);
    for (int r = 0; pattern != P_ALL && r < mt_size && len < sizeof(spec) - 64; r++)
        if ((pattern == P_ONE && r == mt_size - 1) || (pattern == P_SEVERAL && r % 2 == 0))
            len += (size_t)snprintf(spec + len, sizeof(spec) - len, "%s%s:%d:%d", len ? "," : "",
                                    site, r, nth);
    setenv("DMESH_FAULT", spec, 1);
}

/* What a call made: a mesh, or (dmesh_get_cart_comm, dmesh_get_sub_comm) a
 * borrowed communicator. */
typedef struct {
    dmesh_t mesh;
    MPI_Comm cart, sub;
} made_t;

/* The derived calls: on root, made before the fault is armed. */
static int run_derived(int call, MPI_Comm comm, dmesh_t root, MPI_Info info, made_t *out)
{
    static const int periods[2] = {1, 0};
    char text[4096];
    size_t needed;
    int size;

    MPI_Comm_size(comm, &size);
    switch (call) {
    case C_FLATTEN:
        return dmesh_flatten(root, "f", info, &out->mesh);
    case C_UNFLATTEN:
        return dmesh_unflatten(root, 1, 2, (int[]){1, size / 2}, (const char *[]){"x", "y"}, info,
                               &out->mesh);
    case C_CART:
        return dmesh_get_cart_comm(root, periods, 0, &out->cart);
    case C_SUB: /* both dimensions: a new layout, the whole mesh */
        return dmesh_get_sub_comm(root, (int[]){1, 1}, &out->sub);
    default:
        MT_OK(dmesh_serialize(root, text, sizeof(text), &needed));
        return dmesh_deserialize(comm, text, info, &out->mesh);
    }
}

/* dmesh_init with dmesh_order=node added to info. */
static int init_by_node(MPI_Comm comm, const int shape[], MPI_Info info, dmesh_t *out)
{
    MPI_Info node;
    int rc;

    if (info != MPI_INFO_NULL)
        MPI_Info_dup(info, &node);
    else
        MPI_Info_create(&node);
    MPI_Info_set(node, "dmesh_order", "node");
    rc = dmesh_init(comm, "cpu", 2, shape, AB, node, out);
    MPI_Info_free(&node);
    return rc;
}

/* One collective call on comm. */
static int run_call(int call, MPI_Comm comm, dmesh_t root, MPI_Info info, made_t *out)
{
    int size, shape[2], ranks[MT_MAX_RANKS];
    MPI_Comm dims[1] = {comm};

    MPI_Comm_size(comm, &size);
    shape[0] = 2;
    shape[1] = size / 2;
    for (int i = 0; i < size; i++)
        ranks[i] = size - 1 - i;
    switch (call) {
    case C_INIT:
        return dmesh_init(comm, "cpu", 2, shape, AB, info, &out->mesh);
    case C_INIT_NODE:
        return init_by_node(comm, shape, info, &out->mesh);
    case C_INIT_HYBRID: /* one node here: across 1 */
        return dmesh_init_hybrid(comm, "cpu", 2, shape, (int[]){1, 1}, AB, info, &out->mesh);
    case C_CREATE:
        return dmesh_create(comm, "cpu", 2, shape, ranks, AB, info, &out->mesh);
    case C_FROM_COMMS:
        return dmesh_from_comms(comm, "cpu", 1, dims, &size, NULL, W, &out->mesh);
    default:
        return run_derived(call, comm, root, info, out);
    }
}

/* What a successful call made works: an allreduce on each dimension of the
 * mesh, or on the Cartesian communicator, which has the mesh's shape. */
static void check_made(const made_t *made, MPI_Comm comm)
{
    int dims[2], periods[2], coords[2], topo = MPI_UNDEFINED, sum = 0, one = 1;

    if (made->mesh != DMESH_NULL) {
        check_allreduce(made->mesh, comm);
        return;
    }
    if (made->sub != MPI_COMM_NULL) { /* the whole mesh: every rank of comm */
        MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, made->sub);
        MT_EQ(sum, mt_size);
        return;
    }
    MT_CHECK(made->cart != MPI_COMM_NULL);
    if (made->cart == MPI_COMM_NULL)
        return;
    MPI_Topo_test(made->cart, &topo);
    MT_EQ(topo, MPI_CART);
    MPI_Cart_get(made->cart, 2, dims, periods, coords);
    MT_EQ(dims[0], 2);
    MT_EQ(dims[1], mt_size / 2);
    MPI_Allreduce(&one, &sum, 1, MPI_INT, MPI_SUM, made->cart);
    MT_EQ(sum, mt_size);
}

/* One combination on a fresh duplicate of the world (so that the library's
 * private duplicate is made again). Returns whether a fault was injected
 * on some rank. */
static int one_fault(int call, const char *site, int pattern, int nth)
{
    MPI_Comm comm;
    /* group creation is the default; the split site needs the other one */
    MPI_Info info = strcmp(site, "split") == 0 || strcmp(site, "colour") == 0
                        ? mt_info1("dmesh_comm_create", "split")
                        : MPI_INFO_NULL;
    dmesh_t root = DMESH_NULL;
    made_t made = {DMESH_NULL, MPI_COMM_NULL, MPI_COMM_NULL};
    dmesh_cache_info_t before = {.comms_mpi = 0}, after;
    long hits, any = 0;
    int rc, failed, anyfail = 0;

    MPI_Comm_dup(MPI_COMM_WORLD, &comm);
    if (call >= C_FLATTEN) {
        MT_OK(dmesh_init(comm, "cpu", 2, (int[]){2, mt_size / 2}, AB, info, &root));
        before = mt_cache(root);
    }
    arm(site, pattern, nth);
    rc = run_call(call, comm, root, info, &made);
    hits = dmesh_fault_hits();
    unsetenv("DMESH_FAULT");
    MPI_Allreduce(&hits, &any, 1, MPI_LONG, MPI_MAX, MPI_COMM_WORLD);
    failed = rc != DMESH_SUCCESS;
    MPI_Allreduce(&failed, &anyfail, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    MT_SAME(MPI_COMM_WORLD, rc);
    if (any && !failed)
        mt_fail(__FILE__, __LINE__, "%s, fault %s on %s (call %d): succeeded", call_names[call],
                site, pattern_names[pattern], nth);
    if (!any)
        MT_EQ(rc, DMESH_SUCCESS);
    if (failed &&
        (made.mesh != DMESH_NULL || made.cart != MPI_COMM_NULL || made.sub != MPI_COMM_NULL))
        mt_fail(__FILE__, __LINE__, "%s: output written by a failing call", call_names[call]);
    if (root != DMESH_NULL && failed) { /* rolled back: nothing new in the cache */
        after = mt_cache(root);
        MT_EQ(after.comms_mpi, before.comms_mpi);
    }
    if (failed) /* usable afterwards: the same call succeeds */
        rc = run_call(call, comm, root, info, &made);
    MT_EQ(rc, DMESH_SUCCESS);
    if (rc == DMESH_SUCCESS)
        check_made(&made, comm);
    dmesh_free(&made.mesh);
    dmesh_free(&root);
    if (info != MPI_INFO_NULL)
        MPI_Info_free(&info);
    MPI_Comm_free(&comm);
    return any != 0;
}

MT_TEST(fault_injection)
{
    long count = 0;

    if (mt_size < 2 || mt_size % 2)
        return;
    for (int call = 0; call < NCALLS; call++)
        for (int s = 0; s < NSITES; s++)
            for (int p = 0; p < NPATTERNS; p++)
                for (int nth = 1; nth <= MAX_NTH && one_fault(call, sites[s], p, nth); nth++)
                    count++;
    combinations += count;
    comm_still_works(MPI_COMM_WORLD);
    if (mt_rank == 0)
        printf("fault injection: %ld combinations (call x site x pattern x nth) at %d ranks\n",
               count, mt_size);
    MT_CHECK(count > 0);
}

#endif /* DMESH_FAULT_INJECTION */

static Suite *failure_suite(void)
{
    Suite *s = suite_create("mesh_failure");
    TCase *tc = tcase_create("failure");

    tcase_add_test(tc, null_output_on_one_rank);
    tcase_add_test(tc, from_comms_bad_on_one_rank);
    tcase_add_test(tc, dim_int_min);
    tcase_add_test(tc, from_comms_foreign_or_null);
    tcase_add_test(tc, intercommunicator);
    tcase_add_test(tc, names_and_overlap);
    tcase_add_test(tc, per_key_dim_forms);
    tcase_add_test(tc, timeout_option);
    tcase_add_test(tc, abort_honoured);
#ifdef DMESH_FAULT_INJECTION
    tcase_add_test(tc, fault_injection);
#endif
    tcase_set_timeout(tc, 0);
    suite_add_tcase(s, tc);
    tc = tcase_create("env");
    tcase_add_test(tc, env_read_once);
    tcase_set_timeout(tc, 0);
    suite_add_tcase(s, tc);
    return s;
}

int main(int argc, char **argv)
{
    return mt_main(&argc, &argv, failure_suite);
}
