/* SPDX-License-Identifier: BSD-3-Clause */
/* Helpers shared by the MPI test programs of the mesh API; see mesh_testutil.h. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mesh_testutil.h"

int mt_rank = 0;
int mt_size = 1;

static const char *current_test = "";
static int test_failures;
static char first_failure[512];

/* ---- soft checks -------------------------------------------------------- */

void mt_begin(const char *test)
{
    current_test = test;
    test_failures = 0;
    first_failure[0] = '\0';
}

void mt_end(void)
{
    ck_assert_msg(test_failures == 0, "rank %d: %d check(s) failed, first: %s", mt_rank,
                  test_failures, first_failure);
}

void mt_fail(const char *file, int line, const char *fmt, ...)
{
    char msg[400];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    if (test_failures == 0)
        snprintf(first_failure, sizeof(first_failure), "%s:%d: %s", file, line, msg);
    test_failures++;
    fprintf(stderr, "[rank %d] %s: %s:%d: %s\n", mt_rank, current_test, file, line, msg);
    fflush(stderr);
}

static const char *class_name(int rc)
{
    static const char *const names[] = {
        "DMESH_SUCCESS",        "DMESH_ERR_ARG",         "DMESH_ERR_SIZE",
        "DMESH_ERR_NAME",       "DMESH_ERR_LAYOUT",      "DMESH_ERR_MISMATCH",
        "DMESH_ERR_NOT_MEMBER", "DMESH_ERR_NO_DEVICE",   "DMESH_ERR_BACKEND",
        "DMESH_ERR_MPI",        "DMESH_ERR_NCCL",        "DMESH_ERR_CUDA",
        "DMESH_ERR_HWLOC",      "DMESH_ERR_NOMEM",       "DMESH_ERR_INTERNAL",
        "DMESH_ERR_TIMEOUT",    "DMESH_ERR_PROC_FAILED", "DMESH_ERR_UNSUPPORTED",
        "DMESH_ERR_SPAWN",      "DMESH_ERR_DATA_LOST"};

    if (rc < 0 || rc >= (int)(sizeof(names) / sizeof(names[0])))
        return "(not an error class)";
    return names[rc];
}

int mt_expect_rc(const char *file, int line, const char *call, int rc, int expected)
{
    const char *detail = dmesh_last_error();

    if (rc != expected) {
        mt_fail(file, line, "%s returned %d %s, expected %s (last error: \"%s\")", call, rc,
                class_name(rc), class_name(expected), detail ? detail : "(null)");
    } else if (expected != DMESH_SUCCESS && (detail == NULL || detail[0] == '\0')) {
        mt_fail(file, line, "%s failed with %s but dmesh_last_error() is empty", call,
                class_name(rc));
    }
    return rc;
}

void mt_expect_same(const char *file, int line, MPI_Comm comm, int value, const char *what)
{
    int in[2] = {value, -value}, out[2];

    if (comm == MPI_COMM_NULL)
        return;
    MPI_Allreduce(in, out, 2, MPI_INT, MPI_MIN, comm);
    if (out[0] != -out[1])
        mt_fail(file, line, "%s differs between ranks: min %d (%s), max %d (%s); here %d", what,
                out[0], class_name(out[0]), -out[1], class_name(-out[1]), value);
}

/* ---- program frame ------------------------------------------------------ */

int mt_run_suite(Suite *s)
{
    SRunner *sr = srunner_create(s);
    int failed, total = 0;

    srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, CK_SILENT);
    failed = srunner_ntests_failed(sr);
    if (mt_rank == 0) {
        srunner_print(sr, CK_NORMAL);
    } else if (failed > 0) {
        TestResult **res = srunner_failures(sr);
        for (int i = 0; i < failed; i++)
            fprintf(stderr, "[rank %d] %s:%d:%s: %s\n", mt_rank, tr_lfile(res[i]), tr_lno(res[i]),
                    tr_tcname(res[i]), tr_msg(res[i]));
        free(res);
    }
    fflush(stdout);
    fflush(stderr);
    srunner_free(sr);
    MPI_Allreduce(&failed, &total, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (mt_rank == 0)
        printf("%d rank(s): %d failed test(s) summed over all ranks\n", mt_size, total);
    return total;
}

int mt_comm8(MPI_Comm *comm)
{
    *comm = MPI_COMM_NULL;
    if (mt_size < 8)
        return 0;
    if (mt_size == 8) {
        MPI_Comm_dup(MPI_COMM_WORLD, comm);
        return 1;
    }
    MPI_Comm_split(MPI_COMM_WORLD, mt_rank < 8 ? 0 : MPI_UNDEFINED, mt_rank, comm);
    return mt_rank < 8;
}

MPI_Info mt_info1(const char *key, const char *value)
{
    MPI_Info info;

    MPI_Info_create(&info);
    MPI_Info_set(info, key, value);
    return info;
}

MPI_Info mt_info2(const char *k1, const char *v1, const char *k2, const char *v2)
{
    MPI_Info info = mt_info1(k1, v1);

    MPI_Info_set(info, k2, v2);
    return info;
}

static void factor_rec(int n, int k, int pos, int *cur, int max, int *out, int *count)
{
    if (pos == k - 1) {
        if (*count < max) {
            cur[pos] = n;
            memcpy(out + (size_t)(*count) * k, cur, sizeof(int) * k);
            (*count)++;
        }
        return;
    }
    for (int f = 1; f <= n; f++) {
        if (n % f != 0)
            continue;
        cur[pos] = f;
        factor_rec(n / f, k, pos + 1, cur, max, out, count);
    }
}

int mt_factorisations(int n, int k, int max, int *out)
{
    int cur[DMESH_MAX_DIMS], count = 0;

    factor_rec(n, k, 0, cur, max, out, &count);
    return count;
}

dmesh_cache_info_t mt_cache(dmesh_t mesh)
{
    dmesh_cache_info_t info;

    memset(&info, 0, sizeof(info));
    MT_OK(dmesh_get_cache_info(mesh, &info));
    return info;
}

int mt_same_ints(const int *a, const int *b, int n)
{
    for (int i = 0; i < n; i++)
        if (a[i] != b[i])
            return 0;
    return 1;
}

/* ---- model -------------------------------------------------------------- */

void mt_model_init(mt_model_t *m, int ndims, const int shape[], const int ranks[])
{
    memset(m, 0, sizeof(*m));
    m->ndims = ndims;
    m->nranks = 1;
    for (int d = 0; d < ndims; d++) {
        m->shape[d] = shape[d];
        m->ndig[d] = 1;
        m->dig[d][0] = shape[d];
        m->nranks *= shape[d];
    }
    ck_assert_int_le(m->nranks, MT_MAX_RANKS);
    for (int i = 0; i < m->nranks; i++)
        m->ranks[i] = ranks ? ranks[i] : i;
}

void mt_model_split(mt_model_t *m, int d, int n, const int sizes[])
{
    int p = 1;

    ck_assert_int_eq(m->ndig[d], 1);
    for (int k = 0; k < n; k++) {
        m->dig[d][k] = sizes[k];
        p *= sizes[k];
    }
    ck_assert_int_eq(p, m->shape[d]);
    m->ndig[d] = n;
}

mt_axis_t mt_axis_dim(const mt_model_t *m, int d)
{
    mt_axis_t a;

    a.n = m->ndig[d];
    for (int k = 0; k < a.n; k++) {
        a.dim[k] = d;
        a.digit[k] = k;
    }
    return a;
}

mt_axis_t mt_axis_digit(int d, int k)
{
    mt_axis_t a;

    a.n = 1;
    a.dim[0] = d;
    a.digit[0] = k;
    return a;
}

mt_axis_t mt_axis_join(mt_axis_t a, mt_axis_t b)
{
    for (int i = 0; i < b.n; i++) {
        a.dim[a.n] = b.dim[i];
        a.digit[a.n] = b.digit[i];
        a.n++;
    }
    return a;
}

int mt_axis_size(const mt_model_t *m, const mt_axis_t *a)
{
    int s = 1;

    for (int i = 0; i < a->n; i++)
        s *= m->dig[a->dim[i]][a->digit[i]];
    return s;
}

int mt_model_find(const mt_model_t *m, int rank)
{
    for (int i = 0; i < m->nranks; i++)
        if (m->ranks[i] == rank)
            return i;
    return -1;
}

/* Digits of every root dimension at rank map index idx. */
static void index_to_digits(const mt_model_t *m, int idx, int dv[][DMESH_MAX_DIMS])
{
    for (int d = m->ndims - 1; d >= 0; d--) {
        int c = idx % m->shape[d];
        idx /= m->shape[d];
        for (int k = m->ndig[d] - 1; k >= 0; k--) {
            dv[d][k] = c % m->dig[d][k];
            c /= m->dig[d][k];
        }
    }
}

static int digits_to_index(const mt_model_t *m, int dv[][DMESH_MAX_DIMS])
{
    int idx = 0;

    for (int d = 0; d < m->ndims; d++) {
        int c = 0;
        for (int k = 0; k < m->ndig[d]; k++)
            c = c * m->dig[d][k] + dv[d][k];
        idx = idx * m->shape[d] + c;
    }
    return idx;
}

int mt_model_group(const mt_model_t *m, int idx, int naxes, const mt_axis_t axes[], int out[])
{
    int base[DMESH_MAX_DIMS][DMESH_MAX_DIMS], dv[DMESH_MAX_DIMS][DMESH_MAX_DIMS];
    int pd[DMESH_MAX_DIMS * DMESH_MAX_DIMS], pk[DMESH_MAX_DIMS * DMESH_MAX_DIMS];
    int np = 0, total = 1;

    index_to_digits(m, idx, base);
    for (int a = 0; a < naxes; a++)
        for (int i = 0; i < axes[a].n; i++) {
            pd[np] = axes[a].dim[i];
            pk[np] = axes[a].digit[i];
            total *= m->dig[pd[np]][pk[np]];
            np++;
        }
    for (int t = 0; t < total; t++) {
        int rest = t;
        memcpy(dv, base, sizeof(dv));
        for (int p = np - 1; p >= 0; p--) {
            int s = m->dig[pd[p]][pk[p]];
            dv[pd[p]][pk[p]] = rest % s;
            rest /= s;
        }
        out[t] = m->ranks[digits_to_index(m, dv)];
    }
    return total;
}

/* ---- checks on the real communicators ----------------------------------- */

int mt_comm_members(dmesh_t mesh, int dim, MPI_Comm ref, int out[])
{
    MPI_Comm comm = MPI_COMM_NULL;

    if (dmesh_get_comm(mesh, dim, &comm) != DMESH_SUCCESS)
        return -1;
    return mt_members_in(comm, ref, out);
}

int mt_members_in(MPI_Comm comm, MPI_Comm ref, int out[])
{
    MPI_Group g, gref;
    int n, in[MT_MAX_RANKS];

    if (comm == MPI_COMM_NULL)
        return -1;
    MPI_Comm_size(comm, &n);
    if (n > MT_MAX_RANKS)
        return -1;
    MPI_Comm_group(comm, &g);
    MPI_Comm_group(ref, &gref);
    for (int i = 0; i < n; i++)
        in[i] = i;
    MPI_Group_translate_ranks(g, n, in, gref, out);
    MPI_Group_free(&g);
    MPI_Group_free(&gref);
    return n;
}

static void format_ints(char *buf, size_t len, const int *v, int n)
{
    size_t used = 0;

    buf[0] = '\0';
    for (int i = 0; i < n && used + 16 < len; i++)
        used += snprintf(buf + used, len - used, "%s%d", i ? "," : "[", v[i]);
    if (used + 2 < len)
        snprintf(buf + used, len - used, "]");
}

static void expect_ints(const char *file, int line, const char *what, int dim, const int *got,
                        int ngot, const int *want, int nwant)
{
    char g[160], w[160];

    if (ngot == nwant && mt_same_ints(got, want, nwant))
        return;
    format_ints(g, sizeof(g), got, ngot < 0 ? 0 : ngot);
    format_ints(w, sizeof(w), want, nwant);
    mt_fail(file, line, "%s of dim %d: got %s (n=%d), expected %s", what, dim, g, ngot, w);
}

/* Real communication on the dim communicator proves who is in it and in
 * which order: a bitwise OR of 1 << (root rank), a sum, and an allgather. */
static void check_comm_traffic(const char *file, int line, MPI_Comm comm, int dim, int refrank,
                               const int *want, int n)
{
    unsigned long long bit = refrank < 64 ? 1ULL << refrank : 0, mask = 0, want_mask = 0;
    long long sum = 0, want_sum = 0, mine = refrank;
    int gathered[MT_MAX_RANKS], csize;

    MPI_Comm_size(comm, &csize);
    if (csize > MT_MAX_RANKS)
        return;
    for (int i = 0; i < n; i++) {
        want_mask |= want[i] < 64 ? 1ULL << want[i] : 0;
        want_sum += want[i];
    }
    MPI_Allreduce(&bit, &mask, 1, MPI_UNSIGNED_LONG_LONG, MPI_BOR, comm);
    MPI_Allreduce(&mine, &sum, 1, MPI_LONG_LONG, MPI_SUM, comm);
    MPI_Allgather(&refrank, 1, MPI_INT, gathered, 1, MPI_INT, comm);
    /* Every member of comm takes part above, whatever the result. */
    if (mask != want_mask)
        mt_fail(file, line, "allreduce(BOR) on dim %d comm: got %#llx, expected %#llx", dim, mask,
                want_mask);
    if (sum != want_sum)
        mt_fail(file, line, "allreduce(SUM) on dim %d comm: got %lld, expected %lld", dim, sum,
                want_sum);
    expect_ints(file, line, "allgather on the communicator", dim, gathered, csize, want, n);
}

static void check_member_dim(const char *file, int line, dmesh_t mesh, MPI_Comm ref,
                             const mt_model_t *m, int idx, const mt_axis_t *axis, int d, int coord)
{
    int want[MT_MAX_RANKS], got[MT_MAX_RANKS], n, ngot = -1, pos = -1, lr = -1, refrank, crank;
    MPI_Comm comm = MPI_COMM_NULL;

    MPI_Comm_rank(ref, &refrank);
    n = mt_model_group(m, idx, 1, axis, want);
    for (int i = 0; i < n; i++)
        if (want[i] == refrank)
            pos = i;
    if (coord != pos)
        mt_fail(file, line, "coordinate on dim %d: got %d, expected %d", d, coord, pos);
    mt_expect_rc(file, line, "dmesh_get_local_rank", dmesh_get_local_rank(mesh, d, &lr),
                 DMESH_SUCCESS);
    if (lr != pos)
        mt_fail(file, line, "local rank on dim %d: got %d, expected %d", d, lr, pos);
    mt_expect_rc(file, line, "dmesh_get_group_ranks",
                 dmesh_get_group_ranks(mesh, d, MT_MAX_RANKS, got, &ngot), DMESH_SUCCESS);
    expect_ints(file, line, "dmesh_get_group_ranks", d, got, ngot, want, n);

    mt_expect_rc(file, line, "dmesh_get_comm", dmesh_get_comm(mesh, d, &comm), DMESH_SUCCESS);
    if (comm == MPI_COMM_NULL) {
        mt_fail(file, line, "dmesh_get_comm(dim %d) gave MPI_COMM_NULL on a member", d);
        return;
    }
    ngot = mt_comm_members(mesh, d, ref, got);
    expect_ints(file, line, "members of dmesh_get_comm", d, got, ngot, want, n);
    MPI_Comm_rank(comm, &crank);
    if (crank != pos)
        mt_fail(file, line, "rank in dmesh_get_comm(dim %d): got %d, expected %d", d, crank, pos);
    check_comm_traffic(file, line, comm, d, refrank, want, n);
}

static void check_non_member(const char *file, int line, dmesh_t mesh, const mt_model_t *m,
                             int naxes, const mt_axis_t axes[], int size)
{
    int got[MT_MAX_RANKS], want[MT_MAX_RANKS], n = -1, lr = -5, nwant;
    MPI_Comm comm;

    for (int d = 0; d < naxes; d++) {
        comm = MPI_COMM_WORLD;
        mt_expect_rc(file, line, "dmesh_get_comm", dmesh_get_comm(mesh, d, &comm), DMESH_SUCCESS);
        if (comm != MPI_COMM_NULL)
            mt_fail(file, line, "dmesh_get_comm(dim %d) on a non-member is not MPI_COMM_NULL", d);
        mt_expect_rc(file, line, "dmesh_get_local_rank", dmesh_get_local_rank(mesh, d, &lr),
                     DMESH_ERR_NOT_MEMBER);
        if (lr != -5)
            mt_fail(file, line, "dmesh_get_local_rank wrote its output on failure");
        n = -5;
        mt_expect_rc(file, line, "dmesh_get_group_ranks",
                     dmesh_get_group_ranks(mesh, d, MT_MAX_RANKS, got, &n), DMESH_ERR_NOT_MEMBER);
        if (n != -5)
            mt_fail(file, line, "dmesh_get_group_ranks wrote nranks on failure");
    }
    /* The mesh tensor: the only copy, or NOT_MEMBER when there are several. */
    n = -1;
    if (m->nranks / size == 1) {
        nwant = mt_model_group(m, 0, naxes, axes, want);
        mt_expect_rc(file, line, "dmesh_get_ranks (one copy)",
                     dmesh_get_ranks(mesh, MT_MAX_RANKS, got, &n), DMESH_SUCCESS);
        expect_ints(file, line, "mesh tensor (non-member, one copy)", -1, got, n, want, nwant);
    } else {
        mt_expect_rc(file, line, "dmesh_get_ranks (several copies)",
                     dmesh_get_ranks(mesh, MT_MAX_RANKS, got, &n), DMESH_ERR_NOT_MEMBER);
    }
}

static void check_static(const char *file, int line, dmesh_t mesh, const mt_model_t *m, int naxes,
                         const mt_axis_t axes[], const char *const names[], int *size_out)
{
    int shape[DMESH_MAX_DIMS], size = -1, prod = 1, device = -9, dim;
    const char *dt = NULL, *name;

    for (int d = 0; d < naxes; d++) {
        shape[d] = -1;
    }
    mt_expect_rc(file, line, "dmesh_get_shape", dmesh_get_shape(mesh, DMESH_MAX_DIMS, shape),
                 DMESH_SUCCESS);
    for (int d = 0; d < naxes; d++) {
        int want = mt_axis_size(m, &axes[d]);
        if (shape[d] != want)
            mt_fail(file, line, "shape[%d]: got %d, expected %d", d, shape[d], want);
        prod *= want;
    }
    mt_expect_rc(file, line, "dmesh_get_size", dmesh_get_size(mesh, &size), DMESH_SUCCESS);
    if (size != prod)
        mt_fail(file, line, "size: got %d, expected %d", size, prod);
    *size_out = prod;
    mt_expect_rc(file, line, "dmesh_get_device_type", dmesh_get_device_type(mesh, &dt),
                 DMESH_SUCCESS);
    if (dt == NULL || strcmp(dt, "cpu") != 0)
        mt_fail(file, line, "device type: got %s, expected cpu", dt ? dt : "(null)");
    mt_expect_rc(file, line, "dmesh_get_device", dmesh_get_device(mesh, &device), DMESH_SUCCESS);
    if (device != -1)
        mt_fail(file, line, "device of a cpu mesh: got %d, expected -1", device);
    for (int d = 0; d < naxes; d++) {
        name = "(untouched)";
        mt_expect_rc(file, line, "dmesh_get_dim_name", dmesh_get_dim_name(mesh, d, &name),
                     DMESH_SUCCESS);
        if (names == NULL) {
            if (name != NULL)
                mt_fail(file, line, "dim %d of an unnamed mesh has name \"%s\"", d, name);
            continue;
        }
        if (name == NULL || strcmp(name, names[d]) != 0)
            mt_fail(file, line, "name of dim %d: got %s, expected %s", d, name ? name : "(null)",
                    names[d]);
        dim = -1;
        mt_expect_rc(file, line, "dmesh_get_dim_index", dmesh_get_dim_index(mesh, names[d], &dim),
                     DMESH_SUCCESS);
        if (dim != d)
            mt_fail(file, line, "dmesh_get_dim_index(%s): got %d, expected %d", names[d], dim, d);
    }
}

void mt_check_mesh_at(const char *file, int line, dmesh_t mesh, MPI_Comm ref, const mt_model_t *m,
                      int naxes, const mt_axis_t axes[], const char *const names[])
{
    int refrank, idx, ndims = -1, size = 1, is_member = -1, coords[DMESH_MAX_DIMS];
    int got[MT_MAX_RANKS], want[MT_MAX_RANKS], n = -1, nwant;

    if (mesh == DMESH_NULL) {
        mt_fail(file, line, "mesh to check is DMESH_NULL");
        return;
    }
    MPI_Comm_rank(ref, &refrank);
    idx = mt_model_find(m, refrank);
    mt_expect_rc(file, line, "dmesh_get_ndims", dmesh_get_ndims(mesh, &ndims), DMESH_SUCCESS);
    if (ndims != naxes) {
        mt_fail(file, line, "ndims: got %d, expected %d", ndims, naxes);
        return;
    }
    check_static(file, line, mesh, m, naxes, axes, names, &size);

    for (int d = 0; d < DMESH_MAX_DIMS; d++)
        coords[d] = -7;
    mt_expect_rc(file, line, "dmesh_get_coordinate",
                 dmesh_get_coordinate(mesh, DMESH_MAX_DIMS, coords, &is_member), DMESH_SUCCESS);
    if (is_member != (idx >= 0)) {
        mt_fail(file, line, "is_member: got %d, expected %d", is_member, idx >= 0);
        return;
    }
    if (idx < 0) {
        for (int d = 0; d < DMESH_MAX_DIMS; d++)
            if (coords[d] != (d < naxes ? MPI_UNDEFINED : -7))
                mt_fail(file, line, "non-member's coordinate %d: got %d, expected %d", d, coords[d],
                        d < naxes ? MPI_UNDEFINED : -7);
        check_non_member(file, line, mesh, m, naxes, axes, size);
        return;
    }
    for (int d = 0; d < naxes; d++)
        check_member_dim(file, line, mesh, ref, m, idx, &axes[d], d, coords[d]);
    nwant = mt_model_group(m, idx, naxes, axes, want);
    mt_expect_rc(file, line, "dmesh_get_ranks", dmesh_get_ranks(mesh, MT_MAX_RANKS, got, &n),
                 DMESH_SUCCESS);
    expect_ints(file, line, "mesh tensor", -1, got, n, want, nwant);
}

int mt_same_host(MPI_Comm comm)
{
    char mine[MPI_MAX_PROCESSOR_NAME + 1] = "", first[MPI_MAX_PROCESSOR_NAME + 1] = "";
    int len = 0, same, all = 0;

    MPI_Get_processor_name(mine, &len);
    memcpy(first, mine, sizeof(first));
    MPI_Bcast(first, (int)sizeof(first), MPI_CHAR, 0, comm);
    same = strcmp(mine, first) == 0;
    MPI_Allreduce(&same, &all, 1, MPI_INT, MPI_MIN, comm);
    return all;
}

int mt_one_node(const char *name)
{
    MPI_Comm node;
    int n = 0, fewest = 0, host, one;
    const char *rule = getenv("DMESH_NODE");

    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &n);
    MPI_Comm_free(&node);
    MPI_Allreduce(&n, &fewest, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    host = mt_same_host(MPI_COMM_WORLD);
    /* dmesh's rule: the split, unless it is finer than the host */
    if (rule != NULL && strcmp(rule, "shared") == 0)
        one = fewest == mt_size;
    else if (rule != NULL && strcmp(rule, "host") == 0)
        one = host;
    else
        one = fewest == mt_size || host;
    if (one)
        return 1;
    if (mt_rank == 0)
        printf("skipped: %s: the case needs every rank on one node, and here the ranks have "
               "different processor names, and the MPI's MPI_Comm_split_type"
               "(MPI_COMM_TYPE_SHARED) has a node of %d of the %d ranks%s\n",
               name, fewest, mt_size, rule != NULL ? " (DMESH_NODE is set)" : "");
    return 0;
}

/* The lowest world rank of each rank's shared split, and of the ranks with
 * its processor name, gathered. */
static void gather_lows(int shared[], int host[])
{
    char mine[MPI_MAX_PROCESSOR_NAME + 1] = "", *all;
    size_t w = sizeof(mine);
    MPI_Comm s;
    int low = mt_rank, len = 0;

    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &s);
    MPI_Allreduce(&mt_rank, &low, 1, MPI_INT, MPI_MIN, s);
    MPI_Comm_free(&s);
    MPI_Allgather(&low, 1, MPI_INT, shared, 1, MPI_INT, MPI_COMM_WORLD);
    MPI_Get_processor_name(mine, &len);
    all = calloc((size_t)mt_size, w);
    MPI_Allgather(mine, (int)w, MPI_CHAR, all, (int)w, MPI_CHAR, MPI_COMM_WORLD);
    for (int r = 0; r < mt_size; r++)
        for (int q = 0; q <= r; q++)
            if (strcmp(all + (size_t)q * w, all + (size_t)r * w) == 0) {
                host[r] = q;
                break;
            }
    free(all);
}

int mt_node_lows(int lows[], int *per)
{
    static int shared[MT_MAX_RANKS], host[MT_MAX_RANKS], finer[MT_MAX_RANKS];
    const char *rule = getenv("DMESH_NODE");
    int nodes = 0, count;

    gather_lows(shared, host);
    /* auto: the host where a host has ranks in two splits, for every rank
     * of those splits */
    for (int r = 0; r < mt_size; r++) {
        finer[r] = 0;
        for (int q = 0; q < mt_size; q++)
            finer[r] |= host[q] == host[r] && shared[q] != shared[r];
    }
    for (int r = 0; r < mt_size; r++) {
        int by_host = 0;
        for (int q = 0; q < mt_size; q++)
            by_host |= shared[q] == shared[r] && finer[q];
        if (rule != NULL && strcmp(rule, "shared") == 0)
            by_host = 0;
        else if (rule != NULL && strcmp(rule, "host") == 0)
            by_host = 1;
        lows[r] = by_host ? host[r] : shared[r];
    }
    *per = -1;
    for (int r = 0; r < mt_size; r++) {
        if (lows[r] != r)
            continue;
        nodes++;
        count = 0;
        for (int q = 0; q < mt_size; q++)
            count += lows[q] == r;
        *per = *per == -1 || *per == count ? count : 0;
    }
    return nodes;
}

void mt_node_order(const int lows[], int order[])
{
    int n = 0;

    for (int low = 0; low < mt_size; low++)
        for (int r = low; lows[low] == low && r < mt_size; r++)
            if (lows[r] == low)
                order[n++] = r;
}

int mt_main(int *argc, char ***argv, Suite *(*make_suite)(void))
{
    int failed;

    MPI_Init(argc, argv);
    /* The suites check classes: dmesh's failures return instead of ending
     * the job (dmesh raises them on these handlers, fatal by default). */
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    MPI_Comm_set_errhandler(MPI_COMM_SELF, MPI_ERRORS_RETURN);
    MPI_Comm_rank(MPI_COMM_WORLD, &mt_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &mt_size);
    failed = mt_run_suite(make_suite());
    MPI_Finalize();
    return failed == 0 ? 0 : 1;
}
